#include "ui/panels.h"

#include <imgui.h>

#include <cmath>
#include <cstdio>

namespace redraw {
namespace {
void format_duration(char* buf, size_t n, double s) {
  if (!std::isfinite(s) || s < 0) {
    std::snprintf(buf, n, "--:--");
    return;
  }
  const long long t = static_cast<long long>(s + 0.5);
  if (t >= 3600)
    std::snprintf(buf, n, "%lld:%02lld:%02lld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, n, "%02lld:%02lld", t / 60, t % 60);
}

void separator() {
  ImGui::SameLine(0, 10);
  ImGui::TextDisabled("|");
  ImGui::SameLine(0, 10);
}
} // namespace

void draw_status_bar(UiState& ui) {
  const SessionStatus& st = ui.run.status;
  ImGui::Separator();
  if (st.busy) {
    ImGui::TextColored(ImVec4(0.5f, 0.8f, 1.0f, 1), "%s", st.busy_what.c_str());
    if (st.busy_what.rfind("loading", 0) != 0) {
      ImGui::SameLine();
      ImGui::ProgressBar(float(st.busy_progress), ImVec2(160, ImGui::GetTextLineHeight()));
      ImGui::SameLine();
      if (ImGui::SmallButton("Cancel")) ui.push(IntentKind::CancelExport);
    }
    separator();
  }
  if (!st.has_run) {
    ImGui::TextDisabled("no image loaded");
    return;
  }
  if (st.running)
    ImGui::TextColored(ImVec4(0.4f, 0.9f, 0.5f, 1), "training");
  else if (st.step >= st.total_steps)
    ImGui::TextColored(ImVec4(0.6f, 0.7f, 1.0f, 1), "finished");
  else
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.4f, 1), "paused");
  separator();
  ImGui::Text("%s: %s", st.backend.c_str(), st.device.c_str());
  separator();
  ImGui::Text("step %lld / %lld", static_cast<long long>(st.step), static_cast<long long>(st.total_steps));
  separator();
  if (st.running)
    ImGui::Text("%.1f steps/s", st.steps_per_s);
  else if (ui.run.last_steps_per_s > 0)
    ImGui::TextDisabled("%.1f steps/s", ui.run.last_steps_per_s);
  else
    ImGui::TextDisabled("- steps/s");
  separator();
  char elapsed[32], eta[32];
  format_duration(elapsed, sizeof elapsed, st.elapsed_s);
  const double remaining = st.steps_per_s > 0 ? double(st.total_steps - st.step) / st.steps_per_s : NAN;
  format_duration(eta, sizeof eta, st.running ? remaining : NAN);
  ImGui::Text("elapsed %s  ETA %s", elapsed, eta);
  separator();
  if (!ui.run.history.empty()) {
    const MetricsRow& last = ui.run.history.back();
    ImGui::Text("loss %.3e  PSNR %.2f dB", last.loss, last.psnr_db);
  } else {
    ImGui::TextDisabled("loss -  PSNR -");
  }
  separator();
  ImGui::Text("%dx%d", st.width, st.height);
  separator();
  const char* path = ui.recon_texture ? ui.recon_texture->kind() : "-";
  ImGui::Text("preview %s %.2f ms", path, ui.recon_texture ? ui.recon_texture->last_upload_ms() : 0.0);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("GUI: %.0f frames/s shown, %.1f ms per frame", double(ui.fps), ui.frame_ms);
}

} // namespace redraw
