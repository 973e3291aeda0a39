#include "cuda/cuda_gl_interop.h"

#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"

// The toolkit's header pulls in <GL/gl.h> for GLuint; it is the only GL type used here, and no
// GL function is called, so the module needs no GL library.
#include <cuda_gl_interop.h>

#include <mutex>

namespace redraw {

bool cuda_gl_context_on_device(int device, std::string* why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why) *why = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device";
    (void)cudaGetLastError();
    return false;
  }
  unsigned int gl_devices_count = 0;
  int gl_devices[8] = {};
  err = cudaGLGetDevices(&gl_devices_count, gl_devices, 8, cudaGLDeviceListAll);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (why)
      *why = std::string("the OpenGL context does not run on a CUDA device (cudaGLGetDevices: ") +
             cudaGetErrorName(err) + ")";
    return false;
  }
  for (unsigned int i = 0; i < gl_devices_count && i < 8; ++i)
    if (gl_devices[i] == device) return true;
  if (why)
    *why = gl_devices_count == 0 ? "the OpenGL context does not run on a CUDA device"
                                 : "the OpenGL context runs on CUDA device " + std::to_string(gl_devices[0]) +
                                       ", training on device " + std::to_string(device);
  return false;
}

namespace {

class CudaFrameRing final : public DeviceFrameRing {
public:
  CudaFrameRing() {
    CUDA_CHECK(cudaGetDevice(&m_device));
    CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    m_pool = cuda::DevicePool::shared(m_device);
  }
  ~CudaFrameRing() override {
    for (auto& s : m_slots) s.bytes = {};
    if (m_stream) {
      (void)cudaStreamSynchronize(m_stream);
      (void)cudaStreamDestroy(m_stream);
    }
  }
  CudaFrameRing(const CudaFrameRing&) = delete;
  CudaFrameRing& operator=(const CudaFrameRing&) = delete;

  void* begin_write(int32_t w, int32_t h) override {
    Slot* slot;
    {
      std::lock_guard lock(m_mutex);
      slot = &m_slots[m_state.writing()];
    }
    // The writer's slot is never the one the reader holds (FrameRingState), so it may be resized.
    const size_t bytes = size_t(w) * size_t(h) * 4;
    if (slot->bytes.size() != bytes) {
      slot->bytes = {};
      slot->bytes = cuda::DeviceBuffer<uint8_t>(*m_pool, m_stream, bytes, "preview frame");
      // The frame is written on the backend's stream: the allocation must be complete first.
      CUDA_CHECK(cudaStreamSynchronize(m_stream));
    }
    slot->w = w;
    slot->h = h;
    return slot->bytes.data();
  }

  void end_write(int64_t step) override {
    std::lock_guard lock(m_mutex);
    m_slots[m_state.writing()].step = step;
    m_state.publish();
  }

  bool begin_read(const void*& rgba_device, int32_t& w, int32_t& h, int64_t& step) override {
    std::lock_guard lock(m_mutex);
    if (!m_state.take()) return false;
    const Slot& s = m_slots[m_state.reading()];
    rgba_device = s.bytes.data();
    w = s.w;
    h = s.h;
    step = s.step;
    if (!rgba_device) {
      m_state.release();
      return false;
    }
    return true;
  }

  void end_read() override {
    std::lock_guard lock(m_mutex);
    m_state.release();
  }

private:
  struct Slot {
    cuda::DeviceBuffer<uint8_t> bytes;
    int32_t w = 0, h = 0;
    int64_t step = -1;
  };
  std::mutex m_mutex;
  int m_device = 0;
  cudaStream_t m_stream = nullptr; ///< allocations only; frames are written on the backend's stream
  std::shared_ptr<cuda::DevicePool> m_pool; ///< the device's pool, shared with the backends
  Slot m_slots[3];
  FrameRingState m_state;
};

class CudaGlBuffer final : public DeviceGlBuffer {
public:
  CudaGlBuffer(uint32_t gl_buffer, size_t bytes) : m_bytes(bytes) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    cudaGraphicsResource_t res = nullptr;
    const cudaError_t e = cudaGraphicsGLRegisterBuffer(&res, GLuint(gl_buffer), cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
      (void)cudaStreamDestroy(m_stream);
      cuda::throw_cuda_error(e, "cudaGraphicsGLRegisterBuffer(&res, gl_buffer, WriteDiscard)", __FILE__, __LINE__);
    }
    m_resource = res;
  }
  ~CudaGlBuffer() override {
    if (m_resource) (void)cudaGraphicsUnregisterResource(m_resource);
    if (m_stream) (void)cudaStreamDestroy(m_stream);
  }
  CudaGlBuffer(const CudaGlBuffer&) = delete;
  CudaGlBuffer& operator=(const CudaGlBuffer&) = delete;

  void copy_from_device(const void* src_device, size_t bytes) override {
    if (bytes > m_bytes)
      throw BackendError("cuda-gl interop: frame of " + std::to_string(bytes) +
                         " bytes does not fit the pixel buffer of " + std::to_string(m_bytes));
    cudaGraphicsResource_t res = m_resource;
    CUDA_CHECK(cudaGraphicsMapResources(1, &res, m_stream));
    void* dst = nullptr;
    size_t mapped = 0;
    try {
      CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&dst, &mapped, res));
      if (mapped < bytes)
        throw BackendError("cuda-gl interop: the mapped pixel buffer has " + std::to_string(mapped) + " bytes, not " +
                           std::to_string(bytes));
      CUDA_CHECK(cudaMemcpyAsync(dst, src_device, bytes, cudaMemcpyDeviceToDevice, m_stream));
      // The source frame goes back to the training thread when this returns (end_read), so the
      // copy must be done, not just queued: a device-to-device cudaMemcpy does not wait for it.
      CUDA_CHECK(cudaStreamSynchronize(m_stream));
    } catch (...) {
      (void)cudaGraphicsUnmapResources(1, &res, m_stream);
      throw;
    }
    CUDA_CHECK(cudaGraphicsUnmapResources(1, &res, m_stream));
  }
  size_t capacity() const override { return m_bytes; }

private:
  cudaGraphicsResource_t m_resource = nullptr;
  cudaStream_t m_stream = nullptr;
  size_t m_bytes = 0;
};

class CudaInterop final : public DeviceInterop {
public:
  bool gl_available(std::string* why) override { return cuda_gl_context_on_device(0, why); }
  std::unique_ptr<DeviceFrameRing> make_frame_ring() override {
    CUDA_CHECK(cudaSetDevice(0));
    return std::make_unique<CudaFrameRing>();
  }
  std::unique_ptr<DeviceGlBuffer> register_gl_buffer(uint32_t gl_buffer, size_t bytes) override {
    CUDA_CHECK(cudaSetDevice(0));
    return std::make_unique<CudaGlBuffer>(gl_buffer, bytes);
  }
};

} // namespace

std::unique_ptr<DeviceInterop> make_cuda_interop() { return std::make_unique<CudaInterop>(); }

} // namespace redraw
