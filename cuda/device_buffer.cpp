#include "cuda/device_buffer.h"

#include <cstdio>
#include <map>
#include <mutex>

namespace redraw::cuda {

DevicePool::DevicePool(int device) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  CUDA_CHECK(cudaMemPoolCreate(&m_pool, &props));
  // Keep freed memory in the pool: a step, a render or a re-configure never goes back to the driver.
  uint64_t threshold = UINT64_MAX;
  CUDA_CHECK(cudaMemPoolSetAttribute(m_pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

DevicePool::~DevicePool() {
  if (m_pool) (void)cudaMemPoolDestroy(m_pool);
}

uint64_t DevicePool::reserved_bytes() const {
  uint64_t v = 0;
  (void)cudaMemPoolGetAttribute(m_pool, cudaMemPoolAttrReservedMemCurrent, &v);
  return v;
}

uint64_t DevicePool::used_bytes() const {
  uint64_t v = 0;
  (void)cudaMemPoolGetAttribute(m_pool, cudaMemPoolAttrUsedMemCurrent, &v);
  return v;
}

void DevicePool::trim() noexcept {
  if (m_pool && cudaMemPoolTrimTo(m_pool, 0) != cudaSuccess) (void)cudaGetLastError();
}

std::shared_ptr<DevicePool> DevicePool::shared(int device) {
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<DevicePool>> pools;
  std::lock_guard lock(mutex);
  if (auto p = pools[device].lock()) return p;
  auto p = std::make_shared<DevicePool>(device);
  pools[device] = p;
  return p;
}

std::string format_mib(uint64_t bytes) {
  char b[48];
  std::snprintf(b, sizeof b, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
  return b;
}

void* pool_allocate(const DevicePool& pool, cudaStream_t stream, size_t bytes, const char* what) {
  void* p = nullptr;
  const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool.get(), stream);
  if (err == cudaSuccess) return p;
  (void)cudaGetLastError();
  size_t free_b = 0, total_b = 0;
  (void)cudaMemGetInfo(&free_b, &total_b);
  (void)cudaGetLastError();
  if (err == cudaErrorMemoryAllocation)
    throw BackendError(std::string("cuda: out of GPU memory allocating ") + what + " (" + std::to_string(bytes) +
                       " bytes = " + format_mib(bytes) + "); the device has " + format_mib(free_b) + " free of " +
                       format_mib(total_b) + ", the backend's pool holds " + format_mib(pool.reserved_bytes()));
  throw BackendError(std::string("cuda: allocating ") + what + " (" + format_mib(bytes) + ") failed: " +
                     cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

void pool_free(void* ptr, cudaStream_t stream) noexcept {
  if (cudaFreeAsync(ptr, stream) != cudaSuccess) (void)cudaGetLastError();
}

} // namespace redraw::cuda
