#include "cuda/op_timer.h"

#include "cuda/cuda_check.h"

namespace redraw::cuda {

OpTimer::~OpTimer() {
  for (cudaEvent_t e : m_events) (void)cudaEventDestroy(e);
}

cudaEvent_t OpTimer::event(size_t i) {
  while (m_events.size() <= i) {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreate(&e));
    m_events.push_back(e);
  }
  return m_events[i];
}

void OpTimer::begin(cudaStream_t stream, const char* name) {
  (void)event(m_used + 1); // create the end event now: end() runs in destructors and must not throw
  CUDA_CHECK(cudaEventRecord(event(m_used), stream));
  m_names.push_back(name);
  ++m_used;
}

void OpTimer::end(cudaStream_t stream) {
  // Called from a destructor: an error here is dropped rather than thrown.
  if (m_used >= m_events.size() || cudaEventRecord(m_events[m_used], stream) != cudaSuccess) (void)cudaGetLastError();
  ++m_used;
}

double OpTimer::kernel_ms() const {
  double total = 0;
  for (size_t i = 0; i + 1 < m_used; i += 2) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, m_events[i], m_events[i + 1]));
    total += ms;
  }
  return total;
}

double OpTimer::span_ms() const {
  if (m_used < 2) return 0;
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, m_events[0], m_events[m_used - 1]));
  return ms;
}

std::vector<std::pair<std::string, double>> OpTimer::per_op_ms() const {
  std::vector<std::pair<std::string, double>> out;
  for (size_t i = 0; i + 1 < m_used; i += 2) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, m_events[i], m_events[i + 1]));
    const std::string name = m_names[i / 2];
    auto it = out.begin();
    while (it != out.end() && it->first != name) ++it;
    if (it == out.end())
      out.emplace_back(name, ms);
    else
      it->second += ms;
  }
  return out;
}

} // namespace redraw::cuda
