#include "cpu/cpu_family_encoders.h"

#include "cpu/cpu_gaussians.h"
#include "cpu/cpu_hash_grid.h"
#include "cpu/cpu_kernels.h"
#include "cpu/cpu_sad.h"
#include "engine/model_family.h"

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

using CpuTrainedFactory = std::unique_ptr<CpuTrainedEncoding> (*)(const EncodingSpec&);
struct CpuFamilyKernels {
  const ModelFamily* family;
  CpuEncoder encode;         ///< a closed-form family's own encoder, or null
  CpuTrainedFactory trained; ///< a trained family's kernels, or null
};
// The registry: one line per family with kernels of its own.
constexpr CpuFamilyKernels k_cpu_kernels[] = {
    {&k_fourier_family, fourier_encode_team, nullptr},
    {&k_hash_grid_family, nullptr, make_cpu_hash_grid_encoding},
    {&k_gaussians_family, nullptr, make_cpu_gaussians_encoding},
    {&k_sad_family, nullptr, make_cpu_sad_encoding},
};

const CpuFamilyKernels* kernels_of(EncodingKind kind) {
  const ModelFamily* family = &model_family(kind);
  for (const CpuFamilyKernels& entry : k_cpu_kernels)
    if (entry.family == family) return &entry;
  return nullptr;
}
} // namespace

CpuEncoder cpu_family_encoder(EncodingKind kind) {
  const CpuFamilyKernels* k = kernels_of(kind);
  return k ? k->encode : nullptr;
}

std::unique_ptr<CpuTrainedEncoding> cpu_trained_encoding(const EncodingSpec& enc) {
  const CpuFamilyKernels* k = kernels_of(enc.kind);
  return k && k->trained ? k->trained(enc) : nullptr;
}

} // namespace redraw::cpu
