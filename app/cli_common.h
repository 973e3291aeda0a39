#pragma once
/// Shared pieces of the headless commands: size parsing, progress display, error reporting.
/// Exit codes: 0 success, 1 failure (bad file, backend error, a run that diverged past its
/// recoveries, ...), 2 usage error, 128 + the signal number when stopped by a signal (130 for
/// SIGINT / Ctrl+C, 143 for SIGTERM), alike for train, render and timelapse.
#include "engine/images/image.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace redraw::cli {

constexpr int k_exit_ok = 0;
constexpr int k_exit_failure = 1;
constexpr int k_exit_usage = 2;
/// How `redraw train` begins the line of its peak device memory, which a sweep's cell reads from train.log.
constexpr const char* k_peak_device_line = "peak device memory: ";

/// Thrown for a bad option value found after parsing (e.g. "--size 0x5"): exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The largest --size a command accepts: each side 1..max_side, at most max_pixels in all.
struct SizeLimit {
  int32_t max_side;
  int64_t max_pixels;
};

/// Parses "WxH" (e.g. "1024x768"); UsageError naming `option` when malformed or outside `limit`,
/// so a bad size is refused before any file is read.
void parse_size(const std::string& text, const std::string& option, const SizeLimit& limit, int32_t& w, int32_t& h);

/// Refuses (UsageError naming `option`) an output path whose extension is not .png in any case.
void require_png_extension(const std::string& path, const std::string& option);

/// Prints "error: <what>" to stderr, control characters escaped (a path's escape sequences never
/// reach the terminal).
void print_error(const std::string& what);
/// Prints "note: <what>" to stderr, escaped as print_error does.
void print_note(const std::string& what);

/// True once SIGINT, SIGTERM or SIGHUP arrived (installed by install_interrupt_handler).
bool interrupted();
/// The same as a flag a Trainer looks at between a step's chunks (Trainer::set_stop_flag).
const std::atomic<bool>& stop_flag();
/// The exit code for the signal that arrived: 128 + its number (130 SIGINT, 143 SIGTERM, 129
/// SIGHUP); 0 if none.
int interrupted_exit_code();
/// Catches SIGINT, SIGTERM and SIGHUP (a closed terminal or a dropped ssh connection): the first
/// asks the command to stop and save; a second, while it saves, is told so on stderr; a third
/// ends the process at once (files are written atomically, so the earlier set stays whole).
void install_interrupt_handler();
/// A line every this many seconds when stderr is not a terminal (REDRAW_PROGRESS_SECONDS, default 5).
double progress_line_seconds();

/// A progress display: a redrawn bar on a terminal, otherwise a line every few seconds.
class Progress {
public:
  explicit Progress(std::string label);
  /// fraction in [0, 1]; `detail` is appended (e.g. "loss 1.2e-3  PSNR 24.1 dB").
  void update(double fraction, const std::string& detail = {});
  /// Ends the bar's line (terminal) and prints the final state.
  void finish(const std::string& detail = {});
  /// Prints `text` as a line of its own above the bar (which a terminal then shows again).
  void line(const std::string& text);

private:
  void draw_bar(double fraction, const std::string& detail, double elapsed);
  std::string m_label, m_detail;
  double m_fraction = 0;
  bool m_tty;
  std::chrono::steady_clock::time_point m_start, m_last;
  bool m_printed = false;
};

std::string format_seconds(double s);

/// Decoding limits for --max-image-memory MiB (empty: the default budget). UsageError when the
/// value is not a positive number of MiB.
DecodeLimits decode_limits(const std::optional<double>& max_image_memory_mb);

} // namespace redraw::cli
