#pragma once
/// One row of a run's metrics history (metrics.csv: step,loss,psnr_db,lr,seconds).
#include <cstdint>

namespace redraw {

struct MetricsRow {
  int64_t step = 0;    ///< steps completed when measured
  double loss = 0;     ///< training loss of the step that ended here
  double psnr_db = 0;  ///< PSNR of the clamped reconstruction over the whole training image
  double lr = 0;       ///< learning rate used by that step
  double seconds = 0;  ///< training wall time so far, across resumes
};

} // namespace redraw
