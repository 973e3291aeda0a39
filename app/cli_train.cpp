#include "app/backend_registry.h"
#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "engine/trainer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace redraw::cli {

namespace {

std::string metrics_csv(const std::vector<MetricsRow>& rows) {
  std::ostringstream s;
  s << "step,loss,psnr_db,lr,seconds\n";
  char b[160];
  for (const auto& r : rows) {
    std::snprintf(b, sizeof b, "%lld,%.9g,%.6f,%.9g,%.4f\n", static_cast<long long>(r.step), r.loss, r.psnr_db, r.lr,
                  r.seconds);
    s << b;
  }
  return s.str();
}

void save_run(Trainer& t, const std::filesystem::path& dir, const std::string& source) {
  save_checkpoint(dir / "model.redraw", t.checkpoint(source));
  const std::string csv = metrics_csv(t.history());
  write_file_atomic(dir / "metrics.csv", std::span(reinterpret_cast<const uint8_t*>(csv.data()), csv.size()));
}

std::string describe(const MetricsRow& r, double steps_per_s) {
  char b[160];
  std::snprintf(b, sizeof b, "step %lld  loss %.4g  PSNR %.2f dB  lr %.3g  %.1f steps/s",
                static_cast<long long>(r.step), r.loss, r.psnr_db, r.lr, steps_per_s);
  return b;
}

/// --seed: a decimal whole number in [0, k_max_seed], with nothing else (no sign, no wrap-around).
uint64_t parse_seed(const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw UsageError("--seed: '" + text + "' is not a whole number in [0, " + std::to_string(k_max_seed) + "]");
  return v;
}

/// The preset or config with the command line's overrides: size_w x size_h is the parsed --size
/// (0 = none), `seed` the parsed --seed.
RunConfig build_config(const TrainCommand& o, int32_t size_w, int32_t size_h, std::optional<uint64_t> seed) {
  RunConfig c;
  if (!o.config.empty())
    c = load_run_config(o.config);
  else
    c = load_preset(o.preset.empty() ? k_default_preset : o.preset);
  if (size_w > 0) {
    c.data.width = size_w;
    c.data.height = size_h;
  } else if (o.max_side) {
    if (*o.max_side < 1) throw UsageError("--max-side: must be at least 1");
    c.data.max_side = *o.max_side;
    c.data.width = c.data.height = 0;
  }
  if (o.steps) {
    if (*o.steps < 0) throw UsageError("--steps: must not be negative");
    c.training.steps = *o.steps;
  }
  if (seed) c.training.seed = *seed;
  if (!o.color.empty()) c.data.color_mode = parse_color_mode(o.color);
  c.model.output_channels = channels_of(c.data.color_mode);
  return c;
}

} // namespace

int run_train(const TrainCommand& o) {
  if (!o.config.empty() && !o.preset.empty()) throw UsageError("--preset and --config: give one, not both");
  if (o.time_limit && !(*o.time_limit > 0)) throw UsageError("--time-limit: must be a positive number of seconds");
  if (o.checkpoint_every < 0) throw UsageError("--checkpoint-every: must not be negative");
  if (o.snapshot_cap_mb && !(*o.snapshot_cap_mb > 0 && *o.snapshot_cap_mb <= 1 << 20))
    throw UsageError("--snapshot-cap-mb: must be a positive number of MiB");
  // Option values are checked before any file is read, so a bad one is a usage error (exit 2).
  int32_t size_w = 0, size_h = 0;
  if (!o.size.empty()) parse_size(o.size, "--size", {k_max_train_side, k_max_train_pixels}, size_w, size_h);
  std::optional<uint64_t> seed;
  if (!o.seed.empty()) seed = parse_seed(o.seed);

  RunConfig config;
  std::optional<Checkpoint> resume;
  if (!o.resume.empty()) {
    resume = load_checkpoint(o.resume);
    if (!o.config.empty() || !o.preset.empty())
      print_note("--resume: the network comes from " + o.resume + "; --preset/--config are ignored");
    config = resume->config;
    config.data.width = resume->image_width;
    config.data.height = resume->image_height;
    if (o.steps) config.training.steps = *o.steps;
    if (!o.size.empty() || o.max_side || seed || !o.color.empty())
      print_note("--resume keeps the model's training size, seed and colour mode");
    if (resume->step >= config.training.steps)
      print_note(o.resume + " has already done " + std::to_string(resume->step) + " of " +
                 std::to_string(config.training.steps) + " steps; pass a larger --steps to continue");
  } else {
    config = build_config(o, size_w, size_h, seed);
  }

  Image img = prepare_training_image(o.image, config.data);
  std::string notice;
  auto backend = make_backend(o.backend, &notice, o.precision);
  if (!notice.empty()) print_note(notice);
  Trainer trainer(std::move(backend), config, Dataset{std::move(img)});
  if (o.snapshot_cap_mb) trainer.set_snapshot_cap_bytes(size_t(*o.snapshot_cap_mb * double(1 << 20)));
  if (resume) trainer.restore(*resume);

  // Only now that the image, the config and the backend are good: a failed run leaves no empty folder.
  const std::filesystem::path out_dir = o.out;
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw IoError(out_dir.string() + ": cannot create the output folder (" + ec.message() + ")");
  check_writable_destination(out_dir / "model.redraw");

  const int64_t total = config.training.steps;
  const int64_t start = trainer.current_step();
  if (!o.quiet)
    std::fprintf(stderr, "training '%s' on %s (%dx%d %s, %lld parameters) with the %s backend: %s\n",
                 config.name.c_str(), o.image.c_str(), trainer.dataset().image.width, trainer.dataset().image.height,
                 color_mode_label(config.data.color_mode, trainer.dataset().channels()).c_str(),
                 static_cast<long long>(parameter_count(trainer.config().model)), trainer.backend().name().c_str(),
                 trainer.backend().device_description().c_str());

  install_interrupt_handler();
  Progress progress("train");
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<MetricsRow> last;
  bool diverged = false, stopped = false;
  int64_t last_saved = start;
  while (trainer.current_step() < total) {
    if (interrupted()) {
      stopped = true;
      print_note("interrupted: saving the run so far");
      break;
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (o.time_limit && wall >= *o.time_limit) {
      stopped = true;
      break;
    }
    if (auto row = trainer.step()) {
      last = row;
      if (!std::isfinite(row->loss) || !std::isfinite(row->psnr_db)) {
        diverged = true;
        break;
      }
      wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double sps = double(trainer.current_step() - start) / std::max(1e-9, wall);
      if (!o.quiet)
        progress.update(double(trainer.current_step()) / double(std::max<int64_t>(total, 1)), describe(*row, sps));
    }
    if (o.checkpoint_every > 0 && trainer.current_step() % o.checkpoint_every == 0) {
      save_run(trainer, out_dir, o.image);
      last_saved = trainer.current_step();
    }
  }
  trainer.pause_clock();
  if (diverged) {
    if (!o.quiet) progress.finish();
    print_error("training diverged: the loss became " + std::to_string(last->loss) + " at step " +
                std::to_string(last->step) + "; try a lower learning rate. " +
                (last_saved > start ? "The last good checkpoint (step " + std::to_string(last_saved) + ") in " +
                                          out_dir.string() + " is kept."
                                    : std::string("Nothing was written.")));
    return k_exit_failure;
  }
  const MetricsRow final_row = trainer.current_step() > start || !last ? trainer.measure() : *last;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.quiet) progress.finish(describe(final_row, double(trainer.current_step() - start) / std::max(1e-9, wall)));

  write_png(out_dir / "final.png", trainer.render(trainer.dataset().image.width, trainer.dataset().image.height));
  save_run(trainer, out_dir, o.image);
  std::printf("%s: %lld steps, PSNR %.2f dB, %s -> %s\n", stopped ? "stopped" : "done",
              static_cast<long long>(trainer.current_step()), final_row.psnr_db,
              format_seconds(trainer.elapsed_seconds()).c_str(), (out_dir / "final.png").string().c_str());
  return interrupted() ? 130 : k_exit_ok;
}

} // namespace redraw::cli
