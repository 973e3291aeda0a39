#include "app/cli_common.h"

#include "engine/display_text.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>

namespace redraw::cli {

namespace {
// A signal handler can reach only globals; lock-free atomics and write() are safe in it.
std::atomic<int> g_signal{0};
std::atomic<int> g_signals_seen{0};
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);
extern "C" void on_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  g_stop.store(true, std::memory_order_relaxed);
  const int seen = g_signals_seen.fetch_add(1) + 1;
  if (seen == 2) {
    static const char msg[] = "\nredraw: stopping: saving the run so far; a third signal ends at once, without saving\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
  } else if (seen >= 3) {
    ::_exit(128 + sig); // files are written atomically: an unfinished save leaves the earlier set
  }
}
} // namespace

void parse_size(const std::string& text, const std::string& option, const SizeLimit& limit, int32_t& w, int32_t& h) {
  static const std::regex re(R"(^\s*(\d{1,6})\s*[xX]\s*(\d{1,6})\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) throw UsageError(option + ": '" + text + "' is not a size like 512x512");
  const int32_t pw = std::stoi(m[1]), ph = std::stoi(m[2]);
  if (pw < 1 || ph < 1) throw UsageError(option + ": '" + text + "': width and height must be at least 1");
  if (pw > limit.max_side || ph > limit.max_side || int64_t(pw) * ph > limit.max_pixels)
    throw UsageError(option + ": " + std::to_string(pw) + "x" + std::to_string(ph) +
                     " is over the limit (each side 1.." + std::to_string(limit.max_side) + ", at most " +
                     std::to_string(limit.max_pixels) + " pixels)");
  w = pw;
  h = ph;
}

void require_png_extension(const std::string& path, const std::string& option) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext != ".png" && ext != ".tif" && ext != ".tiff" && ext != ".exr")
    throw UsageError(option + ": '" + path + "' must end in .png, .tif, .tiff or .exr");
}

// A path or a model's text may hold escape sequences: they are shown escaped, never sent to the
// terminal (as `info` prints metadata).
void print_error(const std::string& what) { std::cerr << "error: " << escape_control(what) << std::endl; }
void print_note(const std::string& what) { std::cerr << "note: " << escape_control(what) << std::endl; }

bool interrupted() { return g_signal.load() != 0; }
const std::atomic<bool>& stop_flag() { return g_stop; }
int interrupted_exit_code() {
  const int sig = g_signal.load();
  return sig ? 128 + sig : 0;
}
void install_interrupt_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART; // a write in progress goes on, never fails with EINTR
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

double progress_line_seconds() {
  static const double seconds = [] {
    const char* v = std::getenv("REDRAW_PROGRESS_SECONDS");
    const double d = v ? std::atof(v) : 5.0;
    return d >= 0 ? d : 5.0;
  }();
  return seconds;
}

DecodeLimits decode_limits(const std::optional<double>& mb) {
  DecodeLimits limits;
  if (!mb) return limits;
  if (!(*mb >= 1 && *mb <= double(uint64_t(1) << 30)))
    throw UsageError("--max-image-memory: must be a number of MiB from 1 to 2^30");
  limits.max_bytes = uint64_t(*mb * double(1 << 20));
  return limits;
}

std::string format_seconds(double s) {
  char b[32];
  if (s < 60)
    std::snprintf(b, sizeof b, "%.1fs", s);
  else if (s < 3600)
    std::snprintf(b, sizeof b, "%dm%02ds", int(s) / 60, int(s) % 60);
  else
    std::snprintf(b, sizeof b, "%dh%02dm", int(s) / 3600, (int(s) / 60) % 60);
  return b;
}

Progress::Progress(std::string label)
    : m_label(std::move(label)), m_tty(isatty(STDERR_FILENO) != 0), m_start(std::chrono::steady_clock::now()),
      m_last(m_start) {}

void Progress::update(double fraction, const std::string& detail) {
  const auto now = std::chrono::steady_clock::now();
  const double since_last = std::chrono::duration<double>(now - m_last).count();
  const double elapsed = std::chrono::duration<double>(now - m_start).count();
  m_fraction = fraction;
  m_detail = detail;
  if (m_printed && since_last < (m_tty ? 0.1 : progress_line_seconds())) return;
  if (m_tty)
    draw_bar(fraction, detail, elapsed);
  else
    std::fprintf(stderr, "%s %5.1f%%  %s  (%s)\n", m_label.c_str(), 100 * fraction, detail.c_str(),
                 format_seconds(elapsed).c_str());
  m_printed = true;
  m_last = now;
}

void Progress::draw_bar(double fraction, const std::string& detail, double elapsed) {
  constexpr int k_width = 28;
  const int filled = int(fraction * k_width + 0.5);
  std::string bar(size_t(filled), '#');
  bar.resize(k_width, '-');
  std::string eta = fraction > 0.001 ? format_seconds(elapsed / fraction - elapsed) : "?";
  std::fprintf(stderr, "\r%s [%s] %5.1f%%  %s  ETA %s\x1b[K", m_label.c_str(), bar.c_str(), 100 * fraction,
               detail.c_str(), eta.c_str());
  std::fflush(stderr);
}

void Progress::line(const std::string& text) {
  if (!m_tty) {
    std::fprintf(stderr, "%s\n", text.c_str());
    return;
  }
  std::fprintf(stderr, "\r\x1b[K%s\n", text.c_str());
  if (m_printed)
    draw_bar(m_fraction, m_detail, std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
}

void Progress::finish(const std::string& detail) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  if (m_tty) std::fprintf(stderr, "\r\x1b[K");
  std::fprintf(stderr, "%s done  %s  (%s)\n", m_label.c_str(), detail.c_str(), format_seconds(elapsed).c_str());
}

} // namespace redraw::cli
