#pragma once
/// Whether a run holds training that no model file has: a counter bumped by everything that
/// changes the run (training, a schedule change, a reset, a branch, a line switch), the count when
/// the run was opened or last saved, and that model file. Owned by the run (LiveRun); training
/// thread only.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace redraw {

class RunChanges {
public:
  /// A run just opened, from `model_path` ("" for an image): nothing unsaved.
  explicit RunChanges(std::string model_path = {}) : m_model_path(std::move(model_path)) {}
  /// Something changed the run.
  void changed() { ++m_count; }
  /// The run was saved to `path`: what it holds now is saved.
  void saved(std::string path) {
    m_saved = m_count;
    m_model_path = std::move(path);
  }
  /// Changed since it was opened or saved, with something to lose: a run at `step` past 0, or one
  /// with more than one run-tree line (an untrained run at step 0 has nothing to lose).
  bool unsaved(int64_t step, size_t lines) const { return m_count != m_saved && (step > 0 || lines > 1); }
  /// The .redraw the run was opened from or last saved to ("" = none).
  const std::string& model_path() const { return m_model_path; }

private:
  uint64_t m_count = 0, m_saved = 0;
  std::string m_model_path;
};

} // namespace redraw
