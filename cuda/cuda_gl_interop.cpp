#include "cuda/cuda_gl_interop.h"

#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"

// The toolkit's header pulls in <GL/gl.h> for GLuint; it is the only GL type used here.
#include <cuda_gl_interop.h>

#include <mutex>
#include <utility>

namespace redraw {

bool cuda_gl_interop_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why) *why = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device";
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

// ---- CudaFrameRing ----------------------------------------------------------------------------

struct CudaFrameRing::Impl {
  struct Slot {
    cuda::DeviceBuffer<uint8_t> bytes;
    int32_t w = 0, h = 0;
    int64_t step = -1;
  };
  std::mutex mutex;
  int device = 0;
  cudaStream_t stream = nullptr; ///< allocations only; frames are written on the backend's stream
  std::unique_ptr<cuda::DevicePool> pool;
  Slot slots[3];
  int writing = 0, ready = 1, reading = 2; ///< a permutation of {0, 1, 2}
  bool fresh = false;                      ///< `ready` holds a frame not yet taken
};

CudaFrameRing::CudaFrameRing() : m_impl(std::make_unique<Impl>()) {
  CUDA_CHECK(cudaGetDevice(&m_impl->device));
  CUDA_CHECK(cudaStreamCreateWithFlags(&m_impl->stream, cudaStreamNonBlocking));
  m_impl->pool = std::make_unique<cuda::DevicePool>(m_impl->device);
}

CudaFrameRing::~CudaFrameRing() {
  for (auto& s : m_impl->slots)
    s.bytes = {};
  if (m_impl->stream) {
    (void)cudaStreamSynchronize(m_impl->stream);
    (void)cudaStreamDestroy(m_impl->stream);
  }
}

void* CudaFrameRing::begin_write(int32_t w, int32_t h) {
  Impl::Slot* slot;
  {
    std::lock_guard lock(m_impl->mutex);
    slot = &m_impl->slots[m_impl->writing];
  }
  const size_t bytes = size_t(w) * size_t(h) * 4;
  if (slot->bytes.size() != bytes) {
    slot->bytes = {};
    slot->bytes = cuda::DeviceBuffer<uint8_t>(*m_impl->pool, m_impl->stream, bytes, "preview frame");
    // The frame is written on another stream: the allocation must be complete first.
    CUDA_CHECK(cudaStreamSynchronize(m_impl->stream));
  }
  slot->w = w;
  slot->h = h;
  return slot->bytes.data();
}

void CudaFrameRing::end_write(int64_t step) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->slots[m_impl->writing].step = step;
  std::swap(m_impl->writing, m_impl->ready);
  m_impl->fresh = true;
}

bool CudaFrameRing::begin_read(const void*& rgba_device, int32_t& w, int32_t& h, int64_t& step) {
  std::lock_guard lock(m_impl->mutex);
  if (!m_impl->fresh) return false;
  std::swap(m_impl->reading, m_impl->ready);
  m_impl->fresh = false;
  const Impl::Slot& s = m_impl->slots[m_impl->reading];
  rgba_device = s.bytes.data();
  w = s.w;
  h = s.h;
  step = s.step;
  return rgba_device != nullptr;
}

void CudaFrameRing::end_read() {}

// ---- CudaGlPixelBuffer ------------------------------------------------------------------------

CudaGlPixelBuffer::CudaGlPixelBuffer(uint32_t gl_buffer, size_t bytes) : m_bytes(bytes) {
  cudaGraphicsResource_t res = nullptr;
  CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&res, GLuint(gl_buffer), cudaGraphicsRegisterFlagsWriteDiscard));
  m_resource = res;
}

CudaGlPixelBuffer::~CudaGlPixelBuffer() {
  if (m_resource) (void)cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(m_resource));
}

void CudaGlPixelBuffer::copy_from_device(const void* src_device, size_t bytes) {
  if (bytes > m_bytes)
    throw BackendError("cuda-gl interop: frame of " + std::to_string(bytes) +
                       " bytes does not fit the pixel buffer of " + std::to_string(m_bytes));
  auto res = static_cast<cudaGraphicsResource_t>(m_resource);
  CUDA_CHECK(cudaGraphicsMapResources(1, &res, nullptr));
  void* dst = nullptr;
  size_t mapped = 0;
  try {
    CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&dst, &mapped, res));
    CUDA_CHECK(cudaMemcpy(dst, src_device, bytes, cudaMemcpyDeviceToDevice));
  } catch (...) {
    (void)cudaGraphicsUnmapResources(1, &res, nullptr);
    throw;
  }
  CUDA_CHECK(cudaGraphicsUnmapResources(1, &res, nullptr));
}

} // namespace redraw
