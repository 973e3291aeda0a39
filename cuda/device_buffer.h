#pragma once
/// Device memory for the CUDA backend (cuda/ only).
/// - DevicePool: a stream-ordered memory pool (cudaMemPoolCreate) whose release threshold is
///   UINT64_MAX, so freed blocks stay in the pool and re-allocating a same-shaped network is free.
///   DevicePool::shared(device) gives every backend and preview ring of a device the same pool, so
///   memory one run gave back is there for the next (cuda/memory_plan.h counts it as available);
///   trim() hands the cached part back to the driver when a backend goes away.
/// - DeviceBuffer<T>: the only owner of device memory. Move-only ("don't permit copy assignment to
///   prevent performance accidents", tiny-cuda-nn's GPUMemory<T>); allocates count * sizeof(T) bytes
///   from the pool on a stream and frees them on the same stream; the destructor never throws.
/// - Out of memory throws BackendError naming what was being allocated, its size, and the device's
///   free and total memory.
#include "cuda/cuda_check.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace redraw::cuda {

class DevicePool {
public:
  /// Creates a pool on `device`. Throws BackendError.
  explicit DevicePool(int device);
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;
  cudaMemPool_t get() const { return m_pool; }
  /// Bytes the pool holds from the device (in use or cached).
  uint64_t reserved_bytes() const;
  /// Bytes of those in live allocations.
  uint64_t used_bytes() const;
  /// Returns cached (unused) memory to the driver; never throws.
  void trim() noexcept;
  /// The process's pool for `device`, created on first use and kept while anyone holds it.
  /// Thread-safe. Throws BackendError.
  static std::shared_ptr<DevicePool> shared(int device);

private:
  cudaMemPool_t m_pool = nullptr;
};

/// Allocates `bytes` from the pool on `stream`; BackendError names `what` and the sizes on failure.
void* pool_allocate(const DevicePool& pool, cudaStream_t stream, size_t bytes, const char* what);
/// Returns memory to the pool on `stream`; never throws (errors are dropped: this runs in destructors).
void pool_free(void* ptr, cudaStream_t stream) noexcept;
/// "123.4 MiB".
std::string format_mib(uint64_t bytes);

template <class T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DevicePool& pool, cudaStream_t stream, size_t count, const char* what)
      : m_count(count), m_stream(stream) {
    if (count > 0) m_data = static_cast<T*>(pool_allocate(pool, stream, count * sizeof(T), what));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : m_data(std::exchange(o.m_data, nullptr)), m_count(std::exchange(o.m_count, 0)), m_stream(o.m_stream) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      m_data = std::exchange(o.m_data, nullptr);
      m_count = std::exchange(o.m_count, 0);
      m_stream = o.m_stream;
    }
    return *this;
  }

  T* data() { return m_data; }
  const T* data() const { return m_data; }
  size_t size() const { return m_count; }
  size_t bytes() const { return m_count * sizeof(T); }
  bool empty() const { return m_count == 0; }

  /// Asynchronous copies on the buffer's stream; `count` elements starting at element `offset`.
  void upload(const T* host, size_t count, size_t offset = 0) {
    if (count) CUDA_CHECK(cudaMemcpyAsync(m_data + offset, host, count * sizeof(T), cudaMemcpyHostToDevice, m_stream));
  }
  void download(T* host, size_t count, size_t offset = 0) const {
    if (count) CUDA_CHECK(cudaMemcpyAsync(host, m_data + offset, count * sizeof(T), cudaMemcpyDeviceToHost, m_stream));
  }
  void zero() {
    if (m_count) CUDA_CHECK(cudaMemsetAsync(m_data, 0, bytes(), m_stream));
  }

private:
  void release() noexcept {
    if (m_data) pool_free(m_data, m_stream);
    m_data = nullptr;
    m_count = 0;
  }
  T* m_data = nullptr;
  size_t m_count = 0;
  cudaStream_t m_stream = nullptr;
};

} // namespace redraw::cuda
