#pragma once
/// Brackets each operation of an eagerly enqueued step with a pair of CUDA events, for the
/// benchmark's launch-gap figure: kernel time = sum of the brackets, gap = the span from the first
/// bracket to the last minus that sum. Never used while a graph is being captured.
#include <cuda_runtime_api.h>

#include <string>
#include <utility>
#include <vector>

namespace redraw::cuda {

class OpTimer {
public:
  OpTimer() = default;
  ~OpTimer();
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

  void begin(cudaStream_t stream, const char* name);
  void end(cudaStream_t stream);
  /// Forgets recorded brackets (events are kept for reuse).
  void clear() { m_used = 0; m_names.clear(); }
  /// After the stream has been synchronised: the brackets' total and the span they cover, in ms.
  double kernel_ms() const;
  double span_ms() const;
  /// Per-operation totals in ms, by name, in first-seen order.
  std::vector<std::pair<std::string, double>> per_op_ms() const;

private:
  cudaEvent_t event(size_t i);
  std::vector<cudaEvent_t> m_events;
  std::vector<const char*> m_names;
  size_t m_used = 0;
};

/// RAII bracket; does nothing when timer is null.
class TimedOp {
public:
  TimedOp(OpTimer* timer, cudaStream_t stream, const char* name) : m_timer(timer), m_stream(stream) {
    if (m_timer) m_timer->begin(stream, name);
  }
  ~TimedOp() {
    if (m_timer) m_timer->end(m_stream);
  }
  TimedOp(const TimedOp&) = delete;
  TimedOp& operator=(const TimedOp&) = delete;

private:
  OpTimer* m_timer;
  cudaStream_t m_stream;
};

} // namespace redraw::cuda
