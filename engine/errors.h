#pragma once
/// Typed errors. Every loader throws one of these with a message that names the file or field and
/// what is wrong; the CLI prints "error: <what>" and the UI shows it, and both keep running.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace redraw {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ImageError : Error { using Error::Error; };      ///< unreadable, corrupt or oversized image
/// An image whose decoding needs more memory than the budget (DecodeLimits): the app offers to
/// open it with a larger one.
struct ImageBudgetError : ImageError {
  ImageBudgetError(const std::string& what, uint64_t needed, uint64_t budget)
      : ImageError(what), needed_bytes(needed), budget_bytes(budget) {}
  uint64_t needed_bytes, budget_bytes;
};
struct ConfigError : Error { using Error::Error; };     ///< bad or unknown config key or value
/// The data spec gives this image a training size over the limits (open_run).
struct TrainingSizeError : ConfigError { using ConfigError::ConfigError; };
struct CheckpointError : Error { using Error::Error; }; ///< missing, corrupt or incompatible model file
struct BackendError : Error { using Error::Error; };    ///< device missing, out of memory, kernel failure
struct IoError : Error { using Error::Error; };         ///< a file could not be written (disk full, ...)
struct CancelledError : Error { using Error::Error; };  ///< a long operation was cancelled by the user
struct DivergedError : Error { using Error::Error; };   ///< training diverged and every recovery was used up

} // namespace redraw
