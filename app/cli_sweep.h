#pragma once
/// The parts of `redraw sweep` (docs/cli.md, "redraw sweep"):
/// - cli_sweep.cpp: the command: the grid planned and printed, then run here, submitted to Slurm,
///   or collected;
/// - cli_sweep_cell.cpp: one cell, run as a child `redraw train` process in its folder (CellRun);
/// - cli_sweep_run.cpp: the cells side by side on this machine (run_sweep_cells), and one cell
///   alone (a Slurm array task, run_one_cell);
/// - cli_sweep_report.cpp: results.csv, summary.csv and report.html (collect_sweep);
/// - cli_sweep_slurm.cpp: the job array and the collect job (submit_sweep).
/// A cell runs as a child process rather than in this one: a cell that crashes, runs out of memory
/// or diverges takes nothing else down; each process has its own CPU thread team (--threads), so
/// cells run side by side; and a Slurm task runs a cell exactly as this machine does.
#include "app/cli_commands.h"
#include "engine/folder_lock.h"
#include "engine/sweep/sweep_jobs.h"
#include "engine/sweep/sweep_results.h"
#include "engine/sweep/sweep_table.h"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace redraw::cli {

/// The largest metrics.csv a sweep reads (the history limit's 2^21 rows at about 100 bytes each).
inline constexpr uint64_t k_max_metrics_bytes = uint64_t(256) << 20;

/// A figure from elsewhere (a paper's row) drawn on report.html's PSNR-against-time charts as a
/// dashed horizontal line at its PSNR, labelled; never mixed with the cells' figures.
struct ReportReference {
  std::string label; ///< "GaussianImage (published, 560K, 107 s)"
  double psnr_db = 0;
};

/// What every cell of one sweep run shares.
struct SweepSite {
  std::filesystem::path dir; ///< the sweep's folder (absolute)
  const SweepPlan* plan = nullptr;
  std::string redraw; ///< this program's path, run for each cell
  bool retry_failed = false;
  std::vector<ReportReference> references; ///< drawn on report.html's charts (redraw bench's published rows)
  std::string title = "Redraw sweep";      ///< report.html's heading, before the folder's name
};

/// The lock file a sweep holds in a cell's folder while it runs the cell (train holds its own,
/// .redraw-lock, in the same folder).
inline constexpr const char* k_cell_lock_name = ".sweep-lock";

/// One cell run as `redraw train` in DIR/cells/<name>/: its lock, its process, its result.
class CellRun {
public:
  enum class Start {
    Started, ///< its train process runs: wait for pid(), then finish()
    Ended,   ///< it had ended before (done, or failed without --retry-failed): result()
    Busy,    ///< another process runs it now
  };
  CellRun(const SweepSite& site, const SweepCell& cell, int32_t threads);
  /// Takes the cell's lock and starts its process when it has not ended yet. IoError when its
  /// folder cannot be made or the process cannot start.
  Start start();
  pid_t pid() const { return m_pid; }
  const SweepCell& cell() const { return m_cell; }
  /// Seconds since start().
  double seconds() const;
  /// The process ended with `wait_status` (waitpid's): measures the cell and writes its
  /// result.json (done or failed; a cell stopped by a signal stays unfinished), then releases the
  /// lock. Never throws: a result that cannot be written is a note. `peak_rss_bytes`: the
  /// process's peak resident memory (wait4's ru_maxrss), 0 when not known.
  const CellResult& finish(int wait_status, int64_t peak_rss_bytes = 0);
  const CellResult& result() const { return m_result; }

private:
  std::vector<std::string> train_arguments() const;
  void spawn(const std::vector<std::string>& args);
  void measure_done();
  std::string error_from_log() const;

  const SweepSite& m_site;
  const SweepCell& m_cell;
  const int32_t m_threads;
  const std::filesystem::path m_folder;
  std::optional<FolderLock> m_lock;
  pid_t m_pid = -1;
  std::chrono::steady_clock::time_point m_t0;
  uintmax_t m_log_start = 0; ///< where this run's lines start in train.log
  CellResult m_result;
};

/// This program's path (/proc/self/exe), run for each cell. IoError when it cannot be found.
std::string self_path();

/// The exit code of a sweep that ended with cells still running in another process (another sweep
/// or a Slurm task on the same folder): run it again once they end (docs/cli.md, exit codes).
constexpr int k_exit_cells_elsewhere = 3;

/// A cell's name as printed: sweep.json may come from anyone, so its control characters are escaped
/// (engine/display_text.h) and a name never drives the terminal.
std::string shown_name(const SweepCell& cell);

/// One line for a cell that ended: "done 003-... 2000 steps 10.0 s PSNR 28.41 dB SSIM 0.8123".
std::string cell_line(const SweepCell& cell, const CellResult& r);

/// Runs the cells `todo` (indices) `jobs.jobs` at a time with the Progress bar and a line per cell;
/// returns the indices of the cells found running in another process (skipped here). Stops (and
/// stops its cells, which save) on SIGINT, SIGTERM or SIGHUP.
std::vector<int64_t> run_sweep_cells(const SweepSite& site, const std::vector<int64_t>& todo, const SweepJobs& jobs);
/// Runs cell `index` alone with `threads` (a Slurm array task); returns the exit code.
int run_one_cell(const SweepSite& site, int64_t index, int32_t threads);

/// Every cell's result (result.json, or pending/unfinished), then results.csv, summary.csv and
/// report.html written atomically in the sweep's folder.
std::vector<CellResult> collect_sweep(const SweepSite& site);
/// results.csv alone (after each cell, for a reader watching the sweep).
void write_results_csv(const SweepSite& site);
/// report.html: one self-contained page (sortable table, thumbnails, PSNR-against-time curves).
std::string sweep_report_html(const SweepSite& site, const std::vector<CellResult>& results);

/// Writes DIR/slurm/cells.sbatch and collect.sbatch and submits them: the cells as one job array,
/// the collect job after it (afterany). Returns the exit code.
int submit_sweep(const SweepSite& site, const SweepCommand& o);
/// UsageError naming the option when --out, --partition or --time cannot go into the batch
/// scripts as they are (engine/sweep/slurm_script.h); called before anything is written.
void check_slurm_options(const SweepSite& site, const SweepCommand& o);

/// The cells of `site` still to train: not done, and not failed unless --retry-failed (sweep and
/// bench alike).
std::vector<int64_t> cells_to_run(const SweepSite& site);

} // namespace redraw::cli
