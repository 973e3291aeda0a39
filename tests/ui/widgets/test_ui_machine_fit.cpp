// The machine-fitting logic behind the GUI's first launch and its ETA hint (ui/widgets/machine_fit.h).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "engine/backend_names.h"
#include "engine/run_config.h"
#include "ui/widgets/machine_fit.h"

#include <cmath>

using namespace redraw;

TEST_CASE("ui: the first launch starts with a preset that exists and trains the CPU on minibatches") {
  const RunConfig c = load_preset(first_launch_preset());
  // A fixed CPU batch: the step's cost does not grow with the picture, so it forms in seconds.
  CHECK(backend_batch(c.training, "cpu") > 0);
  CHECK(backend_batch(c.training, "cpu") <= 1 << 16);
}

TEST_CASE("ui: the ETA hint's training size brings a full-batch run under the target") {
  // The case: 256x210 at 0.4 steps/s, 500 steps (21 minutes).
  const int32_t s = suggested_training_side(256, 256 * 210, 0, 0.4, 500);
  REQUIRE(s > 0);
  CHECK(s < 256);
  // A step's cost follows the pixels: the new rate, and the run's time from the start.
  const double rate = 0.4 * (256.0 * 256.0) / (double(s) * s);
  CHECK(500.0 / rate <= k_eta_target_seconds + 1e-9);
  // ... and not much smaller than needed (one pixel more per side would miss the target or be close).
  const double rate_plus = 0.4 * (256.0 * 256.0) / (double(s + 1) * (s + 1));
  CHECK(500.0 / rate_plus > k_eta_target_seconds * 0.97);
  // Already fast enough, unknown rate, a minibatch smaller than the image, or a tiny image: no hint.
  CHECK(suggested_training_side(256, 256 * 210, 0, 50.0, 500) == 0);
  CHECK(suggested_training_side(256, 256 * 210, 0, 0.0, 500) == 0);
  CHECK(suggested_training_side(256, 256 * 210, 4096, 0.4, 500) == 0);
  CHECK(suggested_training_side(16, 16 * 16, 0, 0.001, 500) == 0);
  // A batch at least the image is a full batch.
  CHECK(suggested_training_side(256, 256 * 210, 1 << 20, 0.4, 500) == s);
  // Never below 16 pixels.
  CHECK(suggested_training_side(256, 256 * 210, 0, 1e-4, 1000000) == 16);
}

#endif // REDRAW_TEST_UI
