/// What a relocation (training.grow) does to the picture at that moment: a Trainer of a growing
/// preset steps as `redraw train` would, and at each relocation the exact PSNR over every pixel is
/// measured just before and just after it, on the same weights, so the dip is the relocation's
/// alone. The relocation is the trainer's own (grow_bound_primitives), called here between steps.
///   growth_dip_bench --image FILE [--size N | --max-side N] [--preset gaussians-grow] [--steps 200]
///                    [--every 5] [--fraction F] [--until U] [--count N] [--batch B] [--threads T]
/// Prints one row per relocation (step, PSNR before, after, the dip, its seconds) and the final
/// PSNR with the mean seconds of a step and of a relocation; --json writes the same as a JSON file.
#include "cpu/cpu_backend.h"
#include "engine/atomic_file.h"
#include "engine/growth.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
#include "engine/thread_budget.h"
#include "engine/training/growth_step.h"
#include "engine/training/trainer.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace redraw;

int main(int argc, char** argv) {
  std::string image, preset = "gaussians-grow", json_out;
  int32_t size = 0, max_side = 0, threads = 0;
  int64_t steps = 200, every = 5, count = 0, batch = -1;
  double fraction = -1, until = -1;
  CLI::App cli{"PSNR just before and just after each relocation of a growing preset", "growth_dip_bench"};
  cli.add_option("--image", image, "Training image")->required();
  cli.add_option("--size", size, "Training size, a square (0: --max-side)")->check(CLI::Range(0, 8192));
  cli.add_option("--max-side", max_side, "Longest side, aspect kept (0: the preset's)")->check(CLI::Range(0, 8192));
  cli.add_option("--preset", preset, "A growing preset")->check(CLI::IsMember(preset_names()));
  cli.add_option("--steps", steps, "training.steps (the schedule anneals over them)")->check(CLI::Range(1, 1000000));
  cli.add_option("--every", every, "training.grow.every")->check(CLI::Range(1, 1000000));
  cli.add_option("--fraction", fraction, "training.grow.fraction (default: the preset's)");
  cli.add_option("--until", until, "training.grow.until (default: the preset's)");
  cli.add_option("--count", count, "model.gaussians or model.sites (0: the preset's)")->check(CLI::Range(0, 4000000));
  cli.add_option("--batch", batch, "training.batch_cpu: pixels a step (0: full; default: the preset's)")
      ->check(CLI::Range(int64_t(0), int64_t(67108864)));
  cli.add_option("--threads", threads, "Fixed team size (0: measured)")->check(CLI::Range(0, 1024));
  cli.add_option("--json", json_out, "Also write the rows here");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  set_cpu_threads(threads);
  RunConfig grown = load_preset(preset);
  if (size > 0) grown.data.width = grown.data.height = size;
  if (max_side > 0) grown.data.max_side = max_side;
  if (count > 0) grown.model.encoding.gaussians = grown.model.encoding.sites = count;
  grown.training.steps = steps;
  if (batch >= 0) grown.training.cpu_batch_size = batch;
  grown.training.metrics_every = int64_t(1) << 40;
  grown.training.grow.every = every;
  if (fraction > 0) grown.training.grow.fraction = fraction;
  if (until > 0) grown.training.grow.until = until;
  if (const std::string why = grow_problem(grown); !why.empty() || !grown.training.grow.on()) {
    std::fprintf(stderr, "error: %s\n", why.empty() ? "the preset does not grow" : why.c_str());
    return 2;
  }
  RunConfig plain = grown; // the trainer steps; the relocations are called here, as it would
  plain.training.grow = GrowSpec{};
  const Image img = prepare_training_image(image, grown.data);
  Trainer t(std::make_unique<CpuBackend>(), plain, Dataset{img});
  SnapshotPolicy no_frames;
  no_frames.enabled = false;
  t.set_snapshot_policy(no_frames);
  const GrowSpec grow = grown.training.grow;
  grown = t.config(); // resolved to the image (its channels)
  grown.training.grow = grow;
  std::printf("%s on %s at %dx%d, %lld steps, every %lld, fraction %g, until %g\n", preset.c_str(), image.c_str(),
              img.width, img.height, static_cast<long long>(steps), static_cast<long long>(every),
              grown.training.grow.fraction, grown.training.grow.until);
  std::printf("| step | moved | PSNR before | PSNR after | dip dB | seconds |\n|---|---|---|---|---|---|\n");
  nlohmann::json rows = nlohmann::json::array();
  double worst = 0, total = 0, step_seconds = 0, grow_seconds = 0;
  const auto seconds_since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  while (t.current_step() < steps) {
    const auto t0 = std::chrono::steady_clock::now();
    t.step();
    step_seconds += seconds_since(t0);
    const int64_t s = t.current_step();
    if (!grow_due(grown, s, t.schedule_step())) continue;
    const double before = t.measure().psnr_db;
    const auto g0 = std::chrono::steady_clock::now();
    const std::optional<GrowthEvent> e = grow_bound_primitives(t.backend(), grown, t.dataset(), s);
    const double took = seconds_since(g0);
    grow_seconds += took;
    const double after = t.measure().psnr_db;
    const double dip = before - after;
    worst = std::max(worst, dip), total += dip;
    std::printf("| %lld | %lld | %.3f | %.3f | %+.3f | %.3f |\n", static_cast<long long>(s),
                static_cast<long long>(e ? e->moved : 0), before, after, dip, took);
    std::fflush(stdout);
    rows.push_back({{"step", s},
                    {"moved", e ? e->moved : 0},
                    {"psnr_before", before},
                    {"psnr_after", after},
                    {"seconds", took}});
  }
  const double final_psnr = t.measure().psnr_db;
  std::printf("\nrelocations %zu, largest dip %.3f dB, summed %.3f dB; final PSNR %.3f dB\n", rows.size(), worst, total,
              final_psnr);
  std::printf("seconds: %.4f a step (%lld steps), %.4f a relocation\n", step_seconds / double(std::max<int64_t>(steps, 1)),
              static_cast<long long>(steps), rows.empty() ? 0.0 : grow_seconds / double(rows.size()));
  if (!json_out.empty())
    write_text_atomic(json_out, nlohmann::json{{"preset", preset},
                                                   {"image", image},
                                                   {"width", img.width},
                                                   {"height", img.height},
                                                   {"steps", steps},
                                                   {"every", every},
                                                   {"relocations", rows},
                                                   {"final_psnr", final_psnr}}
                                         .dump(1));
  return 0;
}
