// The backend vocabulary (engine/backend_names.h): one record per backend, read by the CLI's
// checks, the GUI's lists, the batch rule, the memory estimate and the sweep.
#include "engine/backend_names.h"

#include <doctest/doctest.h>

#include <set>

using namespace redraw;

TEST_CASE("backend records: the choices, the precisions and the lists they make") {
  CHECK(backend_choices() == std::vector<std::string>{"auto", "cpu", "cuda"});
  CHECK(backend_choices_text() == "auto, cpu or cuda");
  CHECK(precision_choices() == std::vector<std::string>{"auto", "fp32", "tf32", "bf16"});
  CHECK(known_precision(""));
  CHECK(known_precision("bf16"));
  CHECK(!known_precision("fp16"));
  CHECK(find_backend("cpu") == &k_cpu_backend);
  CHECK(find_backend("auto") == nullptr);
  CHECK(find_backend("CPU") == nullptr);
  CHECK(is_gpu_backend("cuda"));
  CHECK(!is_gpu_backend("cpu"));
  CHECK(!is_gpu_backend("auto"));
  CHECK(may_use_gpu("auto"));
  CHECK(may_use_gpu("cuda"));
  CHECK(!may_use_gpu("cpu"));
  std::set<std::string> names;
  for (const BackendInfo* b : k_backends) {
    CAPTURE(b->name);
    CHECK(names.insert(b->name).second); // unique
    CHECK(!b->precisions.empty());
  }
}

TEST_CASE("backend records: the batch rule (the CPU's minibatch when the config sets one)") {
  TrainingSpec t;
  t.batch_size = 65536;
  t.cpu_batch_size = 4096;
  CHECK(backend_batch(t, "cpu") == 4096);
  CHECK(backend_batch(t, "cuda") == 65536);
  CHECK(backend_batch(t, "auto") == 65536);
  t.cpu_batch_size = -1; // "same"
  CHECK(backend_batch(t, "cpu") == 65536);
}
