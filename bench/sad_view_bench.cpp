/// What a `sad` run costs to watch on the CPU: a decode of its picture (the timelapse, the zoom,
/// export and the bench's decode all render through Backend::predict) and a relocation of its
/// sites (training.grow), each the way it was done before and the way it is done now, on the same
/// weights, in one run, so a busy machine slows every row.
///   sad_view_bench [--size 768x512] [--sites 24000] [--steps 30] [--frames 4] [--threads T]
/// Decode rows, ms a frame at --size (the lists' lattice follows the sites, not the picture):
///   - lists per band: a fresh backend for each band of the picture, so each band builds the
///     lists from scratch (what every predict call did before);
///   - kept, same weights: one backend rendering the same weights again (a paused run's views,
///     the bench's decode): the lists built once, then found again by a compare of the floats;
///   - kept, new weights: one backend rendering two sets of weights in turn (a timelapse scrub):
///     one build a frame;
///   - live view: the trainer's bound weights with the lists its last step refreshed.
///   The first three must give the same bits (printed).
/// Relocation rows, seconds, at --sites on the --size picture (the `sad-grow` preset's growth,
/// minibatches of 16,384 pixels): the relocation, and the training step after it:
///   - before: blends from lists built afresh, and the lists built again at the next step;
///   - now: blends from the step's lists (Backend::bound_site_lists), one refresh pass after the
///     move (Backend::set_moved_parameters).
#include "cpu/cpu_backend.h"
#include "engine/dataset.h"
#include "engine/frames/renderer.h"
#include "engine/growth.h"
#include "engine/images/image.h"
#include "engine/model_family.h"
#include "engine/run_config.h"
#include "engine/thread_budget.h"
#include "engine/training/growth_step.h"
#include "engine/training/trainer.h"
#include "tests/tool_support.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace redraw;
using redraw::test::seconds_since;

namespace {

using SadClock = std::chrono::steady_clock;

/// The picture of `params` at w x h in the renderer's bands, each band on a fresh backend.
std::vector<float> render_fresh_per_band(const ModelSpec& model, std::span<const float> params, int32_t w, int32_t h) {
  const int32_t band = int32_t(std::clamp<int64_t>(RenderOptions{}.max_tile_pixels / w, 1, h));
  const int32_t C = model.output_channels;
  std::vector<float> out(size_t(w) * size_t(h) * size_t(C)), coords;
  for (int32_t y0 = 0; y0 < h; y0 += band) {
    const int32_t y1 = std::min(h, y0 + band);
    coords.resize(size_t(y1 - y0) * size_t(w) * 2);
    grid_coordinates(w, h, y0, y1, coords.data());
    CpuBackend fresh;
    fresh.predict(model, params, {}, coords.data(), int64_t(y1 - y0) * w, out.data() + size_t(y0) * size_t(w) * C);
  }
  return out;
}

/// ms a call of f, over `frames` calls.
template <class F> double ms_per(int32_t frames, F&& f) {
  const auto t0 = SadClock::now();
  for (int32_t i = 0; i < frames; ++i)
    f(i);
  return 1e3 * seconds_since(t0) / frames;
}

/// The relocation as it was: the blends from lists built afresh, the lists dropped after the move.
int64_t relocate_as_before(Backend& backend, const RunConfig& cfg, const Dataset& data, int64_t step) {
  backend.synchronize();
  std::vector<float> params = backend.parameters();
  OptimizerState moments = backend.optimizer_state();
  const int32_t w = data.image.width, h = data.image.height, C = data.channels();
  std::vector<float> prediction(size_t(data.size()) * size_t(C)), coords(size_t(data.size()) * 2);
  grid_coordinates(w, h, 0, h, coords.data());
  backend.predict_bound(coords.data(), data.size(), prediction.data());
  const GrowthPicture picture{w, h, C, data.targets(), prediction.data(), {}}; // no lists: built afresh
  const int64_t moved = model_family(cfg.model.encoding.kind)
                            .grow(cfg.model, cfg.training.grow, cfg.training.seed, step, picture, params, moments);
  backend.set_parameters(params); // the lists go: the next step builds them
  backend.set_optimizer_state(moments);
  return moved;
}

} // namespace

int main(int argc, char** argv) {
  std::string size = "768x512";
  int64_t sites = 24000;
  int32_t steps = 30, frames = 4, threads = 0;
  CLI::App cli{"What a sad run costs to watch on the CPU: decodes and relocations", "sad_view_bench"};
  cli.add_option("--size", size, "Picture size WxH (training and decode)");
  cli.add_option("--sites", sites, "model.sites")->check(CLI::Range(int64_t(16), int64_t(4000000)));
  cli.add_option("--steps", steps, "Training steps before measuring")->check(CLI::Range(2, 100000));
  cli.add_option("--frames", frames, "Frames a decode row")->check(CLI::Range(1, 1000));
  cli.add_option("--threads", threads, "Fixed team size (0: measured)")->check(CLI::Range(0, 1024));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  int32_t W = 0, H = 0;
  if (std::sscanf(size.c_str(), "%dx%d", &W, &H) != 2 || W < 8 || H < 8) {
    std::fprintf(stderr, "--size: WxH, each at least 8\n");
    return 2;
  }
  set_cpu_threads(threads);
  RunConfig cfg = load_preset("sad");
  cfg.model.encoding.sites = sites;
  cfg.data.width = W;
  cfg.data.height = H;
  cfg.training.batch_size = 16384;
  cfg.training.metrics_every = int64_t(1) << 40;
  cfg.training.steps = int64_t(1) << 40;
  const Image img = prepare_training_image(default_image_path(), cfg.data);
  Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{img});
  SnapshotPolicy no_frames;
  no_frames.enabled = false;
  t.set_snapshot_policy(no_frames);
  for (int32_t s = 0; s < steps; ++s)
    (void)t.step();
  const std::vector<float> a = t.parameters();
  for (int32_t s = 0; s < 5; ++s)
    (void)t.step();
  const std::vector<float> b = t.parameters();
  const ModelSpec& model = t.config().model; // its channels resolved for the picture
  RunConfig grow_cfg = t.config();
  grow_cfg.training.grow = load_preset("sad-grow").training.grow;
  std::printf("CPU backend: %s; %lld sites (%lld parameters), %dx%d picture, %d steps of 16,384 pixels first\n\n",
              t.backend().device_description().c_str(), static_cast<long long>(sites), static_cast<long long>(a.size()),
              W, H, steps);

  // ---- decode -------------------------------------------------------------------------------
  CpuBackend kept;
  std::vector<float> p_fresh;
  const double ms_fresh = ms_per(frames, [&](int32_t) { p_fresh = render_fresh_per_band(model, a, W, H); });
  const Image same0 = render_image(kept, NetworkView{&model, a, {}}, W, H); // builds the lists once
  const double ms_same = ms_per(frames, [&](int32_t) { (void)render_image(kept, NetworkView{&model, a, {}}, W, H); });
  const double ms_new = ms_per(frames, [&](int32_t i) {
    (void)render_image(kept, NetworkView{&model, i % 2 ? a : b, {}}, W, H);
  });
  const Image same1 = render_image(kept, NetworkView{&model, a, {}}, W, H);
  const double ms_live = ms_per(frames, [&](int32_t) { (void)t.render(W, H); });
  std::vector<float> clamped(p_fresh.size());
  std::transform(p_fresh.begin(), p_fresh.end(), clamped.begin(), [](float v) { return std::clamp(v, 0.0f, 1.0f); });
  const bool same_bits = clamped == same0.pixels && clamped == same1.pixels;
  std::printf("| decode at %dx%d | ms a frame | FPS |\n|---|---:|---:|\n", W, H);
  std::printf("| lists per band (before) | %.1f | %.2f |\n", ms_fresh, 1e3 / ms_fresh);
  std::printf("| kept, same weights | %.1f | %.2f |\n", ms_same, 1e3 / ms_same);
  std::printf("| kept, new weights each frame | %.1f | %.2f |\n", ms_new, 1e3 / ms_new);
  std::printf("| live view (the trainer's lists) | %.1f | %.2f |\n", ms_live, 1e3 / ms_live);
  std::printf("the same bits, per band and kept: %s\n\n", same_bits ? "yes" : "NO");

  // ---- relocation ---------------------------------------------------------------------------
  Backend& backend = t.backend();
  const std::vector<float> start = backend.parameters();
  const OptimizerState start_moments = backend.optimizer_state();
  std::printf("| relocation of %lld sites | relocation s | next step s | moved |\n|---|---:|---:|---:|\n",
              static_cast<long long>(sites));
  for (int32_t variant = 0; variant < 2; ++variant) {
    backend.set_parameters(start);
    backend.set_optimizer_state(start_moments);
    (void)t.step(); // lists built afresh for the same weights in both
    const int64_t step = t.current_step();
    auto t0 = SadClock::now();
    const int64_t moved = variant == 0 ? relocate_as_before(backend, grow_cfg, t.dataset(), step)
                                       : grow_bound_primitives(backend, grow_cfg, t.dataset(), step)->moved;
    const double relocation_s = seconds_since(t0);
    t0 = SadClock::now();
    (void)t.step();
    backend.synchronize();
    std::printf("| %s | %.2f | %.2f | %lld |\n",
                variant == 0 ? "before: lists built twice" : "now: the step's lists, a refresh", relocation_s,
                seconds_since(t0), static_cast<long long>(moved));
  }
  auto t0 = SadClock::now();
  for (int32_t s = 0; s < 3; ++s)
    (void)t.step();
  std::printf("| (a step without relocation) | | %.2f | |\n", seconds_since(t0) / 3);
  return same_bits ? 0 : 1;
}
