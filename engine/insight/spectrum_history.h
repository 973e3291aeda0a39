#pragma once
/// The error's band powers recorded along a run (spectrum.csv, `redraw train`).
/// - record() renders the trainer's network at the spectrum view's size (at most
///   k_spectrum_view_side a side, engine/insight/spectrum.h) and appends the error's band powers against
///   the training image resampled to the same view, so a row costs the same at any image size.
/// - Rows stay in step order: a row at or after the current step (left by a recovery that went
///   back, or a branch) is dropped before the new one is added.
/// - Threading: the trainer's thread.
#include "engine/insight/spectrum.h"
#include "engine/training/trainer.h"

#include <memory>

namespace redraw {

class SpectrumHistory {
public:
  explicit SpectrumHistory(int32_t bands = k_default_spectrum_bands) : m_bands(bands) {}

  /// Every how many steps to record for a run of `total_steps` measured every `metrics_every`:
  /// a multiple of metrics_every giving at most about k_max_rows rows, so the added forward passes
  /// stay a small share of the training.
  static int64_t cadence(int64_t metrics_every, int64_t total_steps);
  static constexpr int64_t k_max_rows = 200;

  /// Appends the band powers of the trainer's current network (after dropping rows at or past its step).
  void record(Trainer& trainer);
  /// Appends the band powers of `picture` (the network at step `step`, clamped to [0, 1]) against
  /// `target`; both the same size (the view's, or any other).
  void record(int64_t step, const Image& target, const Image& picture);
  const std::vector<SpectrumRow>& rows() const { return m_rows; }
  int32_t bands() const { return m_bands; }
  std::string csv() const { return spectrum_csv(m_rows, m_bands); }

private:
  int32_t m_bands;
  std::unique_ptr<SpectrumAnalyzer> m_analyzer; ///< made at the first record, for the training size
  std::vector<SpectrumRow> m_rows;
  Image m_view_target; ///< the training image at the view's size, made at the first record(Trainer&)
};

} // namespace redraw
