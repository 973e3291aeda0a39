// The machine's part of the controls: the CPU thread count, and the hint that offers a
// smaller training size when a run's ETA is long. Drawn by controls_panel.cpp.
#include "ui/widgets/machine_fit.h"
#include "ui/panels/panels.h"

#include "engine/backend_names.h"
#include "engine/thread_budget.h"
#include "ui/state/settings_store.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace redraw {

void draw_cpu_threads(UiState& ui) {
  int threads = cpu_threads_setting();
  ImGui::SetNextItemWidth(120);
  if (ImGui::InputInt("CPU threads", &threads, 1, 1)) {
    threads = std::clamp(threads, 0, k_max_cpu_threads);
    set_cpu_threads(threads);
    ui.settings.cpu_threads = threads; // remembered for the next launch (settings.json)
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Threads the CPU backend trains and renders with. 0: measured (all %d cores, or fewer when\n"
                      "another busy program makes fewer faster; the window keeps its share). Applies at once.",
                      cpu_core_count());
}

void draw_image_memory(UiState& ui) {
  int mb = ui.settings.max_image_memory_mb;
  ImGui::SetNextItemWidth(120);
  if (ImGui::InputInt("Image memory (MiB)", &mb, 256, 1024)) {
    ui.settings.max_image_memory_mb = std::clamp(mb, 1, k_max_image_memory_mb); // remembered (settings.json)
    ui.image_memory_override_mb = 0; // the field wins over `gui --max-image-memory` from now on
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The most memory decoding one image may take. A larger image is offered to open\n"
                      "with a larger budget for that file; this sets it for every file (as train's\n"
                      "--max-image-memory).");
}

void draw_eta_hint(UiState& ui, const RunView& run) {
  const SessionStatus& st = run.status;
  // Running: the live rate; paused mid-run: the rate it last had.
  const double rate = st.running ? st.steps_per_s : run.last_steps_per_s;
  if (!st.has_run || rate <= 0 || st.step >= st.total_steps || st.width <= 0 || st.height <= 0) return;
  const double remaining = double(st.total_steps - st.step) / rate;
  if (remaining <= k_eta_hint_seconds) return;
  const int32_t side = std::max(st.width, st.height);
  const int64_t pixels = int64_t(st.width) * st.height;
  const int32_t s =
      suggested_training_side(side, pixels, backend_batch(st.config.training, st.backend), rate, st.total_steps);
  if (s <= 0) return;
  // Dismissed for this run: kept in ImGui's per-window storage, keyed by the run.
  ImGuiStorage* store = ImGui::GetStateStorage();
  const ImGuiID key = ImGui::GetID("eta-hint-dismissed");
  if (store->GetInt(key, 0) == int(st.trainer_id & 0x7fffffff)) return;
  const int32_t w = std::max(1, int32_t(std::lround(double(st.width) * s / side)));
  const int32_t h = std::max(1, int32_t(std::lround(double(st.height) * s / side)));
  char text[160];
  std::snprintf(text, sizeof text, "About %.0f min left at %dx%d. At %dx%d the whole run takes under a minute.",
                std::ceil(remaining / 60.0), st.width, st.height, w, h);
  // Sized to its wrapped text and one row of buttons: no scrollbar at any panel width.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float wrap = ImGui::GetContentRegionAvail().x - 2 * style.WindowPadding.x;
  const float text_h = ImGui::CalcTextSize(text, nullptr, false, wrap).y;
  const float height = text_h + style.ItemSpacing.y + ImGui::GetFrameHeight() + 2 * style.WindowPadding.y;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0.35f, 0.28f, 0.08f, 1.0f));
  ImGui::BeginChild("eta-hint", ImVec2(0, height), true, ImGuiWindowFlags_NoScrollbar);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  char label[64];
  std::snprintf(label, sizeof label, "Train at %dx%d", w, h);
  if (ImGui::Button(label)) {
    ui.edit.config.data.max_side = s;
    ui.edit.config.data.width = ui.edit.config.data.height = 0;
    ui.push(intent::ApplyReset{});
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Sets the training size to %d and starts the run again", s);
  ImGui::SameLine();
  if (ImGui::SmallButton("Keep this size")) store->SetInt(key, int(st.trainer_id & 0x7fffffff));
  ImGui::EndChild();
  ImGui::PopStyleColor();
}

} // namespace redraw
