// `redraw sweep --slurm`: the grid as one Slurm job array (a task per cell) and a collect job
// that waits for it.
#include "app/cli_common.h"
#include "app/cli_sweep.h"
#include "engine/atomic_file.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/sweep/slurm_script.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

extern char** environ;

namespace redraw::cli {

namespace {
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

} // namespace

SlurmJob slurm_job(const SweepSite& site, const SweepCommand& o) {
  SlurmJob job{site.redraw, site.dir, site.plan ? int64_t(site.plan->cells.size()) : 0, o.partition, o.time,
               o.gpus_per_task, o.cpus_per_task};
  return job;
}

void check_slurm_options(const SweepSite& site, const SweepCommand& o) {
  try {
    check_slurm_job(slurm_job(site, o));
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  }
}

int submit_sweep(const SweepSite& site, const SweepCommand& o) {
  const SlurmJob job = slurm_job(site, o);
  check_slurm_job(job);
  const std::filesystem::path slurm = site.dir / "slurm";
  std::error_code ec;
  std::filesystem::create_directories(slurm, ec);
  if (ec) throw IoError(slurm.string() + ": cannot create the folder (" + ec.message() + ")");
  write_text_atomic(slurm / "cells.sbatch", slurm_cells_script(job));
  write_text_atomic(slurm / "collect.sbatch", slurm_collect_script(job));
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
