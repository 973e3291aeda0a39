#include "engine/training/metrics_history.h"

namespace redraw {

void MetricsHistory::record(const MetricsRow& row) {
  if (!m_rows.empty() && m_rows.back().step == row.step)
    m_rows.back() = row;
  else
    m_rows.push_back(row);
}

void MetricsHistory::truncate_after(int64_t step) {
  while (!m_rows.empty() && m_rows.back().step > step)
    m_rows.pop_back();
  m_losses.truncate_after(step);
  while (!m_growth.empty() && m_growth.back().step > step)
    m_growth.pop_back();
}

void MetricsHistory::clear() {
  m_rows.clear();
  m_losses.clear();
  m_growth.clear();
}

void MetricsHistory::assign(std::vector<MetricsRow> rows, LossTrace losses, int64_t step) {
  m_rows = std::move(rows);
  m_losses = std::move(losses);
  m_losses.truncate_after(step);
}

} // namespace redraw
