#include "ui/session/session_mailbox.h"

#include <utility>

namespace redraw {

void SessionMailbox::new_history(std::vector<MetricsRow> history, uint64_t run_id,
                                 std::shared_ptr<const Image> ground_truth) {
  std::lock_guard lock(m_mutex);
  m_back.rows = std::move(history);
  m_back.history_replaced = true;
  m_back.run_id = run_id;
  if (ground_truth) m_back.ground_truth = std::move(ground_truth);
}

void SessionMailbox::replace_history(std::vector<MetricsRow> history) {
  std::lock_guard lock(m_mutex);
  m_back.rows = std::move(history);
  m_back.history_replaced = true;
}

void SessionMailbox::publish(SessionStatus status, uint64_t run_id, std::vector<MetricsRow> rows,
                             const SessionProfile* profile) {
  std::lock_guard lock(m_mutex);
  if (profile) {
    m_back.profiles.push_back(*profile);
    if (m_back.profiles.size() > 4096) m_back.profiles.erase(m_back.profiles.begin()); // nobody takes them
  }
  status.busy = m_back.status.busy;
  status.busy_what = std::move(m_back.status.busy_what);
  status.busy_progress = m_back.status.busy_progress;
  m_back.status = std::move(status);
  m_back.run_id = run_id;
  for (auto& r : rows)
    m_back.rows.push_back(r);
}

void SessionMailbox::loss_trace(LossTrace part, bool whole) {
  std::lock_guard lock(m_mutex);
  if (whole || (m_back.loss.empty() && !m_back.loss_replaced)) {
    m_back.loss = std::move(part);
    m_back.loss_replaced = m_back.loss_replaced || whole;
    return;
  }
  for (size_t i = 0; i < part.loss.size(); ++i) // record() keeps the steps in order
    m_back.loss.record(part.first_count + int64_t(i), part.loss[i]);
}

void SessionMailbox::growth(std::vector<GrowthEvent> events) {
  std::lock_guard lock(m_mutex);
  m_back.growth = std::move(events);
  m_back.growth_changed = true;
}

void SessionMailbox::preview(std::shared_ptr<const Image> image, int64_t step) {
  std::lock_guard lock(m_mutex);
  m_back.preview = std::move(image);
  m_back.preview_step = step;
}

void SessionMailbox::device_preview(int64_t step) {
  std::lock_guard lock(m_mutex);
  m_back.device_preview = true;
  m_back.preview_step = step;
}

void SessionMailbox::frames(std::vector<MetricsRow> rows, std::vector<uint8_t> kinds, size_t bytes, size_t cap_bytes) {
  std::lock_guard lock(m_mutex);
  m_back.snapshots = std::move(rows);
  m_back.snapshot_kinds = std::move(kinds);
  m_back.snapshots_changed = true;
  m_back.snapshot_bytes = bytes;
  m_back.snapshot_cap_bytes = cap_bytes;
}

void SessionMailbox::frame(std::shared_ptr<const Image> image, int64_t step) {
  std::lock_guard lock(m_mutex);
  m_back.frame = std::move(image);
  m_back.frame_step = step;
}

void SessionMailbox::network(std::shared_ptr<const NetworkSnapshot> net) {
  std::lock_guard lock(m_mutex);
  m_back.network = std::move(net);
}

void SessionMailbox::picture(std::shared_ptr<const Image> image) {
  std::lock_guard lock(m_mutex);
  m_back.picture = std::move(image);
}

void SessionMailbox::zoom(std::shared_ptr<const Image> image, uint64_t generation, int64_t step) {
  std::lock_guard lock(m_mutex);
  m_back.zoom = std::move(image);
  m_back.zoom_generation = generation;
  m_back.zoom_step = step;
}

void SessionMailbox::append(std::vector<std::string> SessionSnapshot::*list, std::string text) {
  std::lock_guard lock(m_mutex);
  (m_back.*list).push_back(std::move(text));
}

void SessionMailbox::error(std::string what) { append(&SessionSnapshot::errors, std::move(what)); }
void SessionMailbox::notice(std::string what) { append(&SessionSnapshot::notices, std::move(what)); }
void SessionMailbox::budget_offer(BudgetOffer offer) {
  std::lock_guard lock(m_mutex);
  m_back.budget_offer = std::move(offer);
}
void SessionMailbox::saved(std::string path) { append(&SessionSnapshot::saved_models, std::move(path)); }
void SessionMailbox::save_failed(std::string path) { append(&SessionSnapshot::failed_saves, std::move(path)); }

void SessionMailbox::busy(std::string what) {
  std::lock_guard lock(m_mutex);
  m_back.status.busy = true;
  m_back.status.busy_what = std::move(what);
  m_back.status.busy_progress = 0;
}

void SessionMailbox::progress(double fraction) {
  std::lock_guard lock(m_mutex);
  m_back.status.busy_progress = fraction;
}

void SessionMailbox::idle() {
  std::lock_guard lock(m_mutex);
  m_back.status.busy = false;
  m_back.status.busy_progress = 0;
}

SessionSnapshot SessionMailbox::take() {
  std::lock_guard lock(m_mutex);
  SessionSnapshot out = std::move(m_back);
  m_back = SessionSnapshot{};
  m_back.run_id = out.run_id;
  m_back.status = out.status;
  m_back.preview_step = out.preview_step;
  m_back.frame_step = out.frame_step;
  m_back.snapshot_bytes = out.snapshot_bytes;
  m_back.snapshot_cap_bytes = out.snapshot_cap_bytes;
  return out;
}

void SessionSnapshot::take_from(SessionMailbox& box) {
  const Seen before = m_seen;
  *this = box.take();
  m_seen = {run_id, status.trainer_id, status.running, status.busy};
  m_news = preview || device_preview || ground_truth || !errors.empty() || !notices.empty() || budget_offer ||
           !saved_models.empty() ||
           !failed_saves.empty() || snapshots_changed || frame || history_replaced || zoom || m_seen != before;
}

} // namespace redraw
