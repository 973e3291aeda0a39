#include "cpu/cpu_kernels.h"

#include <cstdlib>
#include <cstring>

namespace redraw {

namespace {
bool has_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool has_avx512() {
  return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

const CpuKernels& choose() {
  const char* forced = std::getenv("REDRAW_SIMD");
  if (forced && !std::strcmp(forced, "sse2")) return kernels_detail::sse2();
  if (forced && !std::strcmp(forced, "avx2") && has_avx2()) return kernels_detail::avx2();
  if (has_avx512() && !(forced && !std::strcmp(forced, "avx2"))) return kernels_detail::avx512();
  if (has_avx2()) return kernels_detail::avx2();
  return kernels_detail::sse2();
}
} // namespace

const CpuKernels& cpu_kernels() {
  static const CpuKernels& k = choose();
  return k;
}

std::vector<const CpuKernels*> cpu_kernel_variants() {
  std::vector<const CpuKernels*> v{&kernels_detail::sse2()};
  if (has_avx2()) v.push_back(&kernels_detail::avx2());
  if (has_avx512()) v.push_back(&kernels_detail::avx512());
  return v;
}

} // namespace redraw
