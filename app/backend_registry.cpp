#include "app/backend_registry.h"

#include "app/device_plugin_loader.h"
#include "cpu/cpu_backend.h"
#include "engine/backend_names.h"
#include "engine/errors.h"

#include <cctype>

namespace redraw {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// `precision` is one `b` computes in ("", auto: its own choice).
bool computes_in(const BackendInfo& b, const std::string& precision) {
  if (precision.empty() || precision == k_auto_precision) return true;
  for (const char* p : b.precisions)
    if (precision == p) return true;
  return false;
}

void check_precision_name(const std::string& precision) {
  if (!known_precision(precision))
    throw ConfigError("--precision: '" + precision + "' not found (known: " + joined(precision_choices()) + ")");
}

/// The factory of a record in engine/backend_names.h: how many of its devices can run here (the
/// reason in `why` when none), how to make it, and its lines for `info --backends`. One entry per
/// record (checked by the tests: backend_makers covers k_backends).
struct BackendMaker {
  const BackendInfo* info;
  int (*devices)(std::string* why);
  std::unique_ptr<Backend> (*make)(const std::string& precision); ///< BackendError naming why it can't
  std::string (*describe)();
};

int cuda_devices(std::string* why) {
  const DevicePlugin& p = cuda_plugin();
  if (!p.api) {
    if (why) *why = p.why;
    return 0;
  }
  const int n = p.api->device_count(why);
  if (n == 0 && why) *why = "no CUDA device (" + *why + ")";
  return n;
}

std::unique_ptr<Backend> make_cuda(const std::string& precision) {
  const DevicePlugin& p = cuda_plugin();
  if (!p.api) throw BackendError("--backend " + std::string(k_cuda_backend.name) + ": the GPU is unavailable: " + p.why);
  return p.api->make_backend(precision); // throws BackendError with the reason when no device is usable
}

std::string describe_cuda() {
  const DevicePlugin& p = cuda_plugin();
  const std::string name = k_cuda_backend.name;
  if (!p.api) {
#if REDRAW_HAVE_CUDA
    return name + ": compiled in, unavailable: " + p.why + "\n";
#else
    return name + ": not compiled in\n";
#endif
  }
  return name + ": module " + p.path + " (" + p.api->build_description() + ")\n" + p.api->devices_description();
}

const BackendMaker k_makers[] = {
    {&k_cpu_backend, [](std::string*) { return 1; },
     [](const std::string&) -> std::unique_ptr<Backend> { return std::make_unique<CpuBackend>(); },
     [] { return std::string(k_cpu_backend.name) + ": " + CpuBackend().device_description() + "\n"; }},
    {&k_cuda_backend, cuda_devices, make_cuda, describe_cuda},
};

const BackendMaker* maker_of(const std::string& name) {
  for (const BackendMaker& m : k_makers)
    if (name == m.info->name) return &m;
  return nullptr;
}

/// A GPU backend's maker with a usable device, in k_backends' order, or null with the reasons.
const BackendMaker* usable_gpu(std::string* why) {
  for (const BackendMaker& m : k_makers)
    if (m.info->is_gpu && m.devices(why) > 0) return &m;
  return nullptr;
}

} // namespace

std::vector<std::string> backend_makers() {
  std::vector<std::string> out;
  for (const BackendMaker& m : k_makers) out.emplace_back(m.info->name);
  return out;
}

bool cuda_available() { return cuda_devices(nullptr) > 0; }

bool gpu_usable_for(const std::string& requested) {
  if (requested == k_auto_backend) return usable_gpu(nullptr) != nullptr;
  const BackendMaker* m = maker_of(requested);
  return m && m->info->is_gpu && m->devices(nullptr) > 0;
}

std::string backend_taken_by(const std::string& requested) {
  if (requested != k_auto_backend) return requested;
  const BackendMaker* gpu = usable_gpu(nullptr);
  return gpu ? gpu->info->name : k_cpu_backend.name;
}

std::unique_ptr<Backend> make_backend(const std::string& name, std::string* notice, const std::string& precision) {
  check_precision_name(precision);
  if (name == k_auto_backend) {
    std::string why;
    // A device that is there but can't be used (no kernels for its architecture, held by another
    // process in exclusive mode, full, or lacking the precision) still falls back.
    if (const BackendMaker* gpu = usable_gpu(&why)) {
      try {
        return gpu->make(precision);
      } catch (const BackendError& e) {
        why = upper(gpu->info->name) + " device unusable: " + e.what();
      }
    }
    if (notice) {
      *notice = why + ", using the CPU backend";
      if (!computes_in(k_cpu_backend, precision))
        *notice += " in fp32 (--precision " + precision + " needs a GPU)";
    }
    return maker_of(k_cpu_backend.name)->make(precision);
  }
  const BackendMaker* m = maker_of(name);
  if (!m) throw ConfigError("Backend '" + name + "' not found (known: " + joined(backend_choices()) + ")");
  if (!computes_in(*m->info, precision))
    throw ConfigError("--precision " + precision + ": the " + upper(name) + " backend computes in " +
                      joined(std::vector<std::string>(m->info->precisions.begin(), m->info->precisions.end())) + " only (use --backend " +
                      k_cuda_backend.name + ")");
  return m->make(precision);
}

std::string describe_backends() {
  std::string s;
  for (const BackendMaker& m : k_makers) s += m.describe();
  return s;
}

BackendFactory backend_factory() {
  return [](const std::string& name, std::string* notice, const std::string& precision) {
    return make_backend(name, notice, precision);
  };
}

std::shared_ptr<DeviceInterop> make_device_interop(std::string* why) {
  const DevicePlugin& p = cuda_plugin();
  if (!p.api) {
    if (why) *why = p.why;
    return nullptr;
  }
  if (p.api->device_count(why) == 0) return nullptr;
  try {
    return p.api->make_interop();
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return nullptr;
  }
}

} // namespace redraw
