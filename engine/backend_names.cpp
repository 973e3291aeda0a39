#include "engine/backend_names.h"

#include <algorithm>

namespace redraw {

const BackendInfo* find_backend(std::string_view name) {
  for (const BackendInfo* b : k_backends)
    if (name == b->name) return b;
  return nullptr;
}

std::vector<std::string> backend_choices() {
  std::vector<std::string> out{k_auto_backend};
  for (const BackendInfo* b : k_backends) out.emplace_back(b->name);
  return out;
}

std::string backend_choices_text() { return or_list(backend_choices()); }

std::string or_list(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

std::vector<std::string> precision_choices() {
  std::vector<std::string> out{k_auto_precision};
  for (const BackendInfo* b : k_backends)
    for (const char* p : b->precisions)
      if (std::find(out.begin(), out.end(), p) == out.end()) out.emplace_back(p);
  return out;
}

bool known_precision(std::string_view precision) {
  const std::vector<std::string> known = precision_choices();
  return precision.empty() || std::find(known.begin(), known.end(), precision) != known.end();
}

bool is_gpu_backend(std::string_view name) {
  const BackendInfo* b = find_backend(name);
  return b && b->is_gpu;
}

bool may_use_gpu(std::string_view requested) { return requested == k_auto_backend || is_gpu_backend(requested); }

int64_t backend_batch(const TrainingSpec& training, std::string_view backend) {
  const BackendInfo* b = find_backend(backend);
  return b && b->small_minibatch && training.cpu_batch_size >= 0 ? training.cpu_batch_size : training.batch_size;
}

} // namespace redraw
