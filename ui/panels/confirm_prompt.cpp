#include "ui/panels/confirm_prompt.h"
#include "ui/widgets/bounded_text.h"

#include "ui/panels/panels.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

namespace redraw {
namespace fs = std::filesystem;

namespace {
constexpr const char* k_title = "Unsaved training";

bool guarded(const UiIntent& in) {
  if (const auto* d = in.get<intent::ShowDialog>()) return d->purpose == FileDialogPurpose::Open;
  if (const RunCommand* command = in.command()) return command_traits(*command).guarded; // Reset, ...
  return in.is<intent::OpenPath>() || in.is<intent::Quit>() || in.is<intent::ApplyReset>();
}

/// What the held action does, for the prompt's question.
std::string action_text(const UiIntent& in) {
  if (const auto* o = in.get<intent::OpenPath>()) return "Open " + fs::path(o->path).filename().string();
  if (in.is<intent::ShowDialog>()) return "Open another image or model";
  if (in.is<intent::Quit>()) return "Quit Redraw";
  if (in.is<run_command::Reset>()) return "Reset the network";
  if (in.is<intent::ApplyReset>()) return "Apply the new settings and reset";
  return "Continue";
}

bool inside(const fs::path& file, const std::string& folder) {
  if (folder.empty()) return false;
  std::error_code ec;
  const fs::path f = fs::weakly_canonical(file, ec).parent_path();
  const fs::path d = fs::weakly_canonical(folder, ec);
  return !ec && f == d;
}

/// "" for 1, "-2", "-3", ... (built by appending: GCC 12 misreads `"-" + std::to_string(n)`).
std::string numbered_suffix(int n) {
  std::string s;
  if (n > 1) s.append("-").append(std::to_string(n));
  return s;
}

void release(UiState& ui, bool confirmed_again) {
  ConfirmState& c = ui.confirm;
  if (confirmed_again) {
    UiIntent in = c.pending;
    in.confirmed = true;
    ui.intents.push_back(std::move(in));
  }
  c.holding = false;
  c.save_path.clear();
}
} // namespace

bool needs_confirmation(const UiState& ui, const UiIntent& in) {
  if (in.confirmed || !guarded(in)) return false;
  const SessionStatus& st = ui.run_a().status;
  if (!st.has_run || !st.unsaved) return false;
  // An open chosen in a dialog that was opened after the prompt was answered is confirmed.
  if (const auto* o = in.get<intent::OpenPath>(); o && o->from_answered_dialog) return false;
  return true;
}

void ask_confirmation(UiState& ui, const UiIntent& in) {
  ConfirmState& c = ui.confirm;
  if (c.holding) return; // one question at a time
  c.holding = true;
  c.pending = in;
  c.save_path.clear();
  c.open_requested = true;
}

std::string save_destination(const UiState& ui) {
  const SessionStatus& st = ui.run_a().status;
  std::error_code ec;
  if (!st.model_path.empty() && !inside(st.model_path, ui.confirm.keep_folder)) return st.model_path;
  const std::string src = !st.image_path.empty() ? st.image_path : st.source_path;
  const std::string stem = src.empty() ? std::string("redraw") : fs::path(src).stem().string();
  fs::path folder = ui.settings.last_folder.empty() ? fs::current_path(ec) : fs::path(ui.settings.last_folder);
  if (folder.empty() || inside(folder / "x", ui.confirm.keep_folder)) folder = fs::current_path(ec);
  for (int n = 1; n < 1000; ++n) {
    const fs::path p = folder / (stem + numbered_suffix(n) + ".redraw");
    if (!fs::exists(p, ec)) return p.string();
  }
  return (folder / (stem + "-unsaved.redraw")).string();
}

std::string discard_copy_path(const ConfirmState& c, int keep) {
  if (c.keep_folder.empty()) return {};
  std::error_code ec;
  // Keep the newest keep - 1 earlier copies (names sort by time).
  std::vector<fs::path> old;
  for (const auto& e : fs::directory_iterator(c.keep_folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("discarded-", 0) == 0 && e.path().extension() == ".redraw") old.push_back(e.path());
  }
  std::sort(old.begin(), old.end());
  while (!old.empty() && int(old.size()) > keep - 1) {
    fs::remove(old.front(), ec);
    old.erase(old.begin());
  }
  return unused_stamped_path(c.keep_folder, "discarded-");
}

std::string unused_stamped_path(const fs::path& folder, const std::string& prefix) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  std::error_code ec;
  for (int n = 1;; ++n) {
    const fs::path p = folder / (prefix + stamp + numbered_suffix(n) + ".redraw");
    if (!fs::exists(p, ec)) return p.string();
  }
}

void confirm_save(UiState& ui) {
  ConfirmState& c = ui.confirm;
  if (!c.holding) return;
  c.save_path = save_destination(ui);
  ui.push(intent::SaveModel{c.save_path}); // the action follows once the save is reported
}

void confirm_discard(UiState& ui) {
  ConfirmState& c = ui.confirm;
  if (!c.holding) return;
  if (const std::string keep = discard_copy_path(c); !keep.empty()) ui.push(run_command::KeepCopy{keep});
  release(ui, true);
}

void confirm_cancel(UiState& ui) {
  if (ui.confirm.holding) ui.notify(action_text(ui.confirm.pending) + ": cancelled; the run is kept");
  release(ui, false);
}

void confirm_after_saves(UiState& ui, const std::vector<std::string>& saved, const std::vector<std::string>& failed) {
  ConfirmState& c = ui.confirm;
  if (!c.holding || c.save_path.empty()) return;
  if (std::find(saved.begin(), saved.end(), c.save_path) != saved.end()) {
    release(ui, true);
  } else if (std::find(failed.begin(), failed.end(), c.save_path) != failed.end()) {
    ui.notify(action_text(c.pending) + ": not done, because the save failed; the run is kept", true);
    release(ui, false);
  }
}

std::string window_title(const UiState& ui) {
  const SessionStatus& st = ui.run_a().status;
  std::string name;
  if (!st.model_path.empty())
    name = widget_text(fs::path(st.model_path).filename().string(), 120, true);
  else if (!st.source_path.empty())
    name = widget_text(fs::path(st.source_path).filename().string(), 120, true);
  std::string t = name.empty() ? std::string("Redraw") : name + " - Redraw";
  if (st.has_run && st.unsaved) {
    t.insert(t.begin(), '*');
    t += " (unsaved)";
  }
  return t;
}

void draw_confirm_prompt(UiState& ui) {
  ConfirmState& c = ui.confirm;
  if (c.open_requested) {
    ImGui::OpenPopup(k_title);
    c.open_requested = false;
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(k_title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  const SessionStatus& st = ui.run_a().status;
  if (!c.save_path.empty()) {
    // Save was answered: wait for it (confirm_after_saves closes the prompt either way).
    bounded_text("Saving to " + c.save_path + " ...", k_widget_chars, true);
    if (!c.holding) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return;
  }
  if (!c.holding) {
    ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return;
  }
  // Long paths wrap instead of widening the prompt past a small window.
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::clamp(vp->WorkSize.x * 0.8f, 300.0f, 720.0f));
  ImGui::Text("%s?", action_text(c.pending).c_str());
  ImGui::TextWrapped("The current run has training not saved to a model file (step %lld%s).",
                     static_cast<long long>(st.step),
                     st.lines.size() > 1 ? (", " + std::to_string(st.lines.size()) + " run-tree lines").c_str() : "");
  ImGui::Spacing();
  auto bullet = [](const std::string& text) {
    ImGui::Bullet();
    ImGui::TextWrapped("%s", widget_text(text, 600, true).c_str());
  };
  bullet("Save: writes " + save_destination(ui) + ", then goes on.");
  if (!c.keep_folder.empty())
    bullet("Discard: goes on; the run stays recoverable as a copy in " + c.keep_folder +
           " (the five newest discarded runs are kept; open one with File > Open).");
  else
    bullet("Discard: goes on, and this run's training is lost (autosave is off).");
  if (st.lines.size() > 1) bullet("A model file holds the current line of the run tree only.");
  bullet("Cancel (Esc): keeps everything as it is.");
  ImGui::PopTextWrapPos();
  ImGui::Spacing();
  const ImVec2 button(110, 0);
  const bool save = ImGui::Button("Save", button) || ImGui::IsKeyPressed(GLFW_KEY_S, false) ||
                    ImGui::IsKeyPressed(GLFW_KEY_ENTER, false);
  ImGui::SameLine();
  const bool discard = ImGui::Button("Discard", button) || ImGui::IsKeyPressed(GLFW_KEY_D, false);
  ImGui::SameLine();
  const bool cancel = ImGui::Button("Cancel", button) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false);
  ImGui::TextDisabled("keys: S or Enter = Save, D = Discard, Esc = Cancel");
  if (save) {
    confirm_save(ui);
  } else if (discard) {
    confirm_discard(ui);
    ImGui::CloseCurrentPopup();
  } else if (cancel) {
    confirm_cancel(ui);
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

} // namespace redraw
