// Backend selection and the CUDA module's error paths; these run everywhere, with or without a
// GPU (what they check depends on whether a device is present, and both branches are asserted).
// This binary links no CUDA library: the CUDA backend is reached only through the module.
#include "app/backend_registry.h"
#include "app/device_plugin_loader.h"
#include "engine/backend_names.h"
#include "engine/errors.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

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

TEST_CASE("backend registry: every record of engine/backend_names.h has its factory here, in order") {
  std::vector<std::string> records;
  for (const BackendInfo* b : k_backends) records.emplace_back(b->name);
  CHECK(backend_makers() == records);
  CHECK(backend_taken_by("cpu") == "cpu");
  CHECK(backend_taken_by("auto") == (cuda_available() ? "cuda" : "cpu"));
  CHECK(!gpu_usable_for("cpu"));
  CHECK(gpu_usable_for("auto") == cuda_available());
  CHECK_THROWS_WITH_AS(make_backend("cpu", nullptr, "tf32"),
                       "--precision tf32: the CPU backend computes in fp32 only (use --backend cuda)", ConfigError);
}

TEST_CASE("backend registry: --backend cuda without a usable GPU is a clear BackendError naming the reason") {
  if (cuda_available()) {
    CHECK(make_backend("cuda")->name() == "cuda");
    return;
  }
  const DevicePlugin& p = cuda_plugin();
  try {
    (void)make_backend("cuda");
    FAIL("make_backend(\"cuda\") returned without a usable device");
  } catch (const BackendError& e) {
    const std::string what = e.what();
    CHECK(what.find("--backend cuda") != std::string::npos);
    if (!p.api) CHECK(what.find(p.why) != std::string::npos);
  }
  const std::string all = describe_backends();
#if REDRAW_HAVE_CUDA
  CHECK(all.find("cuda: ") != std::string::npos);
  CHECK((p.api ? all.find("cuda: module") : all.find("cuda: compiled in, unavailable")) != std::string::npos);
#else
  CHECK(all.find("cuda: not compiled in") != std::string::npos);
#endif
}

TEST_CASE("cuda module: a file that is not a module is refused with the loader's reason") {
  const std::string path = std::filesystem::temp_directory_path() / ("redraw-not-a-module-" + std::to_string(getpid()) + ".so");
  {
    std::ofstream f(path);
    f << "this is not an ELF file\n";
  }
  const DevicePlugin p = load_device_plugin(path, false);
  std::filesystem::remove(path);
  CHECK(p.api == nullptr);
  CHECK(p.why.find("could not be loaded") != std::string::npos);
  const DevicePlugin gone = load_device_plugin("/nonexistent/libredraw_cuda.so", false);
  CHECK(gone.api == nullptr);
  CHECK_FALSE(gone.why.empty());
}

#if REDRAW_HAVE_CUDA
TEST_CASE("cuda module: loads from beside the executable, and its errors arrive as engine's types") {
  // The driver check is skipped, so this runs on machines without a GPU: the module must link
  // (every symbol resolved, cuBLAS found through its RUNPATH) and report a missing device cleanly.
  const auto candidates = device_plugin_candidates();
  REQUIRE_FALSE(candidates.empty());
  REQUIRE_MESSAGE(std::filesystem::exists(candidates[0]), candidates[0] << " was not built");
  const DevicePlugin p = load_device_plugin(candidates[0], false);
  REQUIRE_MESSAGE(p.api != nullptr, p.why);
  CHECK(std::string(p.api->name) == "cuda");
  CHECK(std::string(p.api->signature) == device_plugin_signature());
  CHECK(p.api->build_description().find("CUDA runtime") != std::string::npos);
  std::string why;
  const int n = p.api->device_count(&why);
  CHECK(n >= 0);
  if (n == 0) {
    CHECK_FALSE(why.empty());
    CHECK(p.api->devices_description().find("no device") != std::string::npos);
    // Thrown inside the module, caught here by engine's type.
    CHECK_THROWS_AS(p.api->make_backend(""), BackendError);
    CHECK_THROWS_AS(p.api->make_interop()->make_frame_ring(), BackendError);
    MESSAGE("no CUDA device here: " << why);
  } else {
    auto b = p.api->make_backend("");
    CHECK(b->name() == "cuda");
    CHECK(b->device_renderer() != nullptr);
    CHECK_THROWS_AS(p.api->make_backend("fp64"), ConfigError);
  }
}
#endif
