#pragma once
/// CUDA-OpenGL interop for the live preview: GPU -> GL with no host round trip. Implements
/// engine/device_interop.h; the GUI reaches it only through that interface, handed over by app/.
/// - CudaFrameRing: three device RGBA8 frames (slot logic in engine/frame_ring_state.h). The
///   training thread renders into a free slot and publishes it; the GUI thread takes the newest.
/// - CudaGlBuffer: a GL pixel-unpack buffer registered with CUDA once
///   (cudaGraphicsGLRegisterBuffer). copy_from_device() maps it on its own stream, copies
///   device-to-device, waits for the copy, and unmaps, so the frame it read is free on return.
/// - gl_available() asks cudaGLGetDevices which CUDA devices drive the current GL context: on a
///   laptop whose GL runs on another GPU, or on Mesa, it says so instead of failing at the first
///   registration.
/// - No GL or CUDA types in this header (docs/contributing.md, 7). Errors throw BackendError (file, line,
///   expression), so the GUI can fall back to the host path.
#include "engine/device_interop.h"

#include <memory>
#include <string>

namespace redraw {

/// True when the current GL context runs on CUDA device `device`; `why` says why not. Needs a
/// current GL context; never throws.
bool cuda_gl_context_on_device(int device, std::string* why);

/// The CUDA module's DeviceInterop on device 0.
std::unique_ptr<DeviceInterop> make_cuda_interop();

} // namespace redraw
