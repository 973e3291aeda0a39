#pragma once
/// CUDA-OpenGL interop for the live preview: GPU -> GL with no host round trip.
/// - CudaFrameRing: three device RGBA8 frames. The training thread (which owns the CudaBackend)
///   renders into a free slot and publishes it; the GUI thread takes the newest published slot.
///   The writer never touches the slot being read, so neither thread waits on the other.
/// - CudaGlPixelBuffer: a GL pixel-unpack buffer registered with CUDA once
///   (cudaGraphicsGLRegisterBuffer). copy_from_device() maps it, copies device-to-device and
///   unmaps; the GUI then calls glTexSubImage2D with the buffer bound (ui/preview_texture_gl.cpp).
/// - No GL or CUDA types in this header (STYLE 9): GL names are plain uint32_t.
/// - Errors throw BackendError (file, line, expression), so the GUI can fall back to the host path.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace redraw {

/// True when the CUDA runtime sees a device that can share buffers with GL; `why` says why not.
bool cuda_gl_interop_available(std::string* why = nullptr);

class CudaFrameRing {
public:
  CudaFrameRing();
  ~CudaFrameRing(); ///< frees the device frames; never throws
  CudaFrameRing(const CudaFrameRing&) = delete;
  CudaFrameRing& operator=(const CudaFrameRing&) = delete;

  /// Training thread: a device buffer of w * h * 4 bytes that no reader holds. Reallocates the
  /// slot only when the size changed. Call end_write() once the frame is complete on the device.
  void* begin_write(int32_t w, int32_t h);
  /// Training thread: publishes the frame written since begin_write(), tagged with its step.
  void end_write(int64_t step);

  /// GUI thread: the newest published frame not yet taken; false when there is none. The frame
  /// stays valid until end_read().
  bool begin_read(const void*& rgba_device, int32_t& w, int32_t& h, int64_t& step);
  void end_read();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

class CudaGlPixelBuffer {
public:
  /// GUI thread, GL context current: registers the GL buffer object `gl_buffer` (already
  /// allocated with glBufferData to at least `bytes`) with CUDA for write-discard access.
  CudaGlPixelBuffer(uint32_t gl_buffer, size_t bytes);
  ~CudaGlPixelBuffer(); ///< unregisters; never throws
  CudaGlPixelBuffer(const CudaGlPixelBuffer&) = delete;
  CudaGlPixelBuffer& operator=(const CudaGlPixelBuffer&) = delete;

  /// GUI thread: map, copy `bytes` from device memory into the buffer, unmap. Synchronous.
  void copy_from_device(const void* src_device, size_t bytes);
  size_t capacity() const { return m_bytes; }

private:
  void* m_resource = nullptr; ///< cudaGraphicsResource_t
  size_t m_bytes = 0;
};

} // namespace redraw
