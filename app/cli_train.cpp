#include "app/backend_registry.h"
#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "engine/atomic_file.h"
#include "engine/config_fields.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/folder_lock.h"
#include "engine/insight/spectrum_history.h"
#include "engine/metric_columns.h"
#include "engine/model_files/model_check.h"
#include "engine/training/open_run.h"
#include "engine/training/preset_match.h"
#include "engine/training/run_loop.h"
#include "engine/training/trainer.h"

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

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

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
    const bool exact = !t.record().rows().empty() && t.record().rows().back().step == t.current_step() &&
                       t.record().rows().back().psnr_exact;
    if (exact) t.render_png(t.dataset().image.width, t.dataset().image.height, to_png);
    row = exact ? t.record().rows().back() : t.render_png_measured(to_png);
  }
  AtomicFileWriter weights(dir / "model.redraw");
  // Written chunk by chunk; the weights are checked finite (recovered first if not).
  t.with_checkpoint(source, [&](const Checkpoint& ckpt) { write_checkpoint(weights, ckpt); });
  const std::string csv = metrics_csv(t.record().rows(), t.guard().recoveries());
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
  try { // a field or value the command line names: a usage error (exit 2), as a sweep's --set
    c = with_config_fields(c, o.sets, o.config.empty() ? "preset " + (o.preset.empty() ? k_default_preset : o.preset) : o.config);
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  }
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

/// The run's options from the command line, checked before any file is read (a bad value is a
/// usage error, exit 2).
OpenRunOptions run_options(const TrainCommand& o) {
  if (!o.config.empty() && !o.preset.empty()) throw UsageError("--preset and --config: give one, not both");
  if (o.time_limit && !(*o.time_limit > 0)) throw UsageError("--time-limit: must be a positive number of seconds");
  if (o.checkpoint_every < 0) throw UsageError("--checkpoint-every: must not be negative");
  if (o.snapshot_cap_mb && !(*o.snapshot_cap_mb > 0 && *o.snapshot_cap_mb <= 1 << 20))
    throw UsageError("--snapshot-cap-mb: must be a positive number of MiB");
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
  options.adjust_config = [&o, seed](RunConfig& config, const Checkpoint* resume) {
    if (!resume) return;
    if (!o.config.empty() || !o.preset.empty() || !o.sets.empty())
      print_note("--resume: the network comes from " + o.resume + "; --preset/--config/--set are ignored");
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
  return options;
}

/// The run opened (open_run), its notes printed.
OpenedRun open_training(const TrainCommand& o) {
  OpenedRun opened;
  try {
    opened = open_run({o.image, o.resume}, backend_factory(), run_options(o));
  } catch (const TrainingSizeError& e) { // the engine names no flags; here they are
    throw ConfigError(std::string(e.what()) + " (--size or --max-side)");
  }
  for (const std::string& n : opened.image_info.notes)
    if (n.rfind("shrunk", 0) != 0) print_note(o.image + ": " + n);
  if (!opened.backend_notice.empty()) print_note(opened.backend_notice);
  for (const std::string& n : opened.notices)
    print_note(n);
  // Test hook for the fault tests: REDRAW_TEST_NAN_AT_STEP=N poisons one weight after step N.
  if (const char* v = std::getenv("REDRAW_TEST_NAN_AT_STEP")) opened.trainer->inject_nan_after_step(std::atoll(v));
  return opened;
}

/// One headless run from its output folder to its last line: the folder and its lock, the
/// spectrum rows, the progress display, the checkpoints, and the final save.
class HeadlessRun {
public:
  HeadlessRun(const TrainCommand& o, OpenedRun& opened)
      : m_o(o), m_opened(opened), m_trainer(*opened.trainer), m_out(o.out), m_dir(m_out.path()),
        // One writer per folder (released before `m_out`); only now that the image, the config
        // and the backend are good, so a failed run leaves no empty folder.
        m_lock(m_dir, "redraw train " + o.image), m_total(m_trainer.config().training.steps),
        m_start(m_trainer.current_step()),
        m_spectrum_every(SpectrumHistory::cadence(m_trainer.config().training.metrics_every, m_total)) {
    check_writable_destination(m_dir / "model.redraw");
    if (m_start < m_total) m_spectrum.record(m_trainer); // the untrained (or resumed) network, outside the budget
    if (!o.quiet) print_banner();
    // A time limit is a budget the schedule anneals to (engine/training/schedule.h, docs/training.md).
    if (o.time_limit) m_loop.set_time_budget(*o.time_limit);
    install_interrupt_handler();
    m_loop.set_stop_flag(&stop_flag()); // a signal stops a step between its chunks
    m_seconds0 = m_trainer.clock().elapsed();
  }

  /// Trains to the end, a time limit or a signal (the run loop: engine/training/run_loop.h). False
  /// when the run diverged past its recoveries (said on stderr).
  bool train() {
    LoopEvents events;
    events.stepped = [this](const std::optional<MetricsRow>& row, double) {
      after_step(row);
      return false;
    };
    events.recovered = [this](const std::vector<RecoveryEvent>& found) {
      for (const RecoveryEvent& e : found)
        print_note(recovery_text(e, m_trainer.config().training.max_recoveries));
    };
    const LoopEnd end = m_loop.run(events);
    m_stopped = end == LoopEnd::Stopped || end == LoopEnd::TimeUp;
    if (end != LoopEnd::Diverged) return true;
    if (!m_o.quiet) m_progress.finish();
    print_error(m_loop.diverged() + ". " + what_is_kept());
    return false;
  }

  /// The final save and the summary lines; returns the exit code.
  int finish() {
    const double wall = trained_seconds();
    const int64_t done = m_trainer.current_step() - m_start;
    if (interrupted() && done == 0) { // stopped before this process finished a step: nothing to save
      if (!m_o.quiet) m_progress.finish();
      print_note(std::string("stopped before the first step finished: nothing was written") +
                 (m_last_saved >= 0 || !m_o.resume.empty() ? "; " + m_dir.string() + " is as it was" : ""));
      return interrupted_exit_code();
    }
    // Stopped by a signal: the save must be quick, so final.png is redrawn only when that takes
    // about a second at most (a full-batch SIREN step at 4 MP takes tens of seconds on a CPU).
    const bool picture = !interrupted() || picture_seconds(m_trainer, wall, done) <= 1.0;
    if (interrupted()) print_note("interrupted: saving the run at step " + std::to_string(m_trainer.current_step()));
    std::optional<MetricsRow> saved_row;
    try {
      saved_row = save_run(m_trainer, m_spectrum, m_dir, m_opened.source_image, picture); // found again from any folder
    } catch (const IoError& e) {
      if (!m_o.quiet) m_progress.finish();
      throw IoError(std::string(e.what()) + " (the results were not saved; " +
                    (m_last_saved >= 0 ? "the checkpoint of step " + std::to_string(m_last_saved) + " is kept"
                                       : "earlier files in " + m_dir.string() + " are unchanged") +
                    ")");
    }
    note_device_memory();
    m_out.keep();
    print_summary(saved_row, wall, done);
    return interrupted() ? interrupted_exit_code() : k_exit_ok;
  }

private:
  void print_banner() const {
    const RunConfig& config = m_trainer.config();
    std::fprintf(stderr, "training '%s' on %s (%dx%d %s, %lld parameters) with the %s backend: %s\n",
                 escape_control(preset_label(config)).c_str(), escape_control(m_o.image).c_str(),
                 m_trainer.dataset().image.width, m_trainer.dataset().image.height,
                 color_mode_label(config.data.color_mode, m_trainer.dataset().channels()).c_str(),
                 static_cast<long long>(parameter_count(config.model)), m_trainer.backend().name().c_str(),
                 m_trainer.backend().device_description().c_str());
  }
  /// Training time of this process: time stopped (SIGSTOP, Ctrl+Z) is not in it.
  double trained_seconds() const { return m_trainer.clock().elapsed() - m_seconds0; }

  /// What follows a step: a spectrum row, the progress, a checkpoint (the loop reports the
  /// recoveries a checkpoint of a diverged state makes).
  void after_step(const std::optional<MetricsRow>& row) {
    // spectrum.csv: the error's band powers every spectrum_every steps (this process's steps only:
    // a resumed run's file starts where it resumed). Each row renders the network and waits for
    // the device, so rows are skipped while they have taken more than k_spectrum_budget of the
    // run's time (a fast GPU run keeps its speed and gets fewer rows).
    constexpr double k_spectrum_budget = 0.05;
    const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
    if (m_trainer.current_step() % m_spectrum_every == 0 && m_spectrum_seconds <= k_spectrum_budget * run_s) {
      const auto s0 = std::chrono::steady_clock::now();
      m_spectrum.record(m_trainer);
      m_spectrum_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    }
    if (row) note_device_memory();
    if (row && !m_o.quiet) {
      const double sps = double(m_trainer.current_step() - m_start) / std::max(1e-9, trained_seconds());
      m_progress.update(double(m_trainer.current_step()) / double(std::max<int64_t>(m_total, 1)), describe(*row, sps));
    }
    if (checkpoint_due(m_trainer.current_step(), m_o.checkpoint_every) && m_trainer.current_step() != m_last_saved) {
      if (save_checkpoint_retrying(m_trainer, m_spectrum, m_dir, m_opened.source_image)) {
        m_out.keep();
        m_last_saved = m_trainer.current_step();
      }
    }
  }

  /// After a divergence past the recoveries: what is said to be kept is what opens, so the
  /// checkpoint is opened as render and --resume would.
  std::string what_is_kept() const {
    if (m_last_saved < 0) return "Nothing was written.";
    const std::filesystem::path model = m_dir / "model.redraw";
    const std::string why = write_error([&] { (void)open_model(model); });
    return "The last checkpoint (step " + std::to_string(m_last_saved) + ") in " + m_dir.string() +
           (why.empty() ? " is kept; it renders and resumes (--resume " + model.string() + ")."
                        : " is kept, but it does not open: " + why);
  }

  /// The device's memory in use, kept at its peak: read at every metrics row and the final save (the
  /// step's and the render's workspaces are then both allocated), never between, so steps never wait.
  void note_device_memory() { m_peak_device = std::max(m_peak_device, m_trainer.backend().device_memory_in_use()); }

  void print_summary(const std::optional<MetricsRow>& saved_row, double wall, int64_t done) {
    const double sps = double(done) / std::max(1e-9, wall);
    if (saved_row) {
      if (!m_o.quiet) m_progress.finish(describe(*saved_row, sps));
      std::printf("%s: %lld steps, PSNR %s, %s -> %s\n", m_stopped ? "stopped" : "done",
                  static_cast<long long>(m_trainer.current_step()), psnr_text(saved_row->psnr_db).c_str(),
                  format_seconds(m_trainer.clock().elapsed()).c_str(),
                  escape_control((m_dir / "final.png").string()).c_str());
    } else {
      if (!m_o.quiet) m_progress.finish();
      const std::filesystem::path model = m_dir / "model.redraw";
      std::printf("stopped: %lld steps, %s -> %s\n", static_cast<long long>(m_trainer.current_step()),
                  format_seconds(m_trainer.clock().elapsed()).c_str(), escape_control(model.string()).c_str());
      print_note(
          "final.png was not redrawn, to stop at once; `redraw render " + model.string() + " -o " +
          (m_dir / "final.png").string() + "` draws it" +
          (std::filesystem::exists(m_dir / "final.png") ? " (the one there is from an earlier checkpoint)" : ""));
    }
    if (m_trainer.sampler().rows() > 0) { // what the sampled rows cost (the floor: at most 5% of the training time)
      const double share = 100.0 * m_trainer.sampler().row_seconds() / std::max(1e-9, wall);
      std::printf("metrics rows: %lld sampled, %.2f s, %.1f%% of the training time\n",
                  static_cast<long long>(m_trainer.sampler().rows()), m_trainer.sampler().row_seconds(), share);
    }
    if (m_peak_device >= 0) // `redraw sweep` and `redraw bench` read this line (peak_device_bytes)
      std::printf("%s%lld bytes (%.0f MiB) in use on the device at most, this process's and any other's\n",
                  k_peak_device_line, static_cast<long long>(m_peak_device), double(m_peak_device) / 1048576.0);
    if (!m_trainer.guard().recoveries().empty())
      print_note(std::to_string(m_trainer.guard().recoveries().size()) +
                 " recovered divergence(s) in this run; the learning rate is x" +
                 format_number(m_trainer.guard().lr_scale()) + " (see the event column of metrics.csv)");
  }

  const TrainCommand& m_o;
  OpenedRun& m_opened;
  Trainer& m_trainer;
  RunLoop m_loop{m_trainer}; ///< to the run's total steps
  OutputFolder m_out;
  const std::filesystem::path& m_dir;
  const FolderLock m_lock;
  const int64_t m_total, m_start, m_spectrum_every;
  SpectrumHistory m_spectrum;
  double m_spectrum_seconds = 0;
  Progress m_progress{"train"};
  const std::chrono::steady_clock::time_point m_t0 = std::chrono::steady_clock::now();
  double m_seconds0 = 0;
  bool m_stopped = false;
  int64_t m_last_saved = -1;
  int64_t m_peak_device = -1; ///< -1: no device (the CPU backend)
};

} // namespace

int run_train(const TrainCommand& o) {
  OpenedRun opened = open_training(o);
  HeadlessRun run(o, opened);
  if (!run.train()) return k_exit_failure;
  return run.finish();
}

} // namespace redraw::cli
