#include "cuda/parameter_copy.h"

#include <cstring>
#include <string>

namespace redraw::cuda {

namespace {
/// More copies in flight than this is a caller that never finishes them.
constexpr size_t k_max_slots = 8;
} // namespace

struct ParameterCopier::Slot {
  int64_t ticket = -1; ///< -1: free
  bool used = false;   ///< a download was enqueued from it (the next staging copy waits for it)
  DeviceBuffer<float> staging;
  float* host = nullptr; ///< pinned, staging.size() floats
  cudaEvent_t staged = nullptr, done = nullptr;
  std::vector<size_t> counts; ///< per source of the copy in flight

  Slot(const DevicePool& pool, cudaStream_t stream, size_t floats)
      : staging(pool, stream, floats, "timelapse frame staging") {
    CUDA_CHECK(cudaEventCreateWithFlags(&staged, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    if (floats) CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host), floats * sizeof(float)));
  }
  ~Slot() {
    if (host) (void)cudaFreeHost(host);
    if (staged) (void)cudaEventDestroy(staged);
    if (done) (void)cudaEventDestroy(done);
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
};

ParameterCopier::ParameterCopier() = default;
ParameterCopier::~ParameterCopier() { reset(); }

void ParameterCopier::reset() noexcept {
  if (m_copy_stream) (void)cudaStreamSynchronize(m_copy_stream);
  // Staging buffers go back to the pool on the compute stream they were allocated on; nothing reads
  // them any more (the downloads are done).
  m_slots.clear();
  if (m_copy_stream) (void)cudaStreamDestroy(m_copy_stream);
  m_copy_stream = nullptr;
  (void)cudaGetLastError();
}

void ParameterCopier::reserve(const DevicePool& pool, cudaStream_t stream, size_t floats, int slots) {
  if (!m_copy_stream) CUDA_CHECK(cudaStreamCreateWithFlags(&m_copy_stream, cudaStreamNonBlocking));
  for (int i = 0; i < slots; ++i) m_slots.push_back(std::make_unique<Slot>(pool, stream, floats));
}

ParameterCopier::Slot* ParameterCopier::slot_for(int64_t ticket) {
  for (auto& s : m_slots)
    if (s->ticket == ticket) return s.get();
  return nullptr;
}

int ParameterCopier::pending() const {
  int n = 0;
  for (const auto& s : m_slots) n += s->ticket >= 0 ? 1 : 0;
  return n;
}

void ParameterCopier::begin(int64_t ticket, const DevicePool& pool, cudaStream_t stream,
                            const std::vector<CopySource>& sources) {
  if (ticket < 0 || slot_for(ticket)) throw BackendError("parameter copy: ticket " + std::to_string(ticket) + " is in use");
  size_t total = 0;
  for (const auto& src : sources) total += src.count;
  Slot* slot = nullptr;
  for (auto& s : m_slots)
    if (s->ticket < 0 && s->staging.size() >= total) {
      slot = s.get();
      break;
    }
  if (!slot) {
    if (m_slots.size() >= k_max_slots)
      throw BackendError("parameter copy: " + std::to_string(m_slots.size()) + " copies are in flight already");
    reserve(pool, stream, total, 1);
    slot = m_slots.back().get();
  }
  // A dropped copy's download may still read the staging buffer: the device waits for it.
  if (slot->used) CUDA_CHECK(cudaStreamWaitEvent(stream, slot->done, 0));
  size_t offset = 0;
  slot->counts.clear();
  for (const auto& src : sources) {
    if (src.count)
      CUDA_CHECK(cudaMemcpyAsync(slot->staging.data() + offset, src.data, src.count * sizeof(float),
                                 cudaMemcpyDeviceToDevice, stream));
    offset += src.count;
    slot->counts.push_back(src.count);
  }
  CUDA_CHECK(cudaEventRecord(slot->staged, stream));
  CUDA_CHECK(cudaStreamWaitEvent(m_copy_stream, slot->staged, 0));
  if (total)
    CUDA_CHECK(cudaMemcpyAsync(slot->host, slot->staging.data(), total * sizeof(float), cudaMemcpyDeviceToHost,
                               m_copy_stream));
  CUDA_CHECK(cudaEventRecord(slot->done, m_copy_stream));
  slot->ticket = ticket;
  slot->used = true;
}

bool ParameterCopier::finish(int64_t ticket, bool wait, const std::vector<std::vector<float>*>& outs) {
  Slot* slot = slot_for(ticket);
  if (!slot || ticket < 0) throw BackendError("parameter copy: ticket " + std::to_string(ticket) + " is not in flight");
  if (wait) {
    CUDA_CHECK(cudaEventSynchronize(slot->done));
  } else {
    const cudaError_t e = cudaEventQuery(slot->done);
    if (e == cudaErrorNotReady) return false;
    if (e != cudaSuccess) throw_cuda_error(e, "cudaEventQuery(slot->done)", __FILE__, __LINE__);
  }
  size_t offset = 0;
  for (size_t i = 0; i < slot->counts.size(); ++i) {
    const size_t n = slot->counts[i];
    if (i < outs.size() && outs[i]) {
      outs[i]->resize(n);
      if (n) std::memcpy(outs[i]->data(), slot->host + offset, n * sizeof(float));
    }
    offset += n;
  }
  slot->ticket = -1;
  return true;
}

void ParameterCopier::drop(int64_t ticket) {
  if (ticket < 0) return;
  if (Slot* slot = slot_for(ticket)) slot->ticket = -1;
}

} // namespace redraw::cuda
