#pragma once
/// The names a backend is chosen by (a config's, a sweep's, --backend): "auto" takes the GPU when
/// one is usable, else the CPU. (A header of its own, so a list that grows touches few files.)
#include "engine/encoding_math.h"

#include <string>

namespace redraw {

inline constexpr const char* k_backend_choices[] = {"auto", "cpu", "cuda"};

/// Why "auto" picks the CPU backend for a network of this encoding even where a GPU is usable, or
/// "" when it need not. The gaussians model has CUDA passes (cuda/gaussian_kernels.cuh), but they
/// have not yet been checked against the CPU on a device: until they are, `--backend cuda` runs
/// them when asked by name and "auto" keeps to the CPU, whose passes are tested.
inline std::string auto_keeps_cpu_reason(EncodingKind encoding) {
  return encoding == EncodingKind::Gaussians
             ? "the gaussians model trains on the CPU unless --backend cuda asks for its GPU kernels, which await "
               "their first check on a GPU"
             : "";
}

/// The backend to make for `requested` and a network of `encoding`: "auto" becomes "cpu" where
/// auto_keeps_cpu_reason says so (with the reason in *notice, when given), else `requested` as it is.
inline std::string backend_for_encoding(const std::string& requested, EncodingKind encoding,
                                        std::string* notice = nullptr) {
  const std::string why = auto_keeps_cpu_reason(encoding);
  if (requested != "auto" || why.empty()) return requested;
  if (notice) *notice = "auto: " + why;
  return "cpu";
}

} // namespace redraw
