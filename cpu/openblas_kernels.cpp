#include "cpu/openblas_kernels.h"

#include <cblas.h>

#include <cstdlib>
#include <cstring>
#include <strings.h>

namespace redraw {

namespace {
constexpr const char* k_marker = "REDRAW_OPENBLAS_CHOSEN"; ///< the family Redraw set, and what it replaced

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}
} // namespace

CpuVectorFeatures detect_cpu_vector_features() noexcept {
  CpuVectorFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  // The builtins also ask the operating system (xgetbv): a feature whose registers it does not
  // save reads false.
  __builtin_cpu_init();
  f.avx = __builtin_cpu_supports("avx");
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512bw = __builtin_cpu_supports("avx512bw");
  f.avx512dq = __builtin_cpu_supports("avx512dq");
  f.avx512vl = __builtin_cpu_supports("avx512vl");
#endif
  return f;
}

const char* openblas_family_for(const CpuVectorFeatures& f) noexcept {
  if (f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl && f.avx2 && f.fma) return "SkylakeX";
  if (f.avx2 && f.fma) return "Haswell";
  if (f.avx) return "Sandybridge";
  return nullptr;
}

bool openblas_family_has_avx(const std::string& family) noexcept {
  // OpenBLAS 0.3's x86-64 families with AVX kernels, by the names openblas_get_corename gives.
  for (const char* name : {"Sandybridge", "Haswell", "SkylakeX", "Cooperlake", "SapphireRapids", "Zen", "Bulldozer",
                           "Piledriver", "Steamroller", "Excavator"})
    if (strcasecmp(family.c_str(), name) == 0) return true;
  return false;
}

const char* openblas_family_to_set(const std::string& running, const CpuVectorFeatures& f) noexcept {
  if (env("OPENBLAS_CORETYPE")) return nullptr; // the user's (or an earlier run's) choice stands
  if (openblas_family_has_avx(running)) return nullptr; // OpenBLAS knows this processor
  return openblas_family_for(f);
}

bool prepare_openblas_environment() noexcept {
  const std::string running = openblas_kernel_name();
  const char* family = openblas_family_to_set(running, detect_cpu_vector_features());
  if (!family) return false;
  const std::string marker = std::string(family) + " " + running;
  if (setenv(k_marker, marker.c_str(), 1) != 0) return false;
  if (setenv("OPENBLAS_CORETYPE", family, 1) != 0) {
    unsetenv(k_marker);
    return false;
  }
  return true;
}

OpenblasChoice openblas_choice() {
  OpenblasChoice c;
  const char* requested = env("OPENBLAS_CORETYPE");
  if (!requested) return c;
  c.requested = requested;
  const char* marker = env(k_marker);
  const bool ours = marker && std::strncmp(marker, requested, std::strlen(requested)) == 0 &&
                    marker[std::strlen(requested)] == ' ';
  c.source = ours ? OpenblasChoiceSource::redraw : OpenblasChoiceSource::user;
  return c;
}

std::string openblas_kernel_name() {
  const char* name = openblas_get_corename();
  std::string s = name && *name ? name : "unknown";
  // Some builds name a family in lower case ("haswell"); as OpenBLAS documents them.
  if (s[0] >= 'a' && s[0] <= 'z') s[0] = char(s[0] - 'a' + 'A');
  return s;
}

std::string openblas_kernel_description() {
  const OpenblasChoice c = openblas_choice();
  const std::string running = openblas_kernel_name();
  std::string s = "OpenBLAS " + running + " kernels";
  if (c.source == OpenblasChoiceSource::redraw) {
    const CpuVectorFeatures f = detect_cpu_vector_features();
    const char* marker = env(k_marker);
    const char* replaced = marker ? std::strchr(marker, ' ') : nullptr;
    s += std::string(" (chosen from the CPU's features: ") + (f.avx512f ? "AVX-512" : f.avx2 ? "AVX2" : "AVX") +
         "; OpenBLAS fell back to " + (replaced ? replaced + 1 : "an SSE family") + ")";
  } else if (c.source == OpenblasChoiceSource::user) {
    s += " (OPENBLAS_CORETYPE=" + c.requested + ")";
  }
  // OpenBLAS ignores a family it was not built with and picks its own: say so.
  if (!c.requested.empty() && strcasecmp(c.requested.c_str(), running.c_str()) != 0)
    s += ", not the " + c.requested + " kernels asked for";
  return s;
}

} // namespace redraw
