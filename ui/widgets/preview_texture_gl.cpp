#include "ui/widgets/preview_texture.h"

#include "ui/widgets/image_views.h"

#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace redraw {
namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

/// An RGBA8 texture with nearest filtering; (re)allocated with glTexImage2D on a size change.
class GlTexture {
public:
  GlTexture() { glGenTextures(1, &m_id); }
  ~GlTexture() {
    if (m_id) glDeleteTextures(1, &m_id);
  }
  GlTexture(const GlTexture&) = delete;
  GlTexture& operator=(const GlTexture&) = delete;

  /// Binds the texture and makes sure it has w x h texels. True when it was reallocated.
  bool bind_sized(int32_t w, int32_t h) {
    glBindTexture(GL_TEXTURE_2D, m_id);
    if (w == m_w && h == m_h) return false;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    m_w = w;
    m_h = h;
    return true;
  }
  GLuint id() const { return m_id; }
  int32_t width() const { return m_w; }
  int32_t height() const { return m_h; }

private:
  GLuint m_id = 0;
  int32_t m_w = 0, m_h = 0;
};

/// Rows [y0, y0 + rows) of the bound w-wide texture from RGBA8 pixels (or a bound PBO's offset).
void upload_rgba_rows(const uint8_t* rgba_or_pbo_offset, int32_t w, int32_t y0, int32_t rows) {
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y0, w, rows, GL_RGBA, GL_UNSIGNED_BYTE, rgba_or_pbo_offset);
}

void upload_rgba(const uint8_t* rgba_or_pbo_offset, int32_t w, int32_t h) { upload_rgba_rows(rgba_or_pbo_offset, w, 0, h); }

/// Host memory -> GL; also the base of the device path, which adds upload_device().
class HostTexture : public PreviewTexture {
public:
  void upload_host(const uint8_t* rgba, int32_t w, int32_t h) override {
    const auto t0 = std::chrono::steady_clock::now();
    m_tex.bind_sized(w, h);
    upload_rgba(rgba, w, h);
    m_last_ms = ms_since(t0);
  }
  void upload_image(const Image& img) override {
    if (img.width < 1 || img.height < 1) return;
    const auto t0 = std::chrono::steady_clock::now();
    m_tex.bind_sized(img.width, img.height);
    const int32_t band = upload_band_rows(img.width);
    std::vector<uint8_t> rgba(size_t(std::min(band, img.height)) * size_t(img.width) * 4);
    for (int32_t y0 = 0; y0 < img.height; y0 += band) {
      const int32_t rows = std::min(band, img.height - y0);
      to_rgba8_rows(img, y0, rows, rgba.data());
      upload_rgba_rows(rgba.data(), img.width, y0, rows);
    }
    m_last_ms = ms_since(t0);
  }
  bool read_rgba(std::vector<uint8_t>& out) const override {
    out.assign(size_t(m_tex.width()) * size_t(m_tex.height()) * 4, 0);
    if (out.empty()) return false;
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i)
      continue; // errors left by earlier calls (a bounded drain: without a context it never ends)
    glBindTexture(GL_TEXTURE_2D, m_tex.id());
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, out.data()); // RGBA8 rows: 4-byte aligned
    return glGetError() == GL_NO_ERROR;
  }
  void* imgui_id() const override { return reinterpret_cast<void*>(uintptr_t(m_tex.id())); }
  int32_t width() const override { return m_tex.width(); }
  int32_t height() const override { return m_tex.height(); }
  const char* kind() const override { return "host"; }
  double last_upload_ms() const override { return m_last_ms; }

protected:
  GlTexture m_tex;
  double m_last_ms = 0;
};

/// GPU -> GL: a pixel-unpack buffer registered with the device once per size. Each update copies
/// the device frame into it (DeviceGlBuffer) and fills the texture from the bound PBO.
class DeviceTexture final : public HostTexture {
public:
  explicit DeviceTexture(DeviceInterop* interop) : m_device(interop) { glGenBuffers(1, &m_pbo); }
  ~DeviceTexture() override {
    m_interop.reset(); // unregister before the buffer goes away
    if (m_pbo) glDeleteBuffers(1, &m_pbo);
  }
  bool upload_device(const void* rgba_device, int32_t w, int32_t h) override {
    const auto t0 = std::chrono::steady_clock::now();
    const size_t bytes = size_t(w) * size_t(h) * 4;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m_pbo);
    if (!m_interop || m_interop->capacity() < bytes) {
      m_interop.reset();
      glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
      glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
      m_interop = m_device->register_gl_buffer(m_pbo, bytes); // register once per size
      glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m_pbo);
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0); // unbound while the device writes it
    m_interop->copy_from_device(rgba_device, bytes);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, m_pbo);
    m_tex.bind_sized(w, h);
    upload_rgba(nullptr, w, h); // offset 0 into the bound PBO
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    m_last_ms = ms_since(t0);
    return true;
  }
  const char* kind() const override { return "cuda-gl"; }

private:
  DeviceInterop* m_device;
  GLuint m_pbo = 0;
  std::unique_ptr<DeviceGlBuffer> m_interop;
};

} // namespace

void PreviewTexture::upload_image(const Image& img) { upload_host(to_rgba8(img).data(), img.width, img.height); }

int32_t upload_band_rows(int32_t width) {
  return int32_t(std::max<int64_t>(1, k_upload_band_bytes / (std::max<int64_t>(1, width) * 4)));
}

std::unique_ptr<PreviewTexture> make_host_texture() { return std::make_unique<HostTexture>(); }

std::unique_ptr<PreviewTexture> make_device_preview_texture(DeviceInterop* interop, std::string* why) {
  if (!interop) {
    if (why && why->empty()) *why = "no GPU preview interop";
    return nullptr;
  }
  if (!interop->gl_available(why)) return nullptr;
  return std::make_unique<DeviceTexture>(interop);
}

} // namespace redraw
