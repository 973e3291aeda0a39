#pragma once
/// The batch scripts of `redraw sweep --slurm`: a job array (a task per cell) and a collect job.
/// - Every value that reaches an `#SBATCH` line is checked first (check_slurm_job): a control
///   character (a newline would end the line and start a command), a double quote or a backslash
///   (sbatch's own quoting) is refused, naming the option; nothing is written or submitted then.
/// - Values are double-quoted on their `#SBATCH` lines, so a space or an apostrophe stays in them;
///   a `%` in a file name is written `%%` (Slurm expands `%` in --output as a file pattern).
/// - The commands the tasks run are single-quoted shell words.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace redraw {

/// What the jobs ask of Slurm, beside sbatch's own arguments (passed as they are).
struct SlurmJob {
  std::string redraw;           ///< the program each task runs
  std::filesystem::path dir;    ///< the sweep's folder (absolute)
  int64_t cells = 0;            ///< array tasks 0 .. cells - 1
  std::string partition, time;  ///< --partition, --time (empty: Slurm's default)
  std::optional<int32_t> gpus_per_task, cpus_per_task;
};

/// ConfigError naming the option ("--out", "--partition", "--time") when a value cannot be
/// written into an #SBATCH line as it is.
void check_slurm_job(const SlurmJob& job);

/// `path` as a Slurm file-name pattern that names exactly that file (each `%` doubled).
std::string slurm_literal_path(const std::string& path);

/// The job array's script: cells.sbatch. check_slurm_job first.
std::string slurm_cells_script(const SlurmJob& job);
/// The collect job's script: collect.sbatch. check_slurm_job first.
std::string slurm_collect_script(const SlurmJob& job);

} // namespace redraw
