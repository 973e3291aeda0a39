#pragma once
/// One interface for every picture the canvas draws (docs/contributing.md, 7).
/// - make_host_texture(): an RGBA8 GL texture updated with glTexSubImage2D from a host buffer.
///   Always available; used for the ground truth, the error map, and the CPU backend's preview.
///   upload_image() converts and uploads an engine Image a band of rows at a time, so a 24 MP
///   ground truth never needs a whole RGBA8 copy (96 MB) in host memory.
/// - make_device_preview_texture(): the same texture fed GPU -> GL with no host round trip, through
///   a DeviceInterop (engine/device_interop.h; the CUDA module implements it): a pixel buffer
///   registered with the device once, then a device-to-device copy into it and glTexSubImage2D
///   from the PBO. Returns null, with the reason, when there is no interop or the GL context does
///   not run on the training device.
/// - No GL types here: the texture is handed to ImGui as an opaque ImTextureID-compatible pointer.
/// - Thread: create, update and destroy on the GUI thread with the GL context current.
#include "engine/device_interop.h"
#include "engine/images/image.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redraw {

class PreviewTexture {
public:
  virtual ~PreviewTexture() = default;
  /// Uploads w x h RGBA8 pixels (row 0 at the top). Reallocates when the size changes.
  virtual void upload_host(const uint8_t* rgba, int32_t w, int32_t h) = 0;
  /// Uploads an engine Image (grey or RGB floats in [0, 1]) as to_rgba8 would convert it. This
  /// default converts it whole; a GL texture converts and uploads bands of rows.
  virtual void upload_image(const Image& img);
  /// The texels as RGBA8 (row 0 at the top), read back from GL; false when this texture cannot
  /// (a test hook: the GUI tests compare what is on the card with the picture it came from).
  virtual bool read_rgba(std::vector<uint8_t>& out) const { return false; }
  /// Copies w x h RGBA8 pixels from device memory. False when this texture has no device path.
  virtual bool upload_device(const void* rgba_device, int32_t w, int32_t h) { return false; }
  /// Value for ImGui::Image / ImDrawList::AddImage (the GL texture name as a pointer).
  virtual void* imgui_id() const = 0;
  virtual int32_t width() const = 0;
  virtual int32_t height() const = 0;
  /// "host" or "cuda-gl"; for the status bar.
  virtual const char* kind() const = 0;
  /// Milliseconds the last upload took on the GUI thread.
  virtual double last_upload_ms() const = 0;
  bool empty() const { return width() == 0 || height() == 0; }
};

/// Rows per band of upload_image() for a picture `width` texels wide: k_upload_band_bytes of
/// RGBA8 at most, and at least one row.
constexpr int64_t k_upload_band_bytes = int64_t(256) << 10;
int32_t upload_band_rows(int32_t width);

/// A host-fed texture. Nearest filtering, so zoomed-in pixels stay sharp.
std::unique_ptr<PreviewTexture> make_host_texture();
/// A device-fed texture, or null with `why` set (no interop, GL on another device or on Mesa).
/// `interop` must outlive the texture. GL context current.
std::unique_ptr<PreviewTexture> make_device_preview_texture(DeviceInterop* interop, std::string* why);

} // namespace redraw
