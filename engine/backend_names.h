#pragma once
/// The names a backend is chosen by (a config's, a sweep's, --backend): "auto" takes the GPU when
/// one is usable, else the CPU. (A header of its own, so a list that grows touches few files.)
#include "engine/encoding_math.h"

#include <string>

namespace redraw {

inline constexpr const char* k_backend_choices[] = {"auto", "cpu", "cuda"};

/// Why only the CPU backend runs a network of this encoding in this build, or "" when any may.
inline std::string cpu_only_reason(EncodingKind encoding) {
  return encoding == EncodingKind::Gaussians ? "the gaussians model trains on the CPU backend in this build" : "";
}

/// The backend to make for `requested` and a network of `encoding`: "auto" becomes "cpu" where
/// only the CPU runs it (with the reason in *notice, when given), else `requested` as it is (a
/// backend asked for by name refuses, naming why, rather than being swapped behind the user's back).
inline std::string backend_for_encoding(const std::string& requested, EncodingKind encoding,
                                        std::string* notice = nullptr) {
  const std::string why = cpu_only_reason(encoding);
  if (requested != "auto" || why.empty()) return requested;
  if (notice) *notice = "auto: " + why;
  return "cpu";
}

} // namespace redraw
