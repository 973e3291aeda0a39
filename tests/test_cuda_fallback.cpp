// Backend selection and the CUDA error paths; these run everywhere, with or without a GPU
// (what they check depends on whether a device is present, and both branches are asserted).
#include "app/backend_registry.h"
#include "engine/errors.h"

#include <doctest/doctest.h>

#if REDRAW_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

#include <string>

using namespace redraw;

TEST_CASE("backend registry: auto always gives a working backend, with a notice when it falls back") {
  std::string notice;
  auto backend = make_backend("auto", &notice);
  REQUIRE(backend);
  if (backend->name() == "cpu") {
    CHECK_FALSE(notice.empty());
    CHECK(notice.find("using the CPU backend") != std::string::npos);
    // Either there is no device, or one is there and the notice says why it couldn't be used.
    CHECK((!cuda_available() || notice.find("CUDA device unusable") != std::string::npos));
  } else {
    CHECK(backend->name() == "cuda");
    CHECK(notice.empty());
    CHECK(cuda_available());
  }
}

TEST_CASE("backend registry: --precision is checked, and the CPU never pretends to use tensor cores") {
  CHECK_THROWS_WITH_AS(make_backend("cpu", nullptr, "fp16"),
                       "--precision: 'fp16' not found (known: auto, fp32, tf32, bf16)", ConfigError);
  CHECK_THROWS_WITH_AS(make_backend("auto", nullptr, "double"),
                       "--precision: 'double' not found (known: auto, fp32, tf32, bf16)", ConfigError);
  CHECK_THROWS_AS(make_backend("cpu", nullptr, "tf32"), ConfigError);
  CHECK(make_backend("cpu", nullptr, "fp32")->name() == "cpu");
  CHECK(make_backend("cpu", nullptr, "auto")->name() == "cpu");
  std::string notice;
  auto backend = make_backend("auto", &notice, "bf16");
  REQUIRE(backend);
  if (backend->name() == "cpu") {
    CHECK(notice.find("in fp32 (--precision bf16 needs a GPU)") != std::string::npos);
  } else {
    CHECK(notice.empty());
  }
}

TEST_CASE("backend registry: unknown backend names are listed") {
  CHECK_THROWS_WITH_AS(make_backend("metal"), "Backend 'metal' not found (known: auto, cpu, cuda)", ConfigError);
}

#if REDRAW_HAVE_CUDA

TEST_CASE("cuda: device count never throws and explains a zero") {
  std::string why;
  int count = -1;
  CHECK_NOTHROW(count = cuda_device_count(&why));
  CHECK(count >= 0);
  CHECK(cuda_device_count() == count); // the reason is optional
  if (count == 0) {
    CHECK_FALSE(why.empty());
    MESSAGE("no CUDA device here: " << why);
  }
}

TEST_CASE("cuda: --backend cuda without a device is a clear BackendError, not a crash") {
  std::string why;
  if (cuda_device_count(&why) > 0) {
    auto b = make_cuda_backend();
    CHECK(b->name() == "cuda");
    return;
  }
  try {
    (void)make_cuda_backend();
    FAIL("make_cuda_backend() returned without a device");
  } catch (const BackendError& e) {
    const std::string what = e.what();
    CHECK(what.find("cuda backend unavailable") != std::string::npos);
    CHECK(what.find(why) != std::string::npos);
  }
  CHECK_THROWS_AS(CudaBackend(0), BackendError);
  CHECK_THROWS_AS(make_backend("cuda"), BackendError);
}

TEST_CASE("cuda: build and device descriptions") {
  const std::string build = cuda_build_description();
  CHECK(build.find("CUDA runtime") != std::string::npos);
  CHECK(build.find("cuBLAS") != std::string::npos);
  const std::string devices = cuda_devices_description();
  CHECK_FALSE(devices.empty());
  if (cuda_device_count() == 0) CHECK(devices.find("no device") != std::string::npos);
  else CHECK(devices.find("compute capability") != std::string::npos);
  const std::string all = describe_backends();
  CHECK(all.find("cuda: compiled in") != std::string::npos);
}

TEST_CASE("cuda: precision names") {
  CHECK(parse_cuda_precision("fp32") == CudaPrecision::Fp32);
  CHECK(parse_cuda_precision("TF32") == CudaPrecision::Tf32);
  CHECK(parse_cuda_precision("bf16") == CudaPrecision::Bf16);
  CHECK(parse_cuda_precision("Auto") == CudaPrecision::Auto);
  CHECK(std::string(cuda_precision_name(CudaPrecision::Auto)) == "auto");
  CHECK(std::string(cuda_precision_name(CudaPrecision::Tf32)) == "tf32");
  CHECK(std::string(cuda_precision_name(CudaPrecision::Bf16)) == "bf16");
  CHECK_THROWS_WITH_AS(parse_cuda_precision("fp64"), "Precision 'fp64' not found (known: auto, fp32, tf32, bf16)",
                       ConfigError);
}

#else

TEST_CASE("backend registry: a build without CUDA refuses --backend cuda clearly") {
  CHECK_THROWS_AS(make_backend("cuda"), BackendError);
  CHECK(describe_backends().find("cuda: not compiled in") != std::string::npos);
}

#endif
