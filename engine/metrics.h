#pragma once
/// One row of a run's metrics history (metrics.csv: step,loss,psnr_db,lr,seconds,event), and the
/// record of a recovery from a divergence.
#include <cstdint>
#include <string>

namespace redraw {

struct MetricsRow {
  int64_t step = 0;   ///< steps completed when measured
  double loss = 0;    ///< training loss of the step that ended here
  double psnr_db = 0; ///< PSNR of the clamped reconstruction (+inf: exact fit), see psnr_exact
  double lr = 0;      ///< learning rate used by that step
  double seconds = 0; ///< training wall time so far, across resumes
  /// psnr_db is over every pixel of the training image (true), or estimated from the run's fixed
  /// pixel sample (false: engine/pixel_sample.h; "sampled" in metrics.csv).
  bool psnr_exact = false;
};

/// "exact" or "sampled": how a row's PSNR was measured (metrics.csv's psnr_from column).
inline const char* psnr_source(const MetricsRow& r) { return r.psnr_exact ? "exact" : "sampled"; }

/// A divergence the trainer recovered from: it went back to its last good state and lowered the
/// learning rate (Trainer, "Divergence" in trainer.h).
struct RecoveryEvent {
  int64_t step = 0;           ///< step at which the divergence was found
  int64_t rolled_back_to = 0; ///< step of the good state the run continued from
  double lr_scale = 1;        ///< learning-rate multiplier from then on (product of every recovery's factor)
  double seconds = 0;         ///< training time when it was found
  int32_t attempt = 0;        ///< 1 for the first recovery of the run, 2 for the second, ...
  std::string reason;         ///< what was wrong, e.g. "loss nan" or "12 weights not finite"
};

} // namespace redraw
