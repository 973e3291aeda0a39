#include "engine/sweep/slurm_script.h"

#include "engine/errors.h"

namespace redraw {

namespace {
/// A word for a shell script, single-quoted.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void check_value(const char* option, const std::string& value, const char* what) {
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      throw ConfigError(std::string(option) + ": " + what +
                        " holds a control character (a newline or a tab, say), which an #SBATCH line cannot carry");
    if (c == '"' || c == '\\')
      throw ConfigError(std::string(option) + ": " + what + " holds a " + (c == '"' ? "double quote" : "backslash") +
                        ", which Slurm reads as its own quoting in an #SBATCH line; choose another name");
  }
}

/// `#SBATCH --OPTION="VALUE"`: sbatch keeps a quoted value whole, spaces and apostrophes included.
std::string sbatch_line(const char* option, const std::string& value) {
  return std::string("#SBATCH --") + option + "=\"" + value + "\"\n";
}

std::string common_lines(const SlurmJob& job) {
  std::string s;
  if (!job.partition.empty()) s += sbatch_line("partition", job.partition);
  if (!job.time.empty()) s += sbatch_line("time", job.time);
  return s;
}
} // namespace

void check_slurm_job(const SlurmJob& job) {
  check_value("--out", job.dir.string(), "the sweep's folder");
  check_value("--partition", job.partition, "the partition");
  check_value("--time", job.time, "the time limit");
  if (job.cells < 1) throw ConfigError("--slurm: the sweep has no cells to submit");
}

std::string slurm_literal_path(const std::string& path) {
  std::string out;
  for (const char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

std::string slurm_cells_script(const SlurmJob& job) {
  const std::string slurm = (job.dir / "slurm").string();
  std::string s = "#!/bin/bash\n#SBATCH --job-name=redraw-sweep\n";
  s += "#SBATCH --array=0-" + std::to_string(job.cells - 1) + "\n";
  s += sbatch_line("output", slurm_literal_path(slurm + "/") + "cell-%a.out") + "#SBATCH --requeue\n" +
       common_lines(job);
  if (job.gpus_per_task) s += "#SBATCH --gpus-per-task=" + std::to_string(*job.gpus_per_task) + "\n";
  if (job.cpus_per_task) s += "#SBATCH --cpus-per-task=" + std::to_string(*job.cpus_per_task) + "\n";
  s += "# Each task trains one cell of the sweep (redraw sweep --cell K DIR) with the CPUs Slurm gave it.\n"
       "# A requeued or repeated task resumes its cell from its checkpoint; a done cell is never trained again.\n";
  return s + "exec " + shell_quote(job.redraw) + " sweep --cell \"$SLURM_ARRAY_TASK_ID\" " +
         shell_quote(job.dir.string()) + "\n";
}

std::string slurm_collect_script(const SlurmJob& job) {
  std::string s = "#!/bin/bash\n#SBATCH --job-name=redraw-sweep-collect\n";
  s += sbatch_line("output", slurm_literal_path((job.dir / "slurm" / "collect.out").string())) + common_lines(job);
  s += "# After the cells' array (afterany): results.csv, summary.csv and report.html.\n";
  return s + "exec " + shell_quote(job.redraw) + " sweep --collect " + shell_quote(job.dir.string()) + "\n";
}

} // namespace redraw
