#include "ui/panels/panels.h"
#include "ui/widgets/bounded_text.h"
#include "ui/state/shown_runs.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

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
  ImGui::SameLine(0, ui_px(10));
  ImGui::TextDisabled("|");
  ImGui::SameLine(0, ui_px(10));
}

/// One status-bar field. A narrow window drops fields by `rank` (highest first) instead of
/// clipping the row at the window's edge.
struct Field {
  std::string text;
  ImVec4 color;
  bool disabled = false;
  int rank = 0;     ///< 0 = always shown; larger = dropped sooner
  bool tip = false; ///< the GUI frame-rate tooltip hangs on this one
  bool unsaved_tip = false; ///< the unsaved-changes tooltip hangs on this one
};

[[gnu::format(printf, 1, 2)]] std::string printf_string(const char* fmt, ...) {
  char buf[256];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}
} // namespace

namespace {
/// The run's average rate (steps over training time, what `redraw train` reports), and while it
/// trains the recent rate (the last two seconds, which swings with the machine's load); "" before
/// any step.
std::string rate_text(const SessionStatus& st) {
  const double average = st.elapsed_s > 0 && st.step > 0 ? double(st.step) / st.elapsed_s : 0;
  if (!(average > 0)) return {};
  if (st.running) return printf_string("%.1f steps/s (now %.1f)", average, st.steps_per_s);
  return printf_string("%.1f steps/s", average);
}
} // namespace

void draw_status_bar(UiState& ui) {
  const RunView& run = ui.run_a(); // the run the status bar's own fields describe
  const SessionStatus& st = run.status;
  ImGui::Separator();
  if (st.busy) {
    bounded_text_colored(ImVec4(0.5f, 0.8f, 1.0f, 1), st.busy_what);
    if (st.busy_what.rfind("loading", 0) != 0) {
      ImGui::SameLine();
      ImGui::ProgressBar(float(st.busy_progress), ImVec2(ui_px(160), ImGui::GetTextLineHeight()));
      ImGui::SameLine();
      if (ImGui::SmallButton("Cancel")) ui.push(intent::CancelExport{});
    }
    separator();
  }
  if (!st.has_run) {
    ImGui::TextDisabled("no image loaded");
    return;
  }
  const ImVec4 text = ImGui::GetStyleColorVec4(ImGuiCol_Text);
  std::vector<Field> fields;
  if (st.running)
    fields.push_back({"training", ImVec4(0.4f, 0.9f, 0.5f, 1)});
  else if (st.step >= st.total_steps)
    fields.push_back({"finished", ImVec4(0.6f, 0.7f, 1.0f, 1)});
  else
    fields.push_back({"paused", ImVec4(1.0f, 0.8f, 0.4f, 1)});
  if (st.unsaved) fields.push_back({"unsaved", ImVec4(1.0f, 0.6f, 0.3f, 1), false, 0, false, true});
  fields.push_back({printf_string("%s: %s", st.backend.c_str(), st.device.c_str()), text, false, 4});
  fields.push_back(
      {printf_string("step %lld / %lld", static_cast<long long>(st.step), static_cast<long long>(st.total_steps)),
       text});
  const std::vector<ShownRun> runs = shown_runs(ui);
  const std::string a_prefix = *runs[0].letter ? std::string(runs[0].letter) + " " : std::string();
  if (const std::string r = rate_text(st); !r.empty())
    fields.push_back({a_prefix + r, text, !st.running, 2});
  else
    fields.push_back({a_prefix + "- steps/s", text, true, 2});
  // The other runs, training in turns with A: each one field in its colour (its rate only while one
  // run is beside A, so that three fit), then the pace they keep.
  for (size_t i = 1; i < runs.size(); ++i) {
    const RunView& other = *runs[i].view;
    if (!other.status.has_run) continue;
    std::string r = runs.size() > 2 ? std::string() : rate_text(other.status);
    if (runs.size() == 2) r = "  " + (r.empty() ? std::string("- steps/s") : r);
    const double psnr = other.history.empty() ? 0 : other.history.back().psnr_db;
    fields.push_back({printf_string("%s step %lld%s  PSNR %.2f dB", runs[i].letter,
                                    static_cast<long long>(other.status.step), r.c_str(), psnr),
                      ImGui::ColorConvertU32ToFloat4(shown_run_color(i, 0, 255)), false, 2});
  }
  if (runs.size() > 1)
    fields.push_back({ui.settings.compare_same_step ? "same step" : "same seconds", text, true, 3});
  char elapsed[32], eta[32];
  format_duration(elapsed, sizeof elapsed, st.elapsed_s);
  const double remaining = st.steps_per_s > 0 ? double(st.total_steps - st.step) / st.steps_per_s : NAN;
  format_duration(eta, sizeof eta, st.running ? remaining : NAN);
  fields.push_back({printf_string("elapsed %s  ETA %s", elapsed, eta), text, false, 1});
  if (!run.history.empty()) {
    const MetricsRow& last = run.history.back();
    fields.push_back({printf_string("loss %.3e  PSNR %.2f dB", last.loss, last.psnr_db), text});
  } else {
    fields.push_back({"loss -  PSNR -", text, true});
  }
  fields.push_back({printf_string("%dx%d", st.width, st.height), text, false, 3});
  const char* path = run.tex.recon ? run.tex.recon->kind() : "-";
  fields.push_back(
      {printf_string("preview %s %.2f ms", path, run.tex.recon ? run.tex.recon->last_upload_ms() : 0.0), text,
       false, 5, true});

  // Drop the least important fields until the row fits what is left of the window.
  const float sep_w = ui_px(20) + ImGui::CalcTextSize("|").x;
  const float room = ImGui::GetContentRegionAvail().x;
  auto width = [&] {
    float w = -sep_w;
    for (const Field& f : fields)
      w += ImGui::CalcTextSize(widget_text(f.text, k_widget_chars, true).c_str()).x + sep_w;
    return w;
  };
  while (width() > room) {
    auto worst =
        std::max_element(fields.begin(), fields.end(), [](const Field& a, const Field& b) { return a.rank < b.rank; });
    if (worst == fields.end() || worst->rank == 0) break;
    fields.erase(worst);
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    if (i) separator();
    if (f.disabled)
      bounded_text_disabled(f.text, k_widget_chars, true);
    else
      bounded_text_colored(f.color, f.text, k_widget_chars, true);
    if (f.unsaved_tip && ImGui::IsItemHovered())
      ImGui::SetTooltip("This run has training not saved to a model file.\nCtrl+S saves it; Open, Quit, Reset and "
                        "Apply & reset ask first.");
    if (f.tip && ImGui::IsItemHovered())
      ImGui::SetTooltip("GUI: %.0f frames/s shown, %.1f ms per frame (View > Performance, P)", double(ui.fps),
                        ui.frame_ms);
  }
}

} // namespace redraw
