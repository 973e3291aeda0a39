// An image over the image memory budget in the app: the load is refused with an offer (the file,
// what it needs, the budget) instead of an error, and accepting it opens the same request with
// the budget raised for that file alone. Built when the GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/window/app_actions.h"
#include "ui/session/training_session.h"

#include "app/backend_registry.h"
#include "engine/images/image.h"
#include "engine/run_config.h"

#include <chrono>
#include <filesystem>
#include <thread>

using namespace redraw;

namespace {
/// Takes snapshots until one satisfies `done` (or 60 s pass); returns it.
template <class Pred> std::optional<SessionSnapshot> snapshot_until(TrainingSession& s, Pred done) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    SessionSnapshot t = s.take();
    if (done(t)) return t;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}
} // namespace

TEST_CASE("ui load budget: an image over the budget is offered again with a larger one, for that file") {
  UiState ui;
  ui.settings.backend = "cpu";
  ui.settings.max_image_memory_mb = 1;
  ui.image_memory_override_mb = 1.0 / 64; // 16 KiB: the bundled drawing needs more
  LoadRequest req = base_load_request(ui);
  CHECK(req.limits.max_bytes == 16384);
  req.image = default_image_path().string();
  req.config = load_preset("instant");
  req.config.data.max_side = 32;
  const Image probe = load_image(req.image);
  const uint64_t needed = uint64_t(probe.width) * probe.height; // at least a byte a pixel

  TrainingSession session(backend_factory());
  session.post(run_command::Load{req});
  const auto offered = snapshot_until(session, [](const SessionSnapshot& t) { return t.budget_offer.has_value(); });
  REQUIRE(offered);
  CHECK(offered->errors.empty()); // an offer, not an error
  CHECK_FALSE(offered->status.has_run);
  const BudgetOffer& o = *offered->budget_offer;
  CHECK(o.file == req.image);
  CHECK(o.budget_bytes == 16384);
  CHECK(o.needed_bytes >= needed);
  CHECK(raised_limits(o).max_bytes >= o.needed_bytes);
  CHECK(raised_limits(o).max_bytes % (1 << 20) == 0);
  CHECK(o.what.find("over the image memory budget") != std::string::npos);

  // Accepted: the same request again, its budget raised for this file; the setting stays.
  absorb_snapshot(ui, SessionSnapshot(*offered));
  REQUIRE(ui.budget_offer);
  CHECK(apply_intent(ui, session, UiIntent{intent::OpenWithBudget{}}));
  CHECK_FALSE(ui.budget_offer);
  CHECK(ui.settings.max_image_memory_mb == 1);
  std::vector<std::string> errors;
  const auto opened = snapshot_until(session, [&](const SessionSnapshot& t) {
    errors.insert(errors.end(), t.errors.begin(), t.errors.end());
    return t.status.has_run || t.budget_offer;
  });
  CHECK(errors.empty());
  REQUIRE(opened);
  CHECK_FALSE(opened->budget_offer);
  CHECK(opened->status.image_path == req.image);
  CHECK(opened->status.width == 32);
}
#endif
