#pragma once
/// The error's band powers recorded along a run (spectrum.csv, `redraw train`).
/// - record() renders the trainer's network at the training size (one forward pass over the image,
///   like a PSNR measurement), and appends the error's band powers (engine/spectrum.h).
/// - Rows stay in step order: a row at or after the current step (left by a recovery that went
///   back, or a branch) is dropped before the new one is added.
/// - Threading: the trainer's thread.
#include "engine/spectrum.h"
#include "engine/trainer.h"

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
  /// Appends the band powers of `picture` (the network at step `step`, clamped to [0, 1]) against `target`.
  void record(int64_t step, const Image& target, const Image& picture);
  const std::vector<SpectrumRow>& rows() const { return m_rows; }
  int32_t bands() const { return m_bands; }
  std::string csv() const { return spectrum_csv(m_rows, m_bands); }

private:
  int32_t m_bands;
  std::unique_ptr<SpectrumAnalyzer> m_analyzer; ///< made at the first record, for the training size
  std::vector<SpectrumRow> m_rows;
};

} // namespace redraw
