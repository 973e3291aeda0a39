// The cells of a sweep side by side on this machine, and one cell alone (a Slurm array task).
#include "app/cli_common.h"
#include "app/cli_sweep.h"
#include "engine/atomic_file.h"
#include "engine/errors.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <map>
#include <memory>
#include <thread>

namespace redraw::cli {

namespace {
/// A cell whose process ended: its wait status and peak resident memory.
struct Reaped {
  std::unique_ptr<CellRun> run;
  int status = 0;
  int64_t peak_rss_bytes = 0;
};

/// The cells running now, by process id, and what the bar shows about them.
class CellPool {
public:
  CellPool(const SweepSite& site, const SweepJobs& jobs, int64_t total)
      : m_site(site), m_jobs(jobs), m_total(total), m_bar("sweep") {}

  /// Starts the next of `todo` from `next` while a job slot is free; a cell that had ended or
  /// that another process runs is counted (and said) without running.
  void fill(const std::vector<int64_t>& todo, size_t& next) {
    while (!interrupted() && int32_t(m_running.size()) < m_jobs.jobs && next < todo.size()) {
      const SweepCell& cell = m_site.plan->cells[size_t(todo[next++])];
      auto run = std::make_unique<CellRun>(m_site, cell, m_jobs.threads);
      try {
        switch (run->start()) {
        case CellRun::Start::Started:
          m_running[run->pid()] = std::move(run);
          break;
        case CellRun::Start::Ended:
          ended(cell, run->result());
          break;
        case CellRun::Start::Busy:
          ++m_ended;
          m_busy.push_back(cell.index);
          m_bar.line("busy   " + shown_name(cell) + ": another process runs it");
          break;
        }
      } catch (const Error& e) {
        CellResult r;
        r.status = CellStatus::Failed;
        r.error = e.what();
        ended(cell, r);
      }
    }
  }

  /// Waits a moment for a cell to end; finishes those that did. Tells the cells to stop (once)
  /// when the sweep was.
  void reap(std::vector<Reaped>& done) {
    int status = 0;
    struct rusage usage {};
    for (pid_t pid; (pid = ::wait4(-1, &status, WNOHANG, &usage)) > 0;) {
      const auto it = m_running.find(pid);
      if (it == m_running.end()) continue;
      done.push_back({std::move(it->second), status, int64_t(usage.ru_maxrss) * 1024});
      m_running.erase(it);
    }
    if (interrupted() && !m_stopping) {
      m_stopping = true;
      for (const auto& [pid, run] : m_running)
        ::kill(pid, SIGTERM);
    }
  }

  void finish(CellRun& run, int status, int64_t peak_rss_bytes) {
    ended(run.cell(), run.finish(status, peak_rss_bytes));
    if (const std::string why = write_error([&] { write_results_csv(m_site); }); !why.empty()) print_note(why);
  }

  void show_progress() {
    double part = 0; // the running cells' share, from their time against the estimate
    for (const auto& [pid, run] : m_running)
      part += std::min(0.95, run->seconds() /
                                 std::max(1.0, estimate_cell_seconds(m_site.plan->grid, run->cell(), m_jobs.threads)));
    const double fraction = (double(m_ended) + part) / double(std::max<int64_t>(m_total, 1));
    m_bar.update(std::min(fraction, 1.0), std::to_string(m_ended) + "/" + std::to_string(m_total) + " cells, " +
                                              std::to_string(m_running.size()) + " running");
  }

  bool idle() const { return m_running.empty(); }
  const std::vector<int64_t>& busy() const { return m_busy; }
  void end() { m_bar.finish(std::to_string(m_ended) + "/" + std::to_string(m_total) + " cells"); }

private:
  void ended(const SweepCell& cell, const CellResult& r) {
    if (r.status == CellStatus::Unfinished) {
      m_bar.line("stopped " + shown_name(cell) + ": resumes from its checkpoint next time");
      return;
    }
    ++m_ended;
    if (r.status == CellStatus::Failed) ++m_failed;
    m_bar.line("cell " + std::to_string(m_ended) + "/" + std::to_string(m_total) + " " + cell_line(cell, r));
  }

  const SweepSite& m_site;
  const SweepJobs m_jobs;
  const int64_t m_total;
  Progress m_bar;
  std::map<pid_t, std::unique_ptr<CellRun>> m_running;
  int64_t m_ended = 0, m_failed = 0;
  std::vector<int64_t> m_busy;
  bool m_stopping = false;
};
} // namespace

std::vector<int64_t> run_sweep_cells(const SweepSite& site, const std::vector<int64_t>& todo, const SweepJobs& jobs) {
  CellPool pool(site, jobs, int64_t(todo.size()));
  size_t next = 0;
  std::vector<Reaped> done;
  for (;;) {
    pool.fill(todo, next);
    if (pool.idle() && (next >= todo.size() || interrupted())) break;
    pool.reap(done);
    // The next cell starts before this one is measured, so no job slot waits for the measuring.
    if (!done.empty()) {
      pool.fill(todo, next);
      for (Reaped& r : done)
        pool.finish(*r.run, r.status, r.peak_rss_bytes);
      done.clear();
      continue;
    }
    pool.show_progress();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  pool.end();
  return pool.busy();
}

int run_one_cell(const SweepSite& site, int64_t index, int32_t threads) {
  const SweepCell& cell = site.plan->cells[size_t(index)];
  CellRun run(site, cell, threads);
  switch (run.start()) {
  case CellRun::Start::Busy:
    print_note("cell " + cell.name + ": another process runs it"); // print_note escapes
    return k_exit_ok;
  case CellRun::Start::Ended:
    std::fprintf(stderr, "%s (ended before)\n", cell_line(cell, run.result()).c_str());
    return k_exit_ok;
  case CellRun::Start::Started:
    break;
  }
  int status = 0;
  bool told = false;
  struct rusage usage {};
  while (::wait4(run.pid(), &status, WNOHANG, &usage) == 0) {
    if (interrupted() && !told) told = ::kill(run.pid(), SIGTERM) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const CellResult& r = run.finish(status, int64_t(usage.ru_maxrss) * 1024);
  std::fprintf(stderr, "%s\n", cell_line(cell, r).c_str());
  if (r.status == CellStatus::Unfinished) return interrupted() ? interrupted_exit_code() : 128 + SIGTERM;
  return r.status == CellStatus::Failed ? k_exit_failure : k_exit_ok;
}

} // namespace redraw::cli
