#pragma once
/// Device-side preview frames and their hand-over to OpenGL, as interfaces (docs/contributing.md, 7).
/// - A GPU backend that can draw its picture straight into device memory exposes a
///   DeviceRenderer through Backend::device_renderer(); the CPU backend has none.
/// - DeviceInterop is implemented by the CUDA module (cuda/cuda_gl_interop) and handed to the GUI
///   by app/; ui/ sees only this header, so it never includes cuda/ and builds the same way with
///   or without the CUDA toolkit.
/// - Device pointers are opaque `void*` handles here: only the module that made them reads them.
/// - No GL or CUDA types: GL buffer names are plain uint32_t.
#include "engine/frame_ring_state.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace redraw {

/// Renders the bound network's current picture into device memory.
class DeviceRenderer {
public:
  virtual ~DeviceRenderer() = default;
  /// w x h RGBA8 pixels (row 0 at the top) into `dst_device`, a device buffer of w * h * 4 bytes
  /// from the same module. Returns once the image is complete on the device. Call from the thread
  /// that owns the backend. Throws BackendError / ConfigError.
  virtual void render_rgba8_device(int32_t w, int32_t h, void* dst_device) = 0;
};

/// Three device RGBA8 frames passed from the training thread (writer) to the GUI thread (reader)
/// without either waiting on the other; the slot bookkeeping is FrameRingState.
class DeviceFrameRing {
public:
  virtual ~DeviceFrameRing() = default;
  /// Training thread: a device buffer of w * h * 4 bytes that no reader holds.
  virtual void* begin_write(int32_t w, int32_t h) = 0;
  /// Training thread: publishes the frame written since begin_write(), complete on the device.
  virtual void end_write(int64_t step) = 0;
  /// GUI thread: the newest published frame not yet taken; false when there is none. The frame
  /// stays valid and untouched by the writer until end_read().
  virtual bool begin_read(const void*& rgba_device, int32_t& w, int32_t& h, int64_t& step) = 0;
  /// GUI thread: every device read of the frame from begin_read() has completed.
  virtual void end_read() = 0;
};

/// A GL pixel-unpack buffer registered with the device once.
class DeviceGlBuffer {
public:
  virtual ~DeviceGlBuffer() = default; ///< unregisters; never throws
  /// GUI thread, GL context current: copies `bytes` from device memory into the buffer and returns
  /// once the copy is complete (the source frame may be reused at once). BackendError on failure.
  virtual void copy_from_device(const void* src_device, size_t bytes) = 0;
  virtual size_t capacity() const = 0;
};

/// What the GUI needs from a GPU module for its live preview.
class DeviceInterop {
public:
  virtual ~DeviceInterop() = default;
  /// GUI thread, GL context current: true when the device that trains can also share buffers
  /// with the GL context's device (false on Mesa, or when GL runs on another GPU); `why` says why.
  virtual bool gl_available(std::string* why) = 0;
  /// A frame ring on the training device. BackendError when the device cannot be used.
  virtual std::unique_ptr<DeviceFrameRing> make_frame_ring() = 0;
  /// GUI thread, GL context current: registers `gl_buffer` (already sized to at least `bytes`
  /// with glBufferData) for write-discard access. BackendError when registration fails.
  virtual std::unique_ptr<DeviceGlBuffer> register_gl_buffer(uint32_t gl_buffer, size_t bytes) = 0;
};

} // namespace redraw
