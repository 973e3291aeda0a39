#include "cuda/trained_encoding.h"

#include "engine/errors.h"
#include "engine/model_family.h"

namespace redraw::cuda {

namespace {
using CudaTrainedFactory = std::unique_ptr<CudaTrainedEncoding> (*)(const EncodingSpec&);
struct CudaFamilyKernels {
  const ModelFamily* family;
  CudaTrainedFactory trained;
  /// Checked against the CPU on a device (its tests/cuda cases passed on a GPU): until then "auto"
  /// keeps the family on the CPU, whose passes are tested, and --backend cuda runs the kernels.
  bool checked_on_device;
};
// The registry: one line per family whose encoding reads trainable floats.
constexpr CudaFamilyKernels k_cuda_kernels[] = {
    {&k_hash_grid_family, make_cuda_hash_grid_encoding, true},
    {&k_gaussians_family, make_cuda_gaussians_encoding, true},
    {&k_sad_family, make_cuda_sad_encoding, false}, // tests/cuda/test_cuda_sad.cpp awaits a GPU
};

const CudaFamilyKernels* kernels_of(const EncodingSpec& enc) {
  const ModelFamily* family = &model_family(enc.kind);
  for (const CudaFamilyKernels& entry : k_cuda_kernels)
    if (entry.family == family) return &entry;
  return nullptr;
}
} // namespace

std::string cuda_family_refusal(const EncodingSpec& enc) {
  // A trained family without kernels here is refused by name, before anything is allocated,
  // rather than encoded as a closed form it is not.
  const ModelFamily& family = model_family(enc.kind);
  if (const CudaFamilyKernels* k = kernels_of(enc))
    return k->checked_on_device ? std::string()
                                : "the " + family_noun(family) +
                                      " encoding's CUDA kernels await their first check on a GPU (--backend cuda "
                                      "runs them)";
  if (!family.trained_count) return {};
  return "the " + family_noun(family) + " encoding has no CUDA kernels yet";
}

std::unique_ptr<CudaTrainedEncoding> cuda_trained_encoding(const EncodingSpec& enc) {
  if (const CudaFamilyKernels* k = kernels_of(enc)) return k->trained(enc);
  if (const std::string why = cuda_family_refusal(enc); !why.empty()) throw BackendError("cuda backend: " + why + "; the CPU backend trains it (--backend cpu)");
  return nullptr;
}

} // namespace redraw::cuda
