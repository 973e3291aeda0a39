// Headless check of the GPU preview path, as the GUI uses it, on a machine without a display:
// an OpenGL context through EGL on the NVIDIA device (EGL_EXT_platform_device, a pixel buffer
// surface), the CUDA module loaded the way redraw loads it, a short training run on the CUDA
// backend, then per frame: render into the module's DeviceFrameRing, copy the frame into a GL
// pixel buffer registered with CUDA (DeviceGlBuffer), glTexSubImage2D from it, and read the
// texture back. Every texel must match the backend's own host-side render within one 8-bit level.
// Prints a summary and writes JSON with the ms per frame at the requested size.
//
//   redraw_interop_check [--size 1024] [--frames 60] [--image horse.png] [--json FILE]
//
// cudaGLGetDevices is documented for GLX and WGL contexts; on an EGL device-platform context it
// may fail. When the EGL device names CUDA device 0 (EGL_NV_device_cuda) the check trusts that
// and lets the buffer registration decide (interop_gate.h), noting what was not confirmed.
//
// Exit 0: checked and correct. 1: a check failed (message says which). 77: skipped (no EGL
// device, no CUDA module or device), with a "SKIPPED:" line.
#include "app/backend_registry.h"
#include "interop_gate.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
#include "engine/training/trainer.h"
#include "tests/cli_options.h"
#include "tests/tool_support.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
// Types and function-pointer typedefs only: every entry point is loaded from EGL.
#include <GL/glcorearb.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace redraw;

namespace {

constexpr int k_skip = 77;

/// The GL entry points this check needs, loaded through eglGetProcAddress (no libGL link).
struct Gl {
  PFNGLGETSTRINGPROC GetString = nullptr;
  PFNGLGETERRORPROC GetError = nullptr;
  PFNGLGENBUFFERSPROC GenBuffers = nullptr;
  PFNGLDELETEBUFFERSPROC DeleteBuffers = nullptr;
  PFNGLBINDBUFFERPROC BindBuffer = nullptr;
  PFNGLBUFFERDATAPROC BufferData = nullptr;
  PFNGLGENTEXTURESPROC GenTextures = nullptr;
  PFNGLDELETETEXTURESPROC DeleteTextures = nullptr;
  PFNGLBINDTEXTUREPROC BindTexture = nullptr;
  PFNGLTEXIMAGE2DPROC TexImage2D = nullptr;
  PFNGLTEXSUBIMAGE2DPROC TexSubImage2D = nullptr;
  PFNGLPIXELSTOREIPROC PixelStorei = nullptr;
  PFNGLGENFRAMEBUFFERSPROC GenFramebuffers = nullptr;
  PFNGLDELETEFRAMEBUFFERSPROC DeleteFramebuffers = nullptr;
  PFNGLBINDFRAMEBUFFERPROC BindFramebuffer = nullptr;
  PFNGLFRAMEBUFFERTEXTURE2DPROC FramebufferTexture2D = nullptr;
  PFNGLCHECKFRAMEBUFFERSTATUSPROC CheckFramebufferStatus = nullptr;
  PFNGLREADPIXELSPROC ReadPixels = nullptr;
  PFNGLFINISHPROC Finish = nullptr;

  bool load(std::string& missing) {
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(eglGetProcAddress(name));
      if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
    };
    get(GetString, "glGetString");
    get(GetError, "glGetError");
    get(GenBuffers, "glGenBuffers");
    get(DeleteBuffers, "glDeleteBuffers");
    get(BindBuffer, "glBindBuffer");
    get(BufferData, "glBufferData");
    get(GenTextures, "glGenTextures");
    get(DeleteTextures, "glDeleteTextures");
    get(BindTexture, "glBindTexture");
    get(TexImage2D, "glTexImage2D");
    get(TexSubImage2D, "glTexSubImage2D");
    get(PixelStorei, "glPixelStorei");
    get(GenFramebuffers, "glGenFramebuffers");
    get(DeleteFramebuffers, "glDeleteFramebuffers");
    get(BindFramebuffer, "glBindFramebuffer");
    get(FramebufferTexture2D, "glFramebufferTexture2D");
    get(CheckFramebufferStatus, "glCheckFramebufferStatus");
    get(ReadPixels, "glReadPixels");
    get(Finish, "glFinish");
    return missing.empty();
  }
};

struct Options {
  int32_t size = 1024;
  int frames = 60;
  std::string image;
  std::string json;
};

int skip(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  return k_skip;
}

int fail(const std::string& why) {
  std::printf("FAIL: %s\n", why.c_str());
  return 1;
}

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// An EGL display on the NVIDIA device that CUDA calls 0 (or the first device), with a current
/// OpenGL 3.3 core context on a small pixel buffer surface. Empty string on success.
std::string open_egl(EGLDisplay& display, std::string& device_note, bool& names_cuda_device) {
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto query_device_attrib =
      reinterpret_cast<PFNEGLQUERYDEVICEATTRIBEXTPROC>(eglGetProcAddress("eglQueryDeviceAttribEXT"));
  auto platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!query_devices || !platform_display) return "EGL has no device enumeration (EGL_EXT_device_enumeration)";
  EGLDeviceEXT devices[16];
  EGLint count = 0;
  if (!query_devices(16, devices, &count) || count == 0) return "EGL finds no device";
  int chosen = -1;
  for (int i = 0; i < count && query_device_attrib; ++i) {
    EGLAttrib cuda_device = -1;
    if (query_device_attrib(devices[i], EGL_CUDA_DEVICE_NV, &cuda_device) && cuda_device == 0) chosen = i;
  }
  device_note = chosen >= 0 ? "EGL device " + std::to_string(chosen) + " of " + std::to_string(count) + " (CUDA device 0)"
                            : "EGL device 0 of " + std::to_string(count) + " (no EGL_NV_device_cuda)";
  names_cuda_device = chosen >= 0;
  if (chosen < 0) chosen = 0;
  display = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[chosen], nullptr);
  EGLint major = 0, minor = 0;
  if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) return "eglInitialize failed";
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                   EGL_RED_SIZE,     8,               EGL_GREEN_SIZE,      8,
                                   EGL_BLUE_SIZE,    8,               EGL_NONE};
  EGLConfig config;
  EGLint configs = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &configs) || configs == 0)
    return "no EGL config with a pixel buffer and desktop OpenGL";
  const EGLint surface_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, surface_attribs);
  if (surface == EGL_NO_SURFACE) return "eglCreatePbufferSurface failed";
  if (!eglBindAPI(EGL_OPENGL_API)) return "eglBindAPI(EGL_OPENGL_API) failed";
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT) return "eglCreateContext (OpenGL 3.3 core) failed";
  if (!eglMakeCurrent(display, surface, surface, context)) return "eglMakeCurrent failed";
  return {};
}

Options parse(int argc, char** argv) {
  Options o;
  CLI::App app{"CUDA-OpenGL interop on a headless EGL context: frames written by the GPU, read back by GL",
               "interop_check"};
  app.add_option("--size", o.size, "Frame side in pixels")->check(CLI::Range(16, 8192))->capture_default_str();
  app.add_option("--frames", o.frames, "Frames to pass through the ring")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--image", o.image, "Train on this image instead of the bundled one");
  app.add_option("--json", o.json, "Also write the results to this JSON file");
  test::parse_or_exit(app, argc, argv);
  return o;
}

/// The picture the check trains on: `o.image` at `config`'s size, else a 128x128 pattern of
/// sines (and `config` then takes RGB).
Dataset check_dataset(const Options& o, RunConfig& config) {
  Dataset data;
  data.image = o.image.empty() ? Image{} : prepare_training_image(o.image, config.data);
  if (o.image.empty()) {
    data.image.width = data.image.height = 128;
    data.image.channels = 3;
    data.image.pixels.resize(size_t(128) * 128 * 3);
    for (int32_t y = 0; y < 128; ++y)
      for (int32_t x = 0; x < 128; ++x)
        for (int c = 0; c < 3; ++c)
          data.image.at(x, y, c) = 0.5f + 0.5f * std::sin(0.1f * float(x * (c + 1)) + 0.07f * float(y));
    config.data.color_mode = ColorMode::Rgb;
  }
  return data;
}

/// A w x h RGBA8 pixel-unpack buffer and texture, as the GUI makes them; false on a GL error.
bool make_frame_texture(const Gl& gl, int32_t w, int32_t h, GLuint& pbo, GLuint& tex) {
  const size_t bytes = size_t(w) * size_t(h) * 4;
  gl.GenBuffers(1, &pbo);
  gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
  gl.BufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
  gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  gl.GenTextures(1, &tex);
  gl.BindTexture(GL_TEXTURE_2D, tex);
  gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  return gl.GetError() == GL_NO_ERROR;
}

/// The texture's w x h RGBA8 texels into `out` through a framebuffer; false when it is incomplete.
bool read_texture(const Gl& gl, GLuint tex, int32_t w, int32_t h, std::vector<uint8_t>& out) {
  GLuint fbo = 0;
  gl.GenFramebuffers(1, &fbo);
  gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
  gl.FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  const bool complete = gl.CheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (complete) {
    out.assign(size_t(w) * size_t(h) * 4, 0);
    gl.PixelStorei(GL_PACK_ALIGNMENT, 1);
    gl.ReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, out.data());
  }
  gl.BindFramebuffer(GL_FRAMEBUFFER, 0);
  gl.DeleteFramebuffers(1, &fbo);
  return complete;
}

struct TexelDifference {
  int worst = 0;           ///< the largest difference in levels
  int64_t off_by_more = 0; ///< texel channels off by more than one level
};

/// RGBA8 `texels` (row 0 at the top) against `ref` rounded to 8 bits, alpha against 255.
TexelDifference texel_difference(const std::vector<uint8_t>& texels, const Image& ref) {
  TexelDifference t;
  for (int32_t y = 0; y < ref.height; ++y)
    for (int32_t x = 0; x < ref.width; ++x)
      for (int c = 0; c < 4; ++c) {
        const int want = c == 3 ? 255
                                : int(std::lround(std::clamp(ref.at(x, y, ref.channels == 1 ? 0 : c), 0.0f, 1.0f) *
                                                  255.0f));
        // Row 0 of the texture is row 0 of the frame (the top); glReadPixels keeps that order.
        const int got = texels[(size_t(y) * ref.width + x) * 4 + c];
        const int d = std::abs(got - want);
        t.worst = std::max(t.worst, d);
        if (d > 1) ++t.off_by_more;
      }
  return t;
}

/// Each frame's times after the first (which pays for allocation and registration), and the
/// step of the last frame shown.
struct FrameTimes {
  std::vector<double> render_ms, copy_ms, total_ms;
  int64_t shown_step = -1;
};

/// `frames` frames through the ring as the GUI passes them: rendered into the ring on the device,
/// copied into the pixel buffer, uploaded to the texture (training 5 steps every 10 frames, so the
/// network changes as while training). Returns "" or what went wrong.
std::string pass_frames(const Gl& gl, GLuint pbo, GLuint tex, DeviceFrameRing& ring, DeviceGlBuffer& glbuf,
                        DeviceRenderer& device, Trainer& trainer, int32_t w, int32_t h, int frames, FrameTimes& t) {
  const size_t bytes = size_t(w) * size_t(h) * 4;
  for (int f = 0; f < frames; ++f) {
    if (f > 0 && f % 10 == 0) trainer.run(5); // frames of a changing network, as while training
    const auto t0 = std::chrono::steady_clock::now();
    void* dst = ring.begin_write(w, h);
    device.render_rgba8_device(w, h, dst);
    ring.end_write(trainer.current_step());
    const auto t1 = std::chrono::steady_clock::now();
    const void* src = nullptr;
    int32_t rw = 0, rh = 0;
    if (!ring.begin_read(src, rw, rh, t.shown_step)) return "the ring gave no frame after end_write";
    if (rw != w || rh != h) return "the ring's frame has the wrong size";
    glbuf.copy_from_device(src, bytes);
    ring.end_read();
    gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
    gl.BindTexture(GL_TEXTURE_2D, tex);
    gl.PixelStorei(GL_UNPACK_ALIGNMENT, 1);
    gl.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    gl.BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    gl.Finish(); // the GUI never waits here; the check does, to time the whole hand-over
    const auto t2 = std::chrono::steady_clock::now();
    if (gl.GetError() != GL_NO_ERROR) return "glTexSubImage2D from the pixel buffer raised a GL error";
    if (f > 0) { // the first frame pays for allocation and registration
      t.render_ms.push_back(ms_between(t0, t1));
      t.copy_ms.push_back(ms_between(t1, t2));
      t.total_ms.push_back(ms_between(t0, t2));
    }
  }
  return "";
}

int run(const Options& o) {
  std::string why;
  auto interop = make_device_interop(&why);
  if (!interop) return skip("no GPU interop: " + why);
  EGLDisplay display = EGL_NO_DISPLAY;
  std::string device_note;
  bool egl_names_device = false;
  if (const std::string err = open_egl(display, device_note, egl_names_device); !err.empty())
    return skip("no headless OpenGL: " + err);
  Gl gl;
  std::string missing;
  if (!gl.load(missing)) return fail("GL entry points missing: " + missing);
  const std::string vendor = reinterpret_cast<const char*>(gl.GetString(GL_VENDOR));
  const std::string renderer = reinterpret_cast<const char*>(gl.GetString(GL_RENDERER));
  std::printf("interop_check: %s; GL %s on %s (%s)\n", device_note.c_str(),
              reinterpret_cast<const char*>(gl.GetString(GL_VERSION)), renderer.c_str(), vendor.c_str());
  const bool gl_devices_ok = interop->gl_available(&why);
  const test::InteropGate gate = test::interop_gate(egl_names_device, gl_devices_ok, why);
  if (!gate.proceed) return fail(gate.note);
  if (!gate.note.empty()) std::printf("interop_check: note: %s\n", gate.note.c_str());

  // A short run on the CUDA backend, so the picture is not the untrained network's.
  std::string notice;
  auto backend = make_backend("cuda", &notice, "");
  RunConfig config = load_preset("siren");
  config.data.max_side = 128;
  Dataset data = check_dataset(o, config);
  Trainer trainer(std::move(backend), config, std::move(data));
  trainer.run(50);
  DeviceRenderer* device = trainer.backend().device_renderer();
  if (!device) return fail("the CUDA backend has no device renderer");

  const int32_t w = o.size, h = o.size;
  const size_t bytes = size_t(w) * size_t(h) * 4;
  GLuint pbo = 0, tex = 0;
  if (!make_frame_texture(gl, w, h, pbo, tex)) return fail("creating the pixel buffer and texture raised a GL error");
  std::unique_ptr<DeviceGlBuffer> glbuf;
  try {
    glbuf = interop->register_gl_buffer(pbo, bytes);
  } catch (const std::exception& e) {
    return fail(std::string("registering the GL pixel buffer with CUDA failed: ") + e.what() +
                (gate.note.empty() ? "" : " (" + gate.note + ")"));
  }
  auto ring = interop->make_frame_ring();

  FrameTimes times;
  if (const std::string err = pass_frames(gl, pbo, tex, *ring, *glbuf, *device, trainer, w, h, o.frames, times);
      !err.empty())
    return fail(err);
  const std::vector<double>& render_ms = times.render_ms;
  const std::vector<double>& copy_ms = times.copy_ms;
  const std::vector<double>& total_ms = times.total_ms;
  const int64_t shown_step = times.shown_step;
  std::vector<uint8_t> readback;

  // Read the texture back and compare with the backend's own render of the same network.
  if (!read_texture(gl, tex, w, h, readback)) return fail("framebuffer incomplete");
  const TexelDifference diff = texel_difference(readback, trainer.render(w, h));
  const int worst = diff.worst;
  const int64_t off_by_more = diff.off_by_more;
  glbuf.reset();
  gl.DeleteTextures(1, &tex);
  gl.DeleteBuffers(1, &pbo);

  const bool ok = worst <= 1 && shown_step == trainer.current_step();
  std::printf("interop_check: %dx%d, %d frames: render %.3f ms, copy + upload %.3f ms, total %.3f ms per frame "
              "(median); max texel difference %d level(s), %lld texels off by more than 1\n",
              w, h, o.frames, median(render_ms), median(copy_ms), median(total_ms), worst, (long long)off_by_more);
  if (!o.json.empty()) {
    nlohmann::json j = {{"interop",
                         {{"ok", ok},
                          {"gl_renderer", renderer},
                          {"gl_vendor", vendor},
                          {"device", device_note},
                          {"egl_names_cuda_device", egl_names_device},
                          {"cuda_gl_get_devices", gl_devices_ok ? std::string("ok") : why},
                          {"size", w},
                          {"frames", o.frames},
                          {"render_ms", median(render_ms)},
                          {"copy_upload_ms", median(copy_ms)},
                          {"total_ms", median(total_ms)},
                          {"max_level_diff", worst},
                          {"texels_off_by_more_than_1", off_by_more}}}};
    std::ofstream(o.json) << j.dump(2) << "\n";
  }
  eglTerminate(display);
  if (!ok) return fail(worst > 1 ? "the texture differs from the backend's render" : "the shown frame is not the newest");
  std::printf("interop_check: OK\n");
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
