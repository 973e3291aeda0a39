// libFuzzer target: a model file (CRC fixed up, so mutations reach the meaning) through what the
// GUI does when it opens one, without a window: the session load (TrainingSession on the CPU),
// the UI state (absorb_snapshot), the first preview and its error map, a timelapse scrub to the
// first and the last frame, and headless ImGui frames of the whole main window with the messages
// the open produced. Any crash or sanitizer report fails; so does a draw list over 65,535
// vertices (ImGui's 16-bit indices: Debian's libimgui asserts there). Models too big to handle
// quickly (valid, only slow) are skipped, as fuzz_render does.
#include "engine/model_files/checkpoint.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "fuzz_support.h"
#include "ui/window/app_actions.h"
#include "ui/widgets/image_views.h"
#include "ui/panels/panels.h"
#include "ui/widgets/preview_texture.h"
#include "ui/session/training_session.h"
#include "ui/widgets/ui_scale.h"
#include "ui/state/ui_state.h"

#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

namespace {
using namespace redraw;

/// A texture that keeps nothing: the panels only need an id and a size.
class NullTexture final : public PreviewTexture {
public:
  void upload_host(const uint8_t* rgba, int32_t w, int32_t h) override {
    if (rgba == nullptr || w < 1 || h < 1) std::abort();
    m_w = w, m_h = h;
  }
  void* imgui_id() const override { return reinterpret_cast<void*>(uintptr_t(1)); }
  int32_t width() const override { return m_w; }
  int32_t height() const override { return m_h; }
  const char* kind() const override { return "null"; }
  double last_upload_ms() const override { return 0; }

private:
  int32_t m_w = 0, m_h = 0;
};

void headless_frame(UiState& ui) {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(1280, 800);
  io.DeltaTime = 1.0f / 60;
  ImGui::NewFrame();
  draw_main_window(ui);
  ImGui::Render();
  const ImDrawData* d = ImGui::GetDrawData();
  for (int i = 0; d && i < d->CmdListsCount; ++i)
    if (d->CmdLists[i]->VtxBuffer.Size > 65535) {
      std::fprintf(stderr, "draw list %d holds %d vertices (16-bit indices)\n", i, d->CmdLists[i]->VtxBuffer.Size);
      std::abort();
    }
}

/// Takes from the session into the UI state until `done` or a deadline (the load is on the
/// session's thread).
template <class Done> void pump(UiState& ui, TrainingSession& session, Done done, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    absorb_snapshot(ui, session.take()); // errors and notices become messages there
    sync_timelapse(ui, session);
    if (done()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes = fuzz::with_valid_crc(data, size);
  try {
    const Checkpoint c = deserialize_checkpoint(bytes.data(), bytes.size(), "fuzz");
    if (parameter_count(c.config.model) > 200000 || c.config.model.encoding.width() > 512 ||
        int64_t(c.image_width) * c.image_height > (int64_t(1) << 16) || c.snapshots.size() > 64)
      return 0;
  } catch (const Error&) {
    // unreadable: the session's load reports it, and the panels show the message
  }
  static const std::string path = "/tmp/fuzz_gui_open-" + std::to_string(::getpid()) + ".redraw";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  static const bool imgui_ready = [] {
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    build_ui_scale(1.0f);
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&px, &w, &h);
    return true;
  }();
  (void)imgui_ready;

  UiState ui;
  NullTexture truth, recon, error, frame;
  ui.run_a().tex = RunTextures{&truth, &recon, &error, &frame};
  {
    TrainingSession session([](const std::string&, std::string*, const std::string&) -> std::unique_ptr<Backend> {
      return std::make_unique<CpuBackend>();
    });
    LoadRequest req;
    req.model = path;
    req.backend = "cpu";
    session.post(run_command::Load{req});
    const RunView& run = ui.run_a();
    pump(ui, session, [&] { return !ui.message_log.empty() || (run.status.has_run && run.shown_step >= 0); }, 20);
    headless_frame(ui);
    if (ui.run_a().status.has_run && !ui.timelapse.frames.empty()) {
      // The scrub: the first frame, then the last, each shown on the canvas with its error map.
      for (int32_t index : {0, int32_t(ui.timelapse.frames.size()) - 1}) {
        ui.timelapse.active = true;
        ui.timelapse.index = index;
        pump(ui, session, [&] { return ui.timelapse.shown_step == ui.timelapse.wanted_step(); }, 10);
        headless_frame(ui);
      }
      if (ui.run_a().reconstruction && ui.run_a().ground_truth)
        (void)error_heat_map(*ui.run_a().reconstruction, *ui.run_a().ground_truth, 1.0f);
    }
  } // the session joins its thread
  headless_frame(ui);
  return 0;
}
