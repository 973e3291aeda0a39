// preview_budget_bench: what the app's live previews cost the training, with and without their
// share of the time (run_command::SetPreviewShare; k_preview_share by default). It drives
// the app's own TrainingSession headless, as the window does on a hardware renderer: previews
// every 10 steps, at most 30 a second, at a side-by-side pane's size (512 x 768), on the CPU
// backend. The two settings take turns over the rounds; per run it prints the steps/s over the
// training clock, the previews' share of the training thread's wall time and their rate.
// Usage: preview_budget_bench [--image PNG] [--preset instant] [--seconds 20] [--rounds 2]
#include "app/backend_registry.h"
#include "engine/run_config.h"
#include "tests/cli_options.h"
#include "ui/session/training_session.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

using namespace redraw;

namespace {
struct Result {
  int64_t steps = 0;
  double train_s = 0, preview_s = 0, wall_s = 0;
  int64_t previews = 0;
};

template <class Done> bool wait_for(TrainingSession& session, double seconds, Done done) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds)) {
    SessionSnapshot t = session.take();
    if (done(t)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

Result run(const std::string& image, const std::string& preset, double seconds, double share) {
  TrainingSession session(backend_factory());
  LoadRequest req;
  req.image = image;
  req.config = load_preset(preset);
  req.backend = k_cpu_backend.name;
  session.post(run_command::SetPreviewLimit{512, 768});
  session.post(run_command::SetMinPreviewInterval{1.0 / 30.0});
  session.post(run_command::SetPreviewEvery{10});
  session.post(run_command::SetPreviewShare{share});
  session.post(run_command::Load{req});
  if (!wait_for(session, 120, [](const SessionSnapshot& t) { return t.status.has_run && !t.status.busy; }))
    throw std::runtime_error(image + ": the run did not load");
  session.post(run_command::SetTimeBudget{seconds});
  session.post(run_command::SetRunning{true});
  Result r;
  int64_t last_preview = -1;
  const bool done = wait_for(session, seconds * 3 + 60, [&](const SessionSnapshot& t) {
    for (const SessionProfile& p : t.profiles) {
      r.preview_s += p.preview_s;
      r.wall_s += p.wall_s;
    }
    if (t.preview && t.preview_step != last_preview) {
      ++r.previews;
      last_preview = t.preview_step;
    }
    r.steps = t.status.step;
    r.train_s = t.status.elapsed_s;
    return t.status.has_run && !t.status.running && r.steps > 0;
  });
  if (!done) throw std::runtime_error("the time budget did not stop the run");
  return r;
}
} // namespace

int main(int argc, char** argv) {
  std::string image = REDRAW_ASSET_DIR "/default.png", preset = "instant";
  double seconds = 20;
  int rounds = 2;
  CLI::App app{"The live previews' cost to training, with and without their share of the time"};
  app.add_option("--image", image, "Image to train on")->capture_default_str();
  app.add_option("--preset", preset, "Preset")->capture_default_str();
  app.add_option("--seconds", seconds, "Training seconds per run")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--rounds", rounds, "Turns of the two settings")->check(CLI::PositiveNumber)->capture_default_str();
  test::parse_or_exit(app, argc, argv);
  std::printf("%s on %s, CPU backend, previews every 10 steps at most 30/s at 512x768, %g s each\n\n", preset.c_str(),
              image.c_str(), seconds);
  std::printf("| previews' share | round | steps | steps/s | previews/s | previews' time |\n|---|---|---|---|---|---|\n");
  try {
    for (int round = 1; round <= rounds; ++round)
      for (const double share : {1.0, k_preview_share}) {
        const Result r = run(image, preset, seconds, share);
        std::printf("| %s | %d | %lld | %.2f | %.1f | %.1f%% |\n", share >= 1 ? "no limit" : "15% (default)", round,
                    static_cast<long long>(r.steps), double(r.steps) / r.train_s, double(r.previews) / r.train_s,
                    r.wall_s > 0 ? 100 * r.preview_s / r.wall_s : 0.0);
        std::fflush(stdout);
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "preview_budget_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
