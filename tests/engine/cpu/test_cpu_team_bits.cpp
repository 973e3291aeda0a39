// The CPU backend's weights do not depend on its team size, from one thread to more threads than
// a chunk has tiles: every preset's network, trained a few steps at 1 to 32 threads, ends with the
// same bits (docs/contributing.md, 16). The reference is the one-thread run; a partition of the
// work that followed the team (a tile per thread, a slot per thread, a sum per thread) would
// round differently at some count and fail here. ctest runs it again under each OpenBLAS kernel
// family (unit_tests_openblas_*).
#include "test_support.h"
#include "cpu/cpu_backend.h"
#include "engine/backend_names.h"
#include "engine/thread_budget.h"
#include <doctest/doctest.h>
#include <cstring>

using namespace redraw;

namespace {

/// A preset's network, loss, optimizer and CPU batch on a w x h image, the hash grid sized to it
/// as a run sizes it.
RunConfig preset_on(const std::string& name, int32_t w, int32_t h) {
  RunConfig cfg = load_preset(name);
  size_hash_grid_to_image(cfg.model.encoding, w, h);
  cfg.training.batch_size = backend_batch(cfg.training, "cpu");
  cfg.training.cpu_batch_size = -1;
  cfg.training.metrics_every = 1000; // the test reads the weights, not the metrics
  return cfg;
}

/// The weights and optimizer moments after `steps` steps at a fixed team of `threads`.
std::vector<float> trained(const RunConfig& cfg, const Image& img, int threads, int steps) {
  set_cpu_threads(threads);
  Trainer t = test::small_trainer(cfg, img);
  t.run(steps);
  std::vector<float> out = t.parameters();
  const OptimizerState st = t.backend().optimizer_state();
  out.insert(out.end(), st.first.begin(), st.first.end());
  out.insert(out.end(), st.second.begin(), st.second.end());
  return out;
}

} // namespace

TEST_CASE("every preset trains the same bits at 1, 2, 3, 5, 8, 16 and 32 threads") {
  // 129 x 129 = 16,641 samples: a full-batch preset's step is two chunks of k_max_chunk_rows (16
  // tiles and weight-gradient slots each, more than 8 threads' share) and a ragged one of part of
  // a tile; instant's minibatch of 2^14 is two full chunks, classic's 2048 four tiles.
  const int32_t side = 129;
  REQUIRE(int64_t(side) * side > 2 * CpuBackend::k_chunk_rows);
  const Image img = test::gradient_image(side, side, 3);
  for (const std::string name :
       {"instant", "fourier", "siren", "finer", "gauss", "wire", "classic", "classic-sgd", "gaussians", "sad"}) {
    CAPTURE(name);
    const RunConfig cfg = preset_on(name, side, side);
    // One full-batch step: its gradient is in the moments compared (Adam's first update is close
    // to lr * sign(g), which could hide it). A minibatch takes two: instant's table update waits
    // for the next step.
    const int steps = cfg.training.batch_size > 0 ? 2 : 1;
    const std::vector<float> one = trained(cfg, img, 1, steps);
    for (int threads : {2, 3, 5, 8, 16, 32}) {
      CAPTURE(threads);
      const std::vector<float> many = trained(cfg, img, threads, steps);
      REQUIRE(many.size() == one.size());
      CHECK(std::memcmp(many.data(), one.data(), one.size() * sizeof(float)) == 0);
    }
  }
  set_cpu_threads(0);
}
