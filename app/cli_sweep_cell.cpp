// One cell of a sweep: its folder, its lock, its `redraw train` process and its result.json.
#include "app/cli_common.h"
#include "app/cli_sweep.h"
#include "engine/atomic_file.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/insight/ssim.h"
#include "engine/json_read.h"
#include "engine/model_files/checkpoint.h"
#include "engine/path_problem.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

namespace redraw::cli {

namespace {
/// The checkpoint's header: config, step, training seconds, training size (not its weights).
/// CheckpointError when it is not a regular file (read_user_file) or not a model.
Checkpoint read_model_meta(const std::filesystem::path& file) {
  std::vector<uint8_t> bytes;
  if (const std::string why = read_user_file(file, uint64_t(8) << 30, "a model file", "8 GiB model", bytes);
      !why.empty())
    throw CheckpointError(why);
  return read_checkpoint_meta(bytes.data(), bytes.size(), file.string());
}

/// metrics.csv's exact PSNR at `step` (its saved step's row), or NaN when that row is sampled.
/// ConfigError when it is not a regular file or is over k_max_metrics_bytes.
double exact_psnr(const std::filesystem::path& metrics, int64_t step) {
  std::string text;
  if (const std::string why = read_user_text(metrics, k_max_metrics_bytes, "a metrics table", "256 MiB", text);
      !why.empty())
    throw ConfigError(why);
  const auto rows = parse_csv(text);
  // step,loss,psnr_db,psnr_from,lr,seconds,event
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    if (it->size() < 7 || !(*it)[6].empty() || (*it)[0] == "step") continue;
    if (std::stoll((*it)[0]) != step || (*it)[3] != "exact") break;
    return (*it)[2] == "inf" ? INFINITY : std::stod((*it)[2]);
  }
  return NAN;
}

/// final.png against the image at the training size, as the run saw it.
double final_ssim(const std::filesystem::path& final_png, const std::string& image, const Checkpoint& meta) {
  DataSpec data = meta.config.data;
  data.width = meta.image_width;
  data.height = meta.image_height;
  const Image target = prepare_training_image(image, data);
  const Image picture = load_image(final_png);
  return ssim(picture, target);
}

/// The first field where two JSON values differ ("model.hidden: [32,32] in the model, [16,16] in the
/// cell's config"), or "" when they are the same.
std::string first_difference(const nlohmann::json& model, const nlohmann::json& cell, const std::string& path) {
  if (model.is_object() && cell.is_object()) {
    for (const auto& [key, value] : cell.items()) {
      const std::string at = path.empty() ? key : path + "." + key;
      if (!model.contains(key)) return at + ": missing in the model, " + json_excerpt(value) + " in the cell's config";
      if (std::string d = first_difference(model.at(key), value, at); !d.empty()) return d;
    }
    for (const auto& [key, value] : model.items())
      if (!cell.contains(key))
        return (path.empty() ? key : path + "." + key) + ": " + json_excerpt(value) +
               " in the model, missing in the cell's config";
    return "";
  }
  if (model == cell) return "";
  return (path.empty() ? std::string("config") : path) + ": " + json_excerpt(model) + " in the model, " +
         json_excerpt(cell) + " in the cell's config";
}

/// Why the model in a cell's folder is not this cell's run (another config's model, copied or left
/// there), or "" when it is (or there is none, or train --resume will say what is wrong with it).
/// The fields train sizes to the image are compared as the cell asks for them.
std::string foreign_model(const std::filesystem::path& folder, const SweepCell& cell) {
  const std::filesystem::path model = folder / "model.redraw";
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(model, ec))) return "";
  std::string diff;
  try {
    RunConfig saved = read_model_meta(model).config;
    const EncodingSpec& want = cell.config.model.encoding;
    if (saved.model.encoding.auto_table_size) saved.model.encoding.log2_hashmap_size = want.log2_hashmap_size;
    if (saved.model.encoding.auto_finest_resolution) saved.model.encoding.finest_resolution = want.finest_resolution;
    diff = first_difference(to_json(saved), to_json(cell.config), "");
  } catch (const Error&) {
    return "";
  }
  if (diff.empty()) return "";
  return model.string() + ": is the model of another run, not this cell's (" + diff +
         "); it is left as it is: move it away to train this cell";
}

const char* signal_text(int sig) {
  const char* name = strsignal(sig);
  return name ? name : "signal";
}
} // namespace

CellRun::CellRun(const SweepSite& site, const SweepCell& cell, int32_t threads)
    : m_site(site), m_cell(cell), m_threads(threads), m_folder(cell_folder(site.dir, cell)) {}

double CellRun::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
}

CellRun::Start CellRun::start() {
  m_t0 = std::chrono::steady_clock::now();
  (void)make_cell_folder(m_site.dir, m_cell); // a link planted at it or at cells/ is refused, naming it
  std::error_code ec;
  try {
    m_lock.emplace(m_folder, "redraw sweep, cell " + m_cell.name, k_cell_lock_name);
  } catch (const IoError&) {
    if (lock_file_held(m_folder / k_cell_lock_name)) return Start::Busy;
    throw;
  }
  m_result = read_cell_result(m_site.dir, m_cell);
  if (m_result.status == CellStatus::Done || (m_result.status == CellStatus::Failed && !m_site.retry_failed)) {
    m_lock.reset();
    return Start::Ended;
  }
  std::filesystem::remove(m_folder / "result.json", ec);
  // A train of a sweep killed a moment ago may still be saving (it was told to stop when its
  // sweep died): its checkpoint is what this run resumes from.
  const std::filesystem::path train_lock = m_folder / k_folder_lock_name;
  for (int i = 0; i < 1200 && lock_file_held(train_lock); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (lock_file_held(train_lock)) {
    m_lock.reset();
    return Start::Busy;
  }
  // Resuming another config's model would report that run as this cell's: refused, nothing touched.
  if (const std::string why = foreign_model(m_folder, m_cell); !why.empty()) {
    m_result = {};
    m_result.status = CellStatus::Failed;
    m_result.error = why;
    if (const std::string not_saved =
            write_error([&] { write_text_atomic(m_folder / "result.json", cell_result_json(m_cell, m_result)); });
        !not_saved.empty())
      print_note("cell " + m_cell.name + ": its result was not saved (" + not_saved + ")");
    m_lock.reset();
    return Start::Ended;
  }
  write_text_atomic(m_folder / "config.json", to_json(m_cell.config).dump(1) + "\n");
  spawn(train_arguments());
  return Start::Started;
}

std::vector<std::string> CellRun::train_arguments() const {
  const SweepGrid& g = m_site.plan->grid;
  std::vector<std::string> a = {m_site.redraw,
                                "train",
                                m_cell.image,
                                "--out",
                                m_folder.string(),
                                "--backend",
                                g.backend,
                                "--checkpoint-every",
                                std::to_string(cell_checkpoint_every(g, m_cell))};
  if (m_threads > 0) a.insert(a.end(), {"--threads", std::to_string(m_threads)});
  const std::filesystem::path model = m_folder / "model.redraw";
  double used = 0;
  std::error_code ec;
  if (std::filesystem::exists(model, ec)) {
    a.insert(a.end(), {"--resume", model.string()});
    try {
      used = read_model_meta(model).seconds;
    } catch (const Error&) {
      // train --resume says what is wrong with it, and the cell fails with that
    }
  } else {
    a.insert(a.end(), {"--config", (m_folder / "config.json").string()});
  }
  if (g.time_limit > 0) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", std::max(0.05, g.time_limit - used));
    a.insert(a.end(), {"--time-limit", b});
  }
  return a;
}

void CellRun::spawn(const std::vector<std::string>& args) {
  const std::filesystem::path log = m_folder / "train.log";
  // O_NONBLOCK: a FIFO planted at the name fails to open (no reader) rather than blocking.
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) throw IoError(log.string() + ": cannot open the cell's log (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw IoError(log.string() + ": is not a regular file (the cell's log is only written to one)");
  }
  m_log_start = uintmax_t(::lseek(fd, 0, SEEK_END));
  std::string head = "== redraw sweep:";
  for (const std::string& s : args)
    head += " " + s;
  head += "\n";
  (void)!::write(fd, head.data(), head.size());
  std::vector<char*> argv;
  for (const std::string& s : args)
    argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fd);
    throw IoError(std::string("cannot start a process for cell ") + m_cell.name + " (" + std::strerror(err) + ")");
  }
  if (pid == 0) {
    // Only async-signal-safe calls until exec. Its own process group, so a Ctrl+C reaches the
    // sweep alone, which stops its cells once; told to stop (and save) when the sweep dies.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::execv(argv[0], argv.data());
    static const char msg[] = "error: cannot run redraw for this cell\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(fd);
  m_pid = pid;
}

std::string CellRun::error_from_log() const {
  std::ifstream in(m_folder / "train.log", std::ios::binary);
  in.seekg(std::streamoff(m_log_start));
  std::string line, last;
  while (std::getline(in, line))
    if (line.rfind("error: ", 0) == 0) last = line.substr(7);
  return last;
}

void CellRun::measure_done() {
  const Checkpoint meta = read_model_meta(m_folder / "model.redraw");
  m_result.steps = meta.step;
  m_result.seconds = meta.seconds;
  m_result.parameters = parameter_count(meta.config.model);
  std::error_code ec;
  m_result.model_bytes = int64_t(std::filesystem::file_size(m_folder / "model.redraw", ec));
  m_result.psnr_db = exact_psnr(m_folder / "metrics.csv", meta.step);
  try {
    m_result.ssim = final_ssim(m_folder / "final.png", m_cell.image, meta);
  } catch (const Error& e) {
    m_result.error = std::string("SSIM not measured: ") + e.what();
  }
  std::ifstream in(m_folder / "train.log", std::ios::binary);
  in.seekg(std::streamoff(m_log_start));
  static const std::regex banner(R"(^training '.*with the (\S+) backend)");
  static const std::regex device(std::string("^") + k_peak_device_line + R"((\d{1,18}) bytes)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, banner)) m_result.backend = m[1];
    if (std::regex_search(line, m, device))
      m_result.peak_device_bytes = std::max<int64_t>(m_result.peak_device_bytes, std::stoll(m[1]));
  }
}

const CellResult& CellRun::finish(int wait_status, int64_t peak_rss_bytes) {
  m_result = {};
  m_result.threads = m_threads;
  m_result.peak_host_bytes = peak_rss_bytes;
  m_result.wall_seconds = seconds();
  const int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  const int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  const bool stopped = code == 128 + SIGTERM || code == 128 + SIGINT || code == 128 + SIGHUP || sig == SIGTERM ||
                       sig == SIGINT || sig == SIGHUP;
  if (code == 0) {
    m_result.status = CellStatus::Done;
    try {
      measure_done();
    } catch (const Error& e) {
      m_result.error = std::string("not measured: ") + e.what();
    }
  } else if (stopped) {
    m_result.status = CellStatus::Unfinished; // its checkpoint is resumed by the next run
  } else {
    m_result.status = CellStatus::Failed;
    m_result.error = error_from_log();
    if (m_result.error.empty())
      m_result.error =
          sig ? std::string("train was killed by ") + signal_text(sig) + (sig == SIGKILL ? " (out of memory?)" : "")
              : "train exited with code " + std::to_string(code);
  }
  if (m_result.status != CellStatus::Unfinished) {
    const std::string why =
        write_error([&] { write_text_atomic(m_folder / "result.json", cell_result_json(m_cell, m_result)); });
    if (!why.empty())
      print_note("cell " + m_cell.name + ": its result was not saved (" + why + "); it runs again next time");
  }
  m_lock.reset();
  m_pid = -1;
  return m_result;
}

std::string shown_name(const SweepCell& cell) { return escape_control(cell.name); }

std::string cell_line(const SweepCell& cell, const CellResult& r) {
  char b[160];
  const std::string name = shown_name(cell);
  if (r.status == CellStatus::Failed) return "FAILED " + name + ": " + escape_control(r.error);
  if (r.status != CellStatus::Done) return std::string(cell_status_name(r.status)) + " " + name;
  std::snprintf(b, sizeof b, "  %lld steps  %.1f s  PSNR %.2f dB  SSIM %.4f", static_cast<long long>(r.steps),
                r.seconds, r.psnr_db, r.ssim);
  return "done   " + name + b;
}

} // namespace redraw::cli
