// Device discovery, build description and the factory. Compiled by nvcc so that
// __CUDA_ARCH_LIST__ (the architectures of this build) is defined.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#define REDRAW_STR2(...) #__VA_ARGS__
#define REDRAW_STR(...) REDRAW_STR2(__VA_ARGS__)

namespace redraw {

namespace {

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string explain(cudaError_t e) {
  int runtime = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  switch (e) {
  case cudaErrorNoDevice: return "the NVIDIA driver reports no CUDA-capable device (cudaErrorNoDevice)";
  case cudaErrorInsufficientDriver:
    return "no NVIDIA driver is installed, or it is older than this build's CUDA " + version_string(runtime) +
           " runtime (cudaErrorInsufficientDriver)";
  case cudaErrorStubLibrary: return "only the CUDA driver stub library is installed, not a driver (cudaErrorStubLibrary)";
  default: return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  }
}

} // namespace

const char* cuda_precision_name(CudaPrecision p) {
  switch (p) {
  case CudaPrecision::Fp32: return "fp32";
  case CudaPrecision::Tf32: return "tf32";
  case CudaPrecision::Bf16: return "bf16";
  case CudaPrecision::Auto:
    return "auto";
  }
  return "fp32";
}

CudaPrecision parse_cuda_precision(const std::string& name) {
  std::string s;
  for (char c : name) s += char(std::tolower(static_cast<unsigned char>(c)));
  if (s == "fp32") return CudaPrecision::Fp32;
  if (s == "tf32") return CudaPrecision::Tf32;
  if (s == "bf16") return CudaPrecision::Bf16;
  if (s == "auto") return CudaPrecision::Auto;
  throw ConfigError("Precision '" + name + "' not found (known: auto, fp32, tf32, bf16)");
}

int cuda_device_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (why) *why = explain(e);
    return 0;
  }
  if (n <= 0 && why) *why = "the NVIDIA driver reports no CUDA-capable device";
  return n > 0 ? n : 0;
}

std::unique_ptr<Backend> make_cuda_backend(const std::string& precision) {
  std::string why;
  if (cuda_device_count(&why) == 0) throw BackendError("cuda backend unavailable: " + why);
  // The precision is parsed before the device is opened, so a typo never costs a CUDA context.
  std::optional<CudaPrecision> p;
  if (!precision.empty()) {
    try {
      p = parse_cuda_precision(precision);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string("--precision: ") + e.what());
    }
  } else if (const char* env = std::getenv("REDRAW_CUDA_PRECISION"); env && *env) {
    try {
      p = parse_cuda_precision(env);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string("REDRAW_CUDA_PRECISION: ") + e.what());
    }
  }
  auto backend = std::make_unique<CudaBackend>(0);
  if (p) backend->set_precision(*p);
  return backend;
}

std::string cuda_build_description() {
  int runtime = 0, driver = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  (void)cudaDriverGetVersion(&driver);
  (void)cudaGetLastError();
  int blas_major = 0, blas_minor = 0, blas_patch = 0;
  (void)cublasGetProperty(MAJOR_VERSION, &blas_major);
  (void)cublasGetProperty(MINOR_VERSION, &blas_minor);
  (void)cublasGetProperty(PATCH_LEVEL, &blas_patch);
  std::string s = "CUDA runtime " + version_string(runtime) + " (static), cuBLAS " + std::to_string(blas_major) + "." +
                  std::to_string(blas_minor) + "." + std::to_string(blas_patch) + ", driver ";
  s += driver > 0 ? version_string(driver) : std::string("none");
#ifdef __CUDA_ARCH_LIST__
  s += ", kernels for compute capabilities " REDRAW_STR(__CUDA_ARCH_LIST__);
#endif
  s += ", precisions auto fp32 tf32 bf16";
  return s;
}

std::string cuda_devices_description() {
  std::string why;
  const int n = cuda_device_count(&why);
  if (n == 0) return "cuda: no device: " + why + "\n";
  std::string s;
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    const cudaError_t e = cudaGetDeviceProperties(&p, d);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      s += "cuda:" + std::to_string(d) + ": unreadable (" + cudaGetErrorString(e) + ")\n";
      continue;
    }
    char line[512];
    std::snprintf(line, sizeof line, "cuda:%d: %s, %.1f GiB, compute capability %d.%d, %d SMs\n", d, p.name,
                  double(p.totalGlobalMem) / double(1ull << 30), p.major, p.minor, p.multiProcessorCount);
    s += line;
  }
  return s;
}

} // namespace redraw
