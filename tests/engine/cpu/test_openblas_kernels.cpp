// Which OpenBLAS kernels the CPU backend runs (cpu/openblas_kernels.h): when OpenBLAS falls back
// to kernels without AVX on a processor its table does not know, the family follows the CPU's
// features instead; a user's OPENBLAS_CORETYPE always wins.
#include "cpu/openblas_kernels.h"

#include <doctest/doctest.h>

#include <cblas.h>

#include <cstdlib>
#include <string>
#include <strings.h>

using namespace redraw;

TEST_CASE("openblas kernels: the family follows the CPU's vector features") {
  CpuVectorFeatures f;
  CHECK(openblas_family_for(f) == nullptr); // SSE only: OpenBLAS's own choice
  f.avx = true;
  CHECK(std::string(openblas_family_for(f)) == "Sandybridge");
  f.avx2 = true; // AVX2 without FMA is not a Haswell (its kernels use FMA)
  CHECK(std::string(openblas_family_for(f)) == "Sandybridge");
  f.fma = true;
  CHECK(std::string(openblas_family_for(f)) == "Haswell");
  f.avx512f = true; // AVX-512 foundation alone (Knights Landing) lacks what SkylakeX's kernels use
  CHECK(std::string(openblas_family_for(f)) == "Haswell");
  f.avx512bw = f.avx512dq = f.avx512vl = true;
  CHECK(std::string(openblas_family_for(f)) == "SkylakeX");
}

TEST_CASE("openblas kernels: a fall-back to SSE kernels on an AVX processor is replaced, a known family kept") {
  CpuVectorFeatures avx512;
  avx512.avx = avx512.avx2 = avx512.fma = avx512.avx512f = avx512.avx512bw = avx512.avx512dq = avx512.avx512vl = true;
  CpuVectorFeatures sse;
  // Only without the user's variable (the kernel-family reruns set one): it always wins.
  if (!std::getenv("OPENBLAS_CORETYPE")) {
    // Debian 12's OpenBLAS on a 2023 Xeon (family 6, model 207): Prescott.
    CHECK(std::string(openblas_family_to_set("Prescott", avx512)) == "SkylakeX");
    CHECK(std::string(openblas_family_to_set("Nehalem", avx512)) == "SkylakeX");
    CHECK(std::string(openblas_family_to_set("Core2", avx512)) == "SkylakeX");
    CHECK(openblas_family_to_set("SkylakeX", avx512) == nullptr);
    CHECK(openblas_family_to_set("Zen", avx512) == nullptr); // a family OpenBLAS chose knowingly
    CHECK(openblas_family_to_set("haswell", avx512) == nullptr);
    CHECK(openblas_family_to_set("Prescott", sse) == nullptr); // no AVX: nothing better to choose
  } else {
    CHECK(openblas_family_to_set("Prescott", avx512) == nullptr);
  }
  CHECK(openblas_family_has_avx("Sandybridge"));
  CHECK_FALSE(openblas_family_has_avx("Prescott"));
  CHECK_FALSE(openblas_family_has_avx("Atom"));
}

TEST_CASE("openblas kernels: this process runs AVX kernels on an AVX processor, or the family it was told") {
  // Read from OpenBLAS itself: at 4560a09, on a processor its table did not know, Prescott.
  const std::string running = openblas_kernel_name();
  const OpenblasChoice c = openblas_choice();
  const char* family = openblas_family_for(detect_cpu_vector_features());
  CAPTURE(running);
  CAPTURE(c.requested);
  const std::string described = openblas_kernel_description();
  CAPTURE(described);
  CHECK(described.find("OpenBLAS " + running + " kernels") == 0);
  if (c.source == OpenblasChoiceSource::user) {
    // A test run under one family (ctest's kernel reruns) or a user's choice: it wins.
    CHECK(strcasecmp(running.c_str(), c.requested.c_str()) == 0);
    CHECK(described.find("(OPENBLAS_CORETYPE=" + c.requested + ")") != std::string::npos);
  } else if (c.source == OpenblasChoiceSource::redraw) {
    REQUIRE(family);
    CHECK(running == family);
    CHECK(described.find("chosen from the CPU's features") != std::string::npos);
  } else if (family) {
    CHECK(openblas_family_has_avx(running));
  } else {
    MESSAGE("no AVX on this CPU: OpenBLAS's own choice (" << running << ") stands");
  }
}
