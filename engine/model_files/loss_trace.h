#pragma once
/// The loss of every training step of a run (the live loss curve), where the backend reports it
/// without waiting (the CPU backend computes it in every step anyway). Value i is the loss of the
/// step that took the run to `first_count + i` completed steps.
/// - Steps stay in order: recording a count at or before the end (after a recovery went back, or a
///   branch) drops the values from it on first; a gap (steps not reported) starts the trace again.
/// - 4 bytes a step. Travels in checkpoints (engine/model_files/curves_chunk.h).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace redraw {

struct LossTrace {
  int64_t first_count = 1; ///< the step count of loss[0]
  std::vector<float> loss;

  int64_t end_count() const { return first_count + int64_t(loss.size()); }
  bool empty() const { return loss.empty(); }
  void clear() { loss.clear(); }
  /// The loss of the step that reached `count` completed steps (count >= 1).
  void record(int64_t count, float value) {
    if (loss.empty() || count > end_count()) {
      loss.clear();
      first_count = count;
    } else if (count < end_count()) {
      truncate_after(count - 1);
      if (loss.empty()) first_count = count;
    }
    loss.push_back(value);
  }
  /// Keeps the values of counts <= count.
  void truncate_after(int64_t count) {
    if (count < first_count) loss.clear();
    else if (count < end_count()) loss.resize(size_t(count - first_count + 1));
  }
};

} // namespace redraw
