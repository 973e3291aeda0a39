// The CUDA backend's device discovery, factory and descriptions, called directly (this binary
// links the CUDA backend statically). Without a device each case checks the error path.
#include "cuda/cuda_backend.h"
#include "engine/errors.h"

#include <doctest/doctest.h>

#include <string>

using namespace redraw;

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
}

TEST_CASE("cuda: build and device descriptions") {
  const std::string build = cuda_build_description();
  CHECK(build.find("CUDA runtime") != std::string::npos);
  CHECK(build.find("cuBLAS") != std::string::npos);
  const std::string devices = cuda_devices_description();
  CHECK_FALSE(devices.empty());
  if (cuda_device_count() == 0) CHECK(devices.find("no device") != std::string::npos);
  else CHECK(devices.find("compute capability") != std::string::npos);
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

