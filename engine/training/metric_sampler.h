#pragma once
/// The measurements behind a run's metrics rows.
/// - The fixed pixel sample (engine/pixel_sample.h: stratified_pixel_sample(width, height,
///   sample_pixels, 0), the same pixels for every seed): a sampled row is one forward pass over it,
///   so it costs the same at any image size. An image no larger than the sample is measured whole,
///   exactly, through the backend.
/// - A row's PSNR is over the clamped prediction (psnr_db of the mean squared error, values in
///   [0, 1]); its loss is the last loss a step reported for the row's step count, or, when none
///   did, the current network's: over the sample for a sampled row, over every pixel for an exact one.
/// - Sums run in float64 in pixel order, so a row has the same bits at any thread count.
/// - The latest step's loss and learning rate, as the trainer notes them, and the wall time of
///   the sampled rows (part of the training time).
/// - Threading: the trainer's thread. Holds references to the backend and the dataset, which
///   must outlive it.
#include "engine/backend.h"
#include "engine/dataset.h"
#include "engine/metrics.h"
#include "engine/frames/renderer.h"

#include <optional>
#include <span>
#include <vector>

namespace redraw {

/// Mean loss and mean clamped squared error over some pixels.
struct ErrorMeans {
  double loss = 0, mse = 0;
};

/// Loss and clamped squared error of predictions against targets, summed in float64 in order.
struct ErrorSums {
  double loss = 0, se = 0;
  /// Adds n values (pred[e] against target[e]); `p` is the run's loss.
  void add(const LossParams& p, const float* pred, const float* target, int64_t n);
  /// The means over `count` values (at least 1 counted).
  ErrorMeans means(int64_t count) const;
};

class MetricSampler {
public:
  /// Draws the sample of `sample_pixels` pixels (metric_sample_pixels of the batch) from `data`.
  MetricSampler(Backend& backend, const Dataset& data, const LossParams& loss, int64_t sample_pixels);

  /// The sample is every pixel: rows are exact.
  bool whole() const { return m_whole; }
  /// Pixels in the sample (0 when it is whole: rows go through the backend).
  int64_t sample_size() const { return int64_t(m_coords.size() / 2); }
  /// The sample's pixel coordinates (n x 2) and targets (n x channels), in ascending pixel order.
  const std::vector<float>& sample_coords() const { return m_coords; }
  const std::vector<float>& sample_targets() const { return m_targets; }

  /// Mean loss and clamped MSE of the backend's bound weights on the sample. Blocks.
  ErrorMeans sample_error();
  /// The mean loss of the backend's weights over every pixel (a forward pass of `model` with
  /// `fourier_b`, in chunks). Blocks.
  double dataset_loss(const ModelSpec& model, std::span<const float> fourier_b);
  /// Renders `net` at the training size as an 8-bit PNG into `sink` (render_png_tiles) and returns
  /// the error of the same predictions over every pixel, summed band by band in pixel order.
  ErrorMeans png_error(const NetworkView& net, const ByteSink& sink);
  /// The row of the network after `step` steps, its lr and seconds left to the caller. Sampled
  /// unless `exact`, the sample is whole, or `given` (the whole image's error, measured elsewhere)
  /// is set. The loss is the noted one when it belongs to `step`, else measured (and noted).
  /// A sampled row's wall time counts in row_seconds(). Blocks.
  MetricsRow measure(int64_t step, bool exact, const ErrorMeans* given, const ModelSpec& model,
                     std::span<const float> fourier_b);

  /// A loss report: the loss of the network after s.step + 1 steps (NaN included).
  void note_loss(const LossSample& s) { m_loss = s.loss, m_loss_step = s.step + 1; }
  /// After a reset, a rollback or a resume: the loss of the network after `step` steps, where a
  /// NaN loss (or step -1) means none is known.
  void recall_loss(double loss, int64_t step);
  double last_loss() const { return m_loss; }
  /// The learning rate of the step that reached `step` steps.
  void note_lr(int64_t step, double lr) { m_lr = lr, m_lr_step = step; }
  void forget_lr() { m_lr_step = -1; }
  double last_lr() const { return m_lr; }
  /// The noted learning rate when it is the one of the step that reached `step` (> 0).
  std::optional<double> lr_reaching(int64_t step) const;

  /// Wall seconds of the sampled rows measured so far, and their count.
  double row_seconds() const { return m_row_seconds; }
  int64_t rows() const { return m_rows; }

private:
  Backend& m_backend;
  const Dataset& m_data;
  LossParams m_loss_params;
  bool m_whole = false;
  std::vector<float> m_coords, m_targets;
  std::vector<float> m_pred; ///< the sample's prediction, reused
  double m_loss = 0;
  int64_t m_loss_step = -1; ///< the step count m_loss belongs to (-1: none)
  double m_lr = 0;
  int64_t m_lr_step = -1;
  double m_row_seconds = 0;
  int64_t m_rows = 0;
};

} // namespace redraw
