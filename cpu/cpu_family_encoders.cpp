#include "cpu/cpu_family_encoders.h"

#include "cpu/cpu_kernels.h"

#include <omp.h>

#include <algorithm>

namespace redraw::cpu {

namespace {
/// Fourier features through libmvec's sin and cos (cpu/cpu_kernels.h), each thread a contiguous
/// run of rows.
void fourier_encode_team(const EncodingParams& e, const float* b, const float* coords, int64_t n, float* out) {
  const CpuKernels& k = cpu_kernels();
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t r0 = std::min(n, n * t / nt), r1 = std::min(n, n * (t + 1) / nt);
    if (r1 > r0) k.fourier_encode(b, e.features, coords, r0, r1, out);
  }
}

struct CpuEncoderEntry {
  EncodingKind kind;
  CpuEncoder encode;
};
// The registry: one line per family with an encoder of its own.
constexpr CpuEncoderEntry k_cpu_encoders[] = {{EncodingKind::Fourier, fourier_encode_team}};
} // namespace

CpuEncoder cpu_family_encoder(EncodingKind kind) {
  for (const CpuEncoderEntry& entry : k_cpu_encoders)
    if (entry.kind == kind) return entry.encode;
  return nullptr;
}

} // namespace redraw::cpu
