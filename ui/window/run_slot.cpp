#include "ui/window/run_slot.h"

#include <cmath>
#include <filesystem>

namespace redraw {
namespace fs = std::filesystem;

std::string slot_model_path(const std::string& path, const std::string& label) {
  if (label.empty()) return path;
  const fs::path p(path);
  const std::string ext = p.has_extension() ? p.extension().string() : std::string(".redraw");
  return (p.parent_path() / (p.stem().string() + "-" + label + ext)).string();
}

RunSlot::RunSlot(std::unique_ptr<TrainingSession> session, std::string label)
    : m_session(std::move(session)), m_label(std::move(label)) {}

void RunSlot::tell(const PreviewAsk& ask) {
  if (ask.every >= 0 && ask.every != m_told.every) {
    m_told.every = ask.every;
    post(run_command::SetPreviewEvery{ask.every});
  }
  if (ask.max_w >= 0 && ask.max_h >= 0 && (ask.max_w != m_told.max_w || ask.max_h != m_told.max_h)) {
    m_told.max_w = ask.max_w;
    m_told.max_h = ask.max_h;
    post(run_command::SetPreviewLimit{ask.max_w, ask.max_h});
  }
  if (ask.gap >= 0 && (m_told.gap < 0 || std::abs(ask.gap - m_told.gap) > 0.2 * ask.gap)) {
    m_told.gap = ask.gap;
    post(run_command::SetMinPreviewInterval{ask.gap});
  }
}

void report_run_messages(UiState& ui, SessionSnapshot& take, const std::string& prefix) {
  for (auto& e : take.errors)
    ui.notify(prefix + std::move(e), true);
  for (auto& n : take.notices)
    ui.notify(prefix + std::move(n), false);
  take.errors.clear();
  take.notices.clear();
}

void RunSlot::report_messages(UiState& ui, SessionSnapshot& take) const {
  report_run_messages(ui, take, m_label.empty() ? std::string() : m_label + ": ");
}

} // namespace redraw
