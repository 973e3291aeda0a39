#pragma once
/// Which OpenBLAS kernel family the CPU backend's matrix products run on, and why.
/// - OpenBLAS picks its kernels once, when the library loads, from a table of the processors it
///   knows. On a processor newer than its table (Debian 12's 0.3.21 on a 2023 Xeon) it falls back
///   to a family without AVX (Prescott, from 2004): 3-4x slower, and with other bits than the
///   families the tests prove equal (SkylakeX, Haswell, Sandybridge).
/// - Such a fall-back is seen after the library has loaded (openblas_family_to_set). The program
///   then sets OPENBLAS_CORETYPE to the family the CPU's features choose, with
///   REDRAW_OPENBLAS_CHOSEN beside it, and re-executes itself once: OpenBLAS reads the variable only
///   when it loads, and libc resets an environment changed before that. The variables stay for
///   child processes (the same machine: the same choice). A user's own OPENBLAS_CORETYPE wins.
#include <string>

namespace redraw {

/// The vector instruction sets that decide the family (each usable: the CPU has it and the
/// operating system saves its registers).
struct CpuVectorFeatures {
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
};

/// This CPU's features (cpuid through the compiler's builtins).
CpuVectorFeatures detect_cpu_vector_features() noexcept;

/// The OpenBLAS family for a CPU with these features: "SkylakeX" (AVX-512 F, BW, DQ and VL with
/// AVX2 and FMA), "Haswell" (AVX2 and FMA), "Sandybridge" (AVX), or nullptr (none of them).
const char* openblas_family_for(const CpuVectorFeatures& f) noexcept;

/// True for an OpenBLAS family name whose kernels use AVX or wider (Sandybridge, Haswell, Zen,
/// SkylakeX, Cooperlake, ...); false for the SSE families a fall-back lands on (Prescott, Core2,
/// Nehalem, Atom, ...) and for names it does not know.
bool openblas_family_has_avx(const std::string& family) noexcept;

/// The family to set before re-executing: the features' family when OpenBLAS, as loaded now, runs
/// an SSE family on a CPU with AVX, and OPENBLAS_CORETYPE is not set; else nullptr.
const char* openblas_family_to_set(const std::string& running, const CpuVectorFeatures& f) noexcept;

/// Sets OPENBLAS_CORETYPE and REDRAW_OPENBLAS_CHOSEN when this process's OpenBLAS fell back
/// (openblas_family_to_set with the running family and this CPU). Returns true when it set them:
/// the caller re-executes the program for OpenBLAS to load with them.
bool prepare_openblas_environment() noexcept;

/// Where the family in use came from.
enum class OpenblasChoiceSource {
  redraw,   ///< chosen from the CPU's features after OpenBLAS fell back
  user,     ///< OPENBLAS_CORETYPE was set by the user (or a test)
  openblas, ///< OpenBLAS's own pick
};

struct OpenblasChoice {
  OpenblasChoiceSource source = OpenblasChoiceSource::openblas;
  std::string requested; ///< the OPENBLAS_CORETYPE value OpenBLAS read (empty: none)
};

/// The choice, from this process's environment.
OpenblasChoice openblas_choice();

/// The kernel family OpenBLAS runs (its own name for it, e.g. "SkylakeX", "Haswell", "Prescott").
std::string openblas_kernel_name();

/// One phrase for --version, `info --backends` and the status bar, e.g. "OpenBLAS Zen kernels",
/// "OpenBLAS SkylakeX kernels (chosen from the CPU's features: AVX-512; OpenBLAS fell back to
/// Prescott)" or "OpenBLAS Haswell kernels (OPENBLAS_CORETYPE=Haswell)".
std::string openblas_kernel_description();

} // namespace redraw
