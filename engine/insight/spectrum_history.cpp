#include "engine/insight/spectrum_history.h"

#include <algorithm>

namespace redraw {

int64_t SpectrumHistory::cadence(int64_t metrics_every, int64_t total_steps) {
  const int64_t m = std::max<int64_t>(1, metrics_every);
  const int64_t wanted = std::max<int64_t>(1, (total_steps + k_max_rows - 1) / k_max_rows);
  return (wanted + m - 1) / m * m;
}

void SpectrumHistory::record(Trainer& trainer) {
  const Image& target = trainer.dataset().image;
  int32_t w = 0, h = 0;
  spectrum_view_size(target.width, target.height, w, h);
  if (m_view_target.width != w || m_view_target.height != h) m_view_target = spectrum_view(target);
  record(trainer.current_step(), m_view_target, trainer.render(w, h));
}

void SpectrumHistory::record(int64_t step, const Image& target, const Image& picture) {
  if (!m_analyzer || m_analyzer->width() != target.width || m_analyzer->height() != target.height)
    m_analyzer = std::make_unique<SpectrumAnalyzer>(target.width, target.height, m_bands);
  while (!m_rows.empty() && m_rows.back().step >= step)
    m_rows.pop_back();
  m_rows.push_back(SpectrumRow{step, m_analyzer->error_band_power(target, picture)});
}

} // namespace redraw
