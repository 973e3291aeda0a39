#include "ui/panels/config_summary.h"
#include "ui/panels/panels.h"
#include "ui/state/shown_runs.h"
#include "ui/widgets/ui_scale.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace redraw {

bool TimelapseState::shown_is_picture() const {
  for (size_t i = 0; i < frames.size(); ++i)
    if (frames[i].step == shown_step) return kind(i) == 0;
  return false;
}

namespace {
/// The run tree: a button naming the current line, and a popup listing every line (indented
/// under the line it branched from); choosing one switches to it.
void draw_run_tree(UiState& ui, const RunView& run) {
  TimelapseState& tl = ui.timelapse;
  const std::vector<RunLine>& lines = run.status.lines;
  std::string current = "main";
  for (const RunLine& l : lines)
    if (l.active) current = l.label();
  // The full label names the current line; a narrow panel keeps room for the cap field after it.
  char label[160];
  std::snprintf(label, sizeof label, "run tree (%d): %s", int(lines.size()), current.c_str());
  const float room = ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("frame memory cap (MB)").x - 180;
  if (ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x > room)
    std::snprintf(label, sizeof label, "run tree (%d)", int(lines.size()));
  ImGui::BeginDisabled(lines.size() < 2 && !tl.tree_open_requested);
  if (ImGui::Button(label) || tl.tree_open_requested) ImGui::OpenPopup("##run_tree");
  tl.tree_open_requested = false;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("\"Resume training from here\" keeps the line it leaves as a branch here.\n"
                      "Stored lines share half the frame memory cap; when they outgrow it the least\n"
                      "recently used line is dropped, with a message.");
  if (!ImGui::BeginPopup("##run_tree")) return;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) ImGui::CloseCurrentPopup();
  ImGui::TextDisabled("run tree: choose a line to switch to it (its frames, curves and weights)");
  ImGui::Separator();
  for (const RunLine& l : lines) {
    int depth = 0;
    for (int32_t p = l.parent; p >= 0 && depth < 16; ++depth) {
      const auto it = std::find_if(lines.begin(), lines.end(), [p](const RunLine& x) { return x.id == p; });
      p = it == lines.end() ? -1 : it->parent;
    }
    char item[200];
    std::snprintf(item, sizeof item, "%*s%s%s%s##line%d", depth * 3, "", l.label().c_str(),
                  l.exact ? "" : "  (optimizer restarted)", l.active ? "  (current)" : "", int(l.id));
    if (ImGui::Selectable(item, l.active) && !l.active) ui.push(run_command::SwitchLine{int32_t(l.id)});
    if (!l.active && ImGui::IsItemHovered()) ImGui::SetTooltip("%s in memory", format_bytes(l.bytes).c_str());
  }
  ImGui::EndPopup();
}
} // namespace

namespace {
/// Shows frame i (clamped) and stops playing.
void go_to_frame(TimelapseState& tl, int32_t i) {
  tl.index = std::clamp(i, 0, int32_t(tl.frames.size()) - 1);
  tl.active = true;
  tl.playing = false;
}

/// |<  <  Play  >  >|  and the speed.
void draw_transport(UiState& ui) {
  TimelapseState& tl = ui.timelapse;
  const int32_t n = int32_t(tl.frames.size());
  if (ImGui::Button("|<")) go_to_frame(tl, 0);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) go_to_frame(tl, tl.index - 1);
  ImGui::SameLine();
  if (ImGui::Button(tl.playing ? "Pause" : "Play", ImVec2(ui_px(52), 0))) {
    tl.playing = !tl.playing;
    if (tl.playing) {
      if (!tl.active || tl.index + 1 >= n) tl.index = 0;
      tl.active = true;
      tl.next_advance = ui.now;
    }
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right)) go_to_frame(tl, tl.index + 1);
  ImGui::SameLine();
  if (ImGui::Button(">|")) go_to_frame(tl, n - 1);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ui_px(70));
  ImGui::DragFloat("##fps", &tl.fps, 0.2f, 0.5f, 60.0f, "%.0f fps");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("playback speed, frames per second");
}

/// Where the slider's grab centre stands at the first and the last frame, as Dear ImGui 1.86 places
/// it (SliderBehaviorT: 2 px of padding, an integer slider's grab one value wide, at least
/// GrabMinSize), from the slider's rectangle.
void slider_track(ImVec2 min, ImVec2 max, int32_t n, float track[2]) {
  const float padding = 2.0f, size = (max.x - min.x) - padding * 2.0f;
  const float grab = std::min(std::max(size / float(std::max(1, n)), ImGui::GetStyle().GrabMinSize), size);
  track[0] = min.x + padding + grab * 0.5f;
  track[1] = max.x - padding - grab * 0.5f;
}

/// The slider's position of `step` as a fractional frame index (between the frames around it;
/// the first frame before it), or -1 past the newest frame.
double frame_position(const std::vector<MetricsRow>& frames, int64_t step) {
  if (frames.empty() || step > frames.back().step) return -1;
  const auto it = std::lower_bound(frames.begin(), frames.end(), step,
                                   [](const MetricsRow& f, int64_t s) { return f.step < s; });
  const size_t i = size_t(it - frames.begin());
  if (i == 0) return 0;
  const double a = double(frames[i - 1].step), b = double(frames[i].step);
  return double(i - 1) + (double(step) - a) / std::max(1.0, b - a);
}

/// The growth events as ticks on the slider (short strokes at its top and bottom edges, in the
/// growth marks' colour); hovering near one names it, and letting go of the slider there shows
/// the first frame at or after its step. Writes where it drew into the probe.
void draw_growth_ticks(UiState& ui, const std::vector<GrowthEvent>& events) {
  TimelapseState& tl = ui.timelapse;
  GrowthMarksProbe& probe = ui.growth_probe;
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  const int32_t n = int32_t(tl.frames.size());
  probe.slider_ticks = 0;
  const float rect[4] = {min.x, min.y, max.x, max.y};
  std::copy(rect, rect + 4, probe.slider_rect);
  slider_track(min, max, n, probe.track);
  if (n < 2) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = std::max(2.0f, std::floor((max.y - min.y) * 0.3f));
  const float mx = ImGui::GetIO().MousePos.x, reach = std::max(3.0f, ImGui::GetFontSize() * 0.3f);
  std::string near;
  const GrowthEvent* nearest = nullptr;
  float nearest_d = reach + 1;
  for (const GrowthEvent& e : events) {
    const double f = frame_position(tl.frames, e.step);
    if (f < 0) continue;
    const float x = std::floor(probe.track[0] + float(f / double(n - 1)) * (probe.track[1] - probe.track[0]));
    dl->AddRectFilled(ImVec2(x, min.y), ImVec2(x + 1, min.y + h), k_growth_mark_rgb);
    dl->AddRectFilled(ImVec2(x, max.y - h), ImVec2(x + 1, max.y), k_growth_mark_rgb);
    ++probe.slider_ticks;
    const float d = std::abs(x + 0.5f - mx);
    if (d > reach) continue;
    near += (near.empty() ? "" : "\n") + growth_event_text(e);
    if (d < nearest_d) nearest_d = d, nearest = &e;
  }
  if (!nearest) return;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("growth: %s\nclick: the first frame at or after it", near.c_str());
  if (ImGui::IsItemDeactivated()) {
    const auto it = std::lower_bound(tl.frames.begin(), tl.frames.end(), nearest->step,
                                     [](const MetricsRow& f, int64_t s) { return f.step < s; });
    go_to_frame(tl, int32_t(it - tl.frames.begin()));
  }
}

/// The slider, the frame number beside it (with few frames the grab is wide and would hide it)
/// and the frame's numbers, in a shorter form in a narrow window (the full one is the tooltip).
void draw_frame_slider(UiState& ui, const RunView& run) {
  TimelapseState& tl = ui.timelapse;
  const int32_t n = int32_t(tl.frames.size());
  char label[48];
  std::snprintf(label, sizeof label, "frame %d / %d", tl.index + 1, n);
  char widest[48];
  std::snprintf(widest, sizeof widest, "frame %d / %d", n, n);
  const float label_w = ImGui::CalcTextSize(widest).x;
  const MetricsRow& f = tl.frames[size_t(tl.index)];
  char full[128], medium[96], brief[64];
  if (tl.active) {
    std::snprintf(full, sizeof full, "step %lld  loss %.2e  %.1f dB  lr %.1e", static_cast<long long>(f.step), f.loss,
                  f.psnr_db, f.lr);
    std::snprintf(medium, sizeof medium, "step %lld  %.1f dB", static_cast<long long>(f.step), f.psnr_db);
    std::snprintf(brief, sizeof brief, "step %lld", static_cast<long long>(f.step));
  } else {
    std::snprintf(full, sizeof full, "live (%d frames, %s)", n, format_bytes(tl.bytes).c_str());
    std::snprintf(medium, sizeof medium, "live (%d frames)", n);
    std::snprintf(brief, sizeof brief, "live");
  }
  const float spacing = ImGui::GetStyle().ItemSpacing.x, min_slider = 120;
  const uint8_t kind = tl.kind(size_t(tl.index));
  const char* picture_note = "(picture only)"; // after the numbers, for a scrubbed picture-only frame
  const float note_w = tl.active && kind == 0 ? ImGui::CalcTextSize(picture_note).x + spacing : 0.0f;
  const float room = ImGui::GetContentRegionAvail().x - min_slider - label_w - 2 * spacing - note_w;
  const char* info = brief;
  for (const char* candidate : {full, medium})
    if (ImGui::CalcTextSize(candidate).x <= room) {
      info = candidate;
      break;
    }
  // The slider keeps room for the longest form, so it does not jump as the numbers change.
  const float info_w = std::max(ImGui::CalcTextSize(info).x, std::min(room, 330.0f));
  ImGui::SetNextItemWidth(std::max(min_slider, ImGui::GetContentRegionAvail().x - info_w - label_w - 2 * spacing - note_w));
  int32_t index = tl.index;
  if (ImGui::SliderInt("##frame", &index, 0, n - 1, "")) go_to_frame(tl, index);
  draw_growth_ticks(ui, run.growth);
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, spacing + label_w - ImGui::CalcTextSize(label).x);
  if (tl.active)
    ImGui::TextUnformatted(info);
  else
    ImGui::TextDisabled("%s", info);
  const char* keeps = kind == 0   ? "a picture only: its weights were not kept (memory cap, or a model file)"
                      : kind == 1 ? "a keyframe: its weights (fp16) render at any size"
                                  : "its exact weights and optimizer state";
  if (note_w > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", picture_note);
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s\nThis frame keeps %s.\n%d frames, %s of %s", full, keeps, n, format_bytes(tl.bytes).c_str(),
                      format_bytes(tl.cap_bytes).c_str());
}

/// Live, Resume training from here, the run tree and the frame memory cap.
void draw_frame_actions(UiState& ui, const RunView& run) {
  TimelapseState& tl = ui.timelapse;
  const MetricsRow& f = tl.frames[size_t(tl.index)];
  const uint8_t kind = tl.kind(size_t(tl.index));
  ImGui::BeginDisabled(!tl.active);
  if (ImGui::Button("Live")) {
    tl.active = tl.playing = false;
    ui.view.error_dirty = true;
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(kind == 0);
  if (ImGui::Button("Resume training from here")) ui.push(run_command::Branch{f.step});
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Trains on from step %lld as a new branch. The line you leave stays in the run tree\n"
                      "(its frames, curves and weights), so you can switch back to it.\n%s",
                      static_cast<long long>(f.step),
                      kind == 2   ? "This frame kept its optimizer state: an exact continuation."
                      : kind == 1 ? "This frame did not keep its optimizer state (memory cap, or a model file):\n"
                                    "the optimizer restarts from zero, from its fp16 weights."
                                  : "This frame is a picture only (its weights were not kept):\n"
                                    "branch from a keyframe instead.");
  ImGui::EndDisabled();
  ImGui::SameLine();
  draw_run_tree(ui, run);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ui_px(110));
  if (ImGui::InputInt("frame memory cap (MB)", &ui.settings.snapshot_cap_mb, 16, 64,
                      ImGuiInputTextFlags_EnterReturnsTrue)) {
    ui.settings.snapshot_cap_mb = std::clamp(ui.settings.snapshot_cap_mb, 1, 65536);
    ui.push(run_command::SetSnapshotCap{size_t(int64_t(ui.settings.snapshot_cap_mb) << 20)});
  }
}
} // namespace

void draw_timelapse(UiState& ui, const RunView& run) {
  std::fill(std::begin(ui.growth_probe.slider_rect), std::end(ui.growth_probe.slider_rect), 0.0f);
  ui.growth_probe.slider_ticks = 0;
  if (ui.timelapse.frames.empty()) {
    ImGui::TextDisabled("timelapse: frames appear here as the network trains");
    return;
  }
  draw_transport(ui);
  ImGui::SameLine();
  draw_frame_slider(ui, run);
  draw_frame_actions(ui, run);
}

} // namespace redraw
