#pragma once
/// Whether the headless interop check goes on to register a GL buffer with CUDA, from the two
/// signs that its EGL context runs on CUDA device 0:
/// - egl_names_device: the EGL device the context was made on reports EGL_CUDA_DEVICE_NV == 0
///   (EGL_NV_device_cuda), the driver's own statement;
/// - gl_devices_ok: cudaGLGetDevices lists device 0 for the current context. Documented for GLX
///   and WGL contexts; on an EGL device-platform context it may return an error instead.
/// Either sign is enough: the registration itself (cudaGraphicsGLRegisterBuffer) is the real test,
/// and it fails loudly. With neither, the check fails without trying.
#include <string>

namespace redraw::test {

struct InteropGate {
  bool proceed = false;
  std::string note; ///< what was not confirmed and why the check goes on anyway, or why it stops
};

inline InteropGate interop_gate(bool egl_names_device, bool gl_devices_ok, const std::string& gl_devices_why) {
  if (gl_devices_ok) return {true, {}};
  if (egl_names_device)
    return {true, "cudaGLGetDevices does not confirm the context (" + gl_devices_why +
                      "); EGL_CUDA_DEVICE_NV names CUDA device 0, so the buffer registration decides"};
  return {false, "the GL context is not on the CUDA device: " + gl_devices_why +
                     ", and its EGL device does not name a CUDA device (EGL_NV_device_cuda)"};
}

} // namespace redraw::test
