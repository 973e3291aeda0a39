#include "app/backend_registry.h"
#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "engine/atomic_file.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/folder_lock.h"
#include "engine/model_check.h"
#include "engine/open_run.h"
#include "engine/spectrum_history.h"
#include "engine/preset_match.h"
#include "engine/trainer.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

namespace redraw::cli {

namespace {

/// metrics.csv: the history, with a row for each recovery from a divergence placed where the run
/// went back to (its loss, PSNR and lr empty, its `event` column saying what happened).
std::string metrics_csv(const std::vector<MetricsRow>& rows, const std::vector<RecoveryEvent>& events) {
  std::ostringstream s;
  s << "step,loss,psnr_db,psnr_from,lr,seconds,event\n";
  char b[320];
  size_t next_event = 0;
  const auto flush_events = [&](int64_t before_step) {
    for (; next_event < events.size() && events[next_event].rolled_back_to < before_step; ++next_event) {
      const RecoveryEvent& e = events[next_event];
      std::snprintf(b, sizeof b, "%lld,,,,,%.4f,\"diverged (%s); back to step %lld; lr x%g from now on; recovery %d\"\n",
                    static_cast<long long>(e.step), e.seconds, e.reason.c_str(),
                    static_cast<long long>(e.rolled_back_to), e.lr_scale, e.attempt);
      s << b;
    }
  };
  for (const auto& r : rows) {
    flush_events(r.step);
    std::snprintf(b, sizeof b, "%lld,%.9g,%.6f,%s,%.9g,%.4f,\n", static_cast<long long>(r.step), r.loss, r.psnr_db,
                  psnr_source(r), r.lr, r.seconds);
    s << b;
  }
  flush_events(std::numeric_limits<int64_t>::max());
  return s.str();
}

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

/// Writes the run as one consistent set: final.png (the network at the training size),
/// metrics.csv, spectrum.csv (the error's band powers, with a row for this step) and
/// model.redraw, all of the same step. Each is written to a temp file first; only when all four
/// are complete are they renamed into place, the model last. A failure (full disk) leaves the
/// earlier set untouched. Without `with_picture` (a stop that must be quick) final.png is left as
/// it was and the last row is the history's own; returns nothing then.
std::optional<MetricsRow> save_run(Trainer& t, SpectrumHistory& spectrum, const std::filesystem::path& dir,
                                   const std::string& source, bool with_picture = true) {
  std::optional<AtomicFileWriter> png;
  AtomicFileWriter metrics(dir / "metrics.csv"), bands(dir / "spectrum.csv");
  std::optional<MetricsRow> row;
  if (with_picture) {
    png.emplace(dir / "final.png");
    // Encoded into its temp file band by band: a 24 MP picture's PNG is never held in memory. The
    // saved step's row holds the exact PSNR over every pixel (the rows before it were sampled),
    // measured from final.png's own predictions when the history lacks it: one pass, not two.
    const auto to_png = [&](const uint8_t* d, size_t n) { png->write(d, n); };
    const bool exact =
        !t.history().empty() && t.history().back().step == t.current_step() && t.history().back().psnr_exact;
    if (exact) t.render_png(t.dataset().image.width, t.dataset().image.height, to_png);
    row = exact ? t.history().back() : t.render_png_measured(to_png);
  }
  AtomicFileWriter weights(dir / "model.redraw");
  // Written chunk by chunk; the weights are checked finite (recovered first if not).
  t.with_checkpoint(source, [&](const Checkpoint& ckpt) { write_checkpoint(weights, ckpt); });
  const std::string csv = metrics_csv(t.history(), t.recoveries());
  spectrum.record(t);
  const std::string spectrum_rows = spectrum.csv();
  metrics.write(bytes_of(csv));
  bands.write(bytes_of(spectrum_rows));
  std::vector<AtomicFileWriter*> set = {&metrics, &bands, &weights};
  if (png) set.insert(set.begin(), &*png);
  commit_together(set);
  return row;
}

/// Seconds final.png would take: a forward pass over every pixel, a third of a full-batch step's
/// work (forward, backward and update), scaled from the steps this process has timed.
double picture_seconds(Trainer& t, double seconds, int64_t steps) {
  if (steps <= 0) return std::numeric_limits<double>::infinity();
  const int64_t pixels = int64_t(t.dataset().image.width) * t.dataset().image.height;
  const int64_t batch = t.backend().setup().batch_size;
  const int64_t rows = batch > 0 ? std::min<int64_t>(batch, pixels) : pixels;
  return seconds / double(steps) * double(pixels) / double(std::max<int64_t>(rows, 1)) / 3.0;
}

/// A checkpoint during the run: tried three times; when it still fails the run goes on (and
/// tries again at the next checkpoint) instead of being lost. Returns whether it was written.
bool save_checkpoint_retrying(Trainer& t, SpectrumHistory& spectrum, const std::filesystem::path& dir,
                              const std::string& source) {
  constexpr int k_attempts = 3;
  for (int attempt = 1;; ++attempt) {
    try {
      (void)save_run(t, spectrum, dir, source);
      return true;
    } catch (const IoError& e) {
      if (attempt == k_attempts) {
        print_note("checkpoint at step " + std::to_string(t.current_step()) + " not written after " +
                   std::to_string(k_attempts) + " tries (" + e.what() +
                   "); training goes on, and the next checkpoint tries again");
        return false;
      }
      print_note("checkpoint at step " + std::to_string(t.current_step()) + " failed (" + e.what() + "); retrying");
      std::this_thread::sleep_for(std::chrono::milliseconds(250 * attempt));
    }
  }
}

std::string format_number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

/// "31.42 dB", or "exact (MSE 0)" for a perfect fit (+inf dB, which is no divergence).
std::string psnr_text(double db) {
  if (std::isinf(db) && db > 0) return "exact (MSE 0)";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f dB", db);
  return b;
}

std::string describe(const MetricsRow& r, double steps_per_s) {
  char b[160];
  // "~": estimated on the metrics sample; the final line's PSNR is exact.
  std::string psnr = psnr_text(r.psnr_db);
  if (!r.psnr_exact) psnr.insert(psnr.begin(), '~');
  std::snprintf(b, sizeof b, "step %lld  loss %.4g  PSNR %s  lr %.3g  %.1f steps/s", static_cast<long long>(r.step),
                r.loss, psnr.c_str(), r.lr, steps_per_s);
  return b;
}

void report_recoveries(Trainer& t, int32_t limit) {
  for (const RecoveryEvent& e : t.take_new_recoveries()) {
    char b[96];
    std::snprintf(b, sizeof b, "; learning rate x%g from now on (recovery %d of %d)", e.lr_scale, e.attempt, limit);
    print_note("training diverged at step " + std::to_string(e.step) + " (" + e.reason + "): went back to step " +
               std::to_string(e.rolled_back_to) + ", the last good state" + b);
  }
}

/// Removes the output folder at the end of a failed run when this run created it and left it
/// empty, so a failure leaves nothing behind.
class OutputFolder {
public:
  explicit OutputFolder(std::filesystem::path dir) : m_dir(std::move(dir)) {
    std::error_code ec;
    m_created = !std::filesystem::exists(m_dir, ec);
    std::filesystem::create_directories(m_dir, ec);
    if (ec) throw IoError(m_dir.string() + ": cannot create the output folder (" + ec.message() + ")");
  }
  ~OutputFolder() {
    if (!m_created || m_keep) return;
    std::error_code ec;
    if (std::filesystem::is_empty(m_dir, ec) && !ec) std::filesystem::remove(m_dir, ec);
  }
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;
  void keep() { m_keep = true; }
  const std::filesystem::path& path() const { return m_dir; }

private:
  std::filesystem::path m_dir;
  bool m_created = false, m_keep = false;
};

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
  } else if (o.max_side || o.full) {
    const int32_t side = o.full ? 0 : *o.max_side;
    if (side < 0) throw UsageError("--max-side: must be at least 1, or 0 for full resolution");
    c.data.max_side = side; // 0: the image's own size (still within the training-size limits)
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

  OpenRunOptions options;
  options.backend = o.backend;
  options.precision = o.precision;
  options.limits = decode_limits(o.max_image_memory_mb);
  if (o.snapshot_cap_mb) options.snapshot_cap_bytes = size_t(*o.snapshot_cap_mb * double(1 << 20));
  if (o.resume.empty()) options.config = build_config(o, size_w, size_h, seed);
  options.adjust_config = [&](RunConfig& config, const Checkpoint* resume) {
    if (!resume) return;
    if (!o.config.empty() || !o.preset.empty())
      print_note("--resume: the network comes from " + o.resume + "; --preset/--config are ignored");
    if (o.steps) {
      if (*o.steps < resume->step)
        throw UsageError("--steps " + std::to_string(*o.steps) + " is below the " + std::to_string(resume->step) +
                         " steps " + o.resume + " has done; give at least that many (or leave --steps out)");
      config.training.steps = *o.steps;
    }
    if (!o.size.empty() || o.max_side || o.full || seed || !o.color.empty())
      print_note("--resume keeps the model's training size, seed and colour mode");
    if (resume->step >= config.training.steps)
      print_note(o.resume + " has already done " + std::to_string(resume->step) + " of " +
                 std::to_string(config.training.steps) + " steps; pass a larger --steps to continue");
  };
  OpenedRun opened;
  try {
    opened = open_run({o.image, o.resume}, backend_factory(), options);
  } catch (const TrainingSizeError& e) { // the engine names no flags; here they are
    throw ConfigError(std::string(e.what()) + " (--size or --max-side)");
  }
  for (const std::string& n : opened.image_info.notes)
    if (n.rfind("shrunk", 0) != 0) print_note(o.image + ": " + n);
  if (!opened.backend_notice.empty()) print_note(opened.backend_notice);
  for (const std::string& n : opened.notices) print_note(n);
  Trainer& trainer = *opened.trainer;
  const RunConfig& config = trainer.config();
  // Test hook for the fault tests: REDRAW_TEST_NAN_AT_STEP=N poisons one weight after step N.
  if (const char* v = std::getenv("REDRAW_TEST_NAN_AT_STEP")) trainer.inject_nan_after_step(std::atoll(v));

  // Only now that the image, the config and the backend are good: a failed run leaves no empty folder.
  OutputFolder out(o.out);
  const std::filesystem::path& out_dir = out.path();
  const FolderLock lock(out_dir, "redraw train " + o.image); // one writer per folder (released before `out`)
  check_writable_destination(out_dir / "model.redraw");

  const int64_t total = config.training.steps;
  const int64_t start = trainer.current_step();
  const int32_t recoveries = config.training.max_recoveries;
  // spectrum.csv: the error's band powers every spectrum_every steps (this process's steps only:
  // a resumed run's file starts where it resumed). Each row renders the network and waits for the
  // device, so rows are skipped while they have taken more than k_spectrum_budget of the run's
  // time (a fast GPU run keeps its speed and gets fewer rows).
  SpectrumHistory spectrum;
  const int64_t spectrum_every = SpectrumHistory::cadence(config.training.metrics_every, total);
  constexpr double k_spectrum_budget = 0.05;
  double spectrum_seconds = 0;
  const auto record_spectrum = [&] {
    const auto s0 = std::chrono::steady_clock::now();
    spectrum.record(trainer);
    spectrum_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
  };
  if (start < total) spectrum.record(trainer); // the untrained (or resumed) network, outside the budget
  if (!o.quiet)
    std::fprintf(stderr, "training '%s' on %s (%dx%d %s, %lld parameters) with the %s backend: %s\n",
                 escape_control(preset_label(config)).c_str(), escape_control(o.image).c_str(), trainer.dataset().image.width,
                 trainer.dataset().image.height,
                 color_mode_label(config.data.color_mode, trainer.dataset().channels()).c_str(),
                 static_cast<long long>(parameter_count(trainer.config().model)), trainer.backend().name().c_str(),
                 trainer.backend().device_description().c_str());

  // A time limit is a budget the schedule anneals to (engine/schedule.h, docs/training.md).
  if (o.time_limit) trainer.set_time_budget(*o.time_limit);
  install_interrupt_handler();
  trainer.set_stop_flag(&stop_flag()); // a signal stops a step between its chunks
  Progress progress("train");
  const auto t0 = std::chrono::steady_clock::now();
  // Training time of this process: time stopped (SIGSTOP, Ctrl+Z) is not in it.
  const double seconds0 = trainer.elapsed_seconds();
  const auto trained_seconds = [&] { return trainer.elapsed_seconds() - seconds0; };
  bool stopped = false;
  int64_t last_saved = -1;
  try {
    for (;;) {
      while (trainer.current_step() < total) {
        if (interrupted()) {
          stopped = true;
          break;
        }
        double wall = trained_seconds();
        if (o.time_limit && wall >= *o.time_limit) {
          stopped = true;
          break;
        }
        const auto row = trainer.step();
        if (interrupted()) continue; // the step may have been left unfinished: the check above stops
        report_recoveries(trainer, recoveries);
        if (trainer.current_step() % spectrum_every == 0 &&
            spectrum_seconds <=
                k_spectrum_budget * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())
          record_spectrum();
        if (row) {
          wall = trained_seconds();
          const double sps = double(trainer.current_step() - start) / std::max(1e-9, wall);
          if (!o.quiet)
            progress.update(double(trainer.current_step()) / double(std::max<int64_t>(total, 1)), describe(*row, sps));
        }
        if (checkpoint_due(trainer.current_step(), o.checkpoint_every) && trainer.current_step() != last_saved) {
          if (save_checkpoint_retrying(trainer, spectrum, out_dir, opened.source_image)) {
            out.keep();
            last_saved = trainer.current_step();
          }
          report_recoveries(trainer, recoveries); // a checkpoint of a diverged state recovers first
        }
      }
      trainer.pause_clock();
      // A divergence since the last metrics step is found here, before anything is written.
      const bool recovered = trainer.ensure_finite();
      report_recoveries(trainer, recoveries);
      if (!recovered || stopped) break;
    }
  } catch (const DivergedError& e) {
    if (!o.quiet) progress.finish();
    // What is said to be kept is what opens: the checkpoint is opened as render and --resume would.
    std::string kept = "Nothing was written.";
    if (last_saved >= 0) {
      const std::filesystem::path model = out_dir / "model.redraw";
      const std::string why = write_error([&] { (void)open_model(model); });
      kept = "The last checkpoint (step " + std::to_string(last_saved) + ") in " + out_dir.string() +
             (why.empty() ? " is kept; it renders and resumes (--resume " + model.string() + ")."
                          : " is kept, but it does not open: " + why);
    }
    print_error(std::string(e.what()) + ". " + kept);
    return k_exit_failure;
  }
  const double wall = trained_seconds();
  const int64_t done = trainer.current_step() - start;
  if (interrupted() && done == 0) { // stopped before this process finished a step: nothing to save
    if (!o.quiet) progress.finish();
    print_note(std::string("stopped before the first step finished: nothing was written") +
               (last_saved >= 0 || !o.resume.empty() ? "; " + out_dir.string() + " is as it was" : ""));
    return interrupted_exit_code();
  }
  // Stopped by a signal: the save must be quick, so final.png is redrawn only when that takes
  // about a second at most (a full-batch SIREN step at 4 MP takes tens of seconds on a CPU).
  const bool picture = !interrupted() || picture_seconds(trainer, wall, done) <= 1.0;
  if (interrupted()) print_note("interrupted: saving the run at step " + std::to_string(trainer.current_step()));
  std::optional<MetricsRow> saved_row;
  try {
    saved_row = save_run(trainer, spectrum, out_dir, opened.source_image, picture); // found again from any folder
  } catch (const IoError& e) {
    if (!o.quiet) progress.finish();
    throw IoError(std::string(e.what()) + " (the results were not saved; " +
                  (last_saved >= 0 ? "the checkpoint of step " + std::to_string(last_saved) + " is kept"
                                   : "earlier files in " + out_dir.string() + " are unchanged") +
                  ")");
  }
  out.keep();
  const double sps = double(done) / std::max(1e-9, wall);
  if (saved_row) {
    if (!o.quiet) progress.finish(describe(*saved_row, sps));
    std::printf("%s: %lld steps, PSNR %s, %s -> %s\n", stopped ? "stopped" : "done",
                static_cast<long long>(trainer.current_step()), psnr_text(saved_row->psnr_db).c_str(),
                format_seconds(trainer.elapsed_seconds()).c_str(), escape_control((out_dir / "final.png").string()).c_str());
  } else {
    if (!o.quiet) progress.finish();
    const std::filesystem::path model = out_dir / "model.redraw";
    std::printf("stopped: %lld steps, %s -> %s\n", static_cast<long long>(trainer.current_step()),
                format_seconds(trainer.elapsed_seconds()).c_str(), escape_control(model.string()).c_str());
    print_note("final.png was not redrawn, to stop at once; `redraw render " + model.string() + " -o " +
               (out_dir / "final.png").string() + "` draws it" +
               (std::filesystem::exists(out_dir / "final.png") ? " (the one there is from an earlier checkpoint)" : ""));
  }
  if (trainer.metric_rows() > 0) { // what the sampled rows cost (the floor: at most 5% of the training time)
    const double share = 100.0 * trainer.metric_row_seconds() / std::max(1e-9, wall);
    std::printf("metrics rows: %lld sampled, %.2f s, %.1f%% of the training time\n",
                static_cast<long long>(trainer.metric_rows()), trainer.metric_row_seconds(), share);
  }
  if (!trainer.recoveries().empty())
    print_note(std::to_string(trainer.recoveries().size()) + " recovered divergence(s) in this run; the learning rate is x" +
               format_number(trainer.lr_scale()) + " (see the event column of metrics.csv)");
  return interrupted() ? interrupted_exit_code() : k_exit_ok;
}

} // namespace redraw::cli
