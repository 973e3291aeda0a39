// `redraw sweep --slurm`: the grid as one Slurm job array (a task per cell) and a collect job
// that waits for it.
#include "app/cli_common.h"
#include "app/cli_sweep.h"
#include "engine/atomic_file.h"
#include "engine/display_text.h"
#include "engine/errors.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

extern char** environ;

namespace redraw::cli {

namespace {
/// A word for a shell script, single-quoted.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs `args` (looked up in PATH) and returns its exit status (-1: it could not start, with the
/// reason in `out`); its stdout in `out`, its stderr passed through.
int run_capture(const std::vector<std::string>& args, std::string& out) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out = std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::vector<char*> argv;
  for (const std::string& s : args)
    argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int err = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (err != 0) {
    ::close(fds[0]);
    out = std::strerror(err);
    return -1;
  }
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);)
    if (n > 0) out.append(buf, size_t(n));
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// `sbatch --parsable ARGS... SCRIPT`; returns the job id. IoError with sbatch's word otherwise.
std::string sbatch(std::vector<std::string> args, const std::filesystem::path& script) {
  args.insert(args.begin(), {"sbatch", "--parsable"});
  args.push_back(script.string());
  std::string out;
  const int code = run_capture(args, out);
  if (code == -1) throw IoError("cannot run sbatch (" + out + "); is Slurm installed here?");
  if (code != 0) throw IoError("sbatch refused " + script.string() + " (exit " + std::to_string(code) + ")");
  const std::string id = out.substr(0, out.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789_") != std::string::npos)
    throw IoError("sbatch said '" + escape_control(out) + "', not a job id");
  return id;
}

/// The #SBATCH lines both jobs share.
std::string common_lines(const SweepCommand& o) {
  std::string s;
  if (!o.partition.empty()) s += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time.empty()) s += "#SBATCH --time=" + o.time + "\n";
  return s;
}

std::string cells_script(const SweepSite& site, const SweepCommand& o) {
  const std::filesystem::path slurm = site.dir / "slurm";
  std::string s = "#!/bin/bash\n#SBATCH --job-name=redraw-sweep\n";
  s += "#SBATCH --array=0-" + std::to_string(site.plan->cells.size() - 1) + "\n";
  s += "#SBATCH --output=" + (slurm / "cell-%a.out").string() + "\n#SBATCH --requeue\n" + common_lines(o);
  if (o.gpus_per_task) s += "#SBATCH --gpus-per-task=" + std::to_string(*o.gpus_per_task) + "\n";
  if (o.cpus_per_task) s += "#SBATCH --cpus-per-task=" + std::to_string(*o.cpus_per_task) + "\n";
  s += "# Each task trains one cell of the sweep (redraw sweep --cell K DIR) with the CPUs Slurm gave it.\n"
       "# A requeued or repeated task resumes its cell from its checkpoint; a done cell is never trained again.\n";
  return s + "exec " + shell_quote(site.redraw) + " sweep --cell \"$SLURM_ARRAY_TASK_ID\" " +
         shell_quote(site.dir.string()) + "\n";
}

std::string collect_script(const SweepSite& site, const SweepCommand& o) {
  std::string s = "#!/bin/bash\n#SBATCH --job-name=redraw-sweep-collect\n";
  s += "#SBATCH --output=" + (site.dir / "slurm" / "collect.out").string() + "\n" + common_lines(o);
  s += "# After the cells' array (afterany): results.csv, summary.csv and report.html.\n";
  return s + "exec " + shell_quote(site.redraw) + " sweep --collect " + shell_quote(site.dir.string()) + "\n";
}
} // namespace

int submit_sweep(const SweepSite& site, const SweepCommand& o) {
  const std::filesystem::path slurm = site.dir / "slurm";
  std::error_code ec;
  std::filesystem::create_directories(slurm, ec);
  if (ec) throw IoError(slurm.string() + ": cannot create the folder (" + ec.message() + ")");
  write_text_atomic(slurm / "cells.sbatch", cells_script(site, o));
  write_text_atomic(slurm / "collect.sbatch", collect_script(site, o));
  const std::string array = sbatch(o.sbatch_args, slurm / "cells.sbatch");
  std::vector<std::string> after = o.sbatch_args;
  after.push_back("--dependency=afterany:" + array);
  const std::string collect = sbatch(after, slurm / "collect.sbatch");
  write_text_atomic(slurm / "jobs.txt", "array " + array + "\ncollect " + collect + "\n");
  std::printf("submitted job array %s (%zu tasks) and collect job %s after it; `squeue -j %s,%s` shows them\n",
              array.c_str(), site.plan->cells.size(), collect.c_str(), array.c_str(), collect.c_str());
  std::printf("results: %s (results.csv, summary.csv, report.html once the collect job ran)\n",
              escape_control(site.dir.string()).c_str());
  return k_exit_ok;
}

} // namespace redraw::cli
