// Sad sites that grow where the error is (training.grow; engine/sad_growth.h and the trainer's
// relocation, engine/training/growth_step.h): the idle sites are the ones moved, the placed sites
// land on the pixels of a wrong region and lower the picture's true error there (a fresh render of
// the moved sites), their moments are zeroed and the other sites keep their bits; the config is
// refused naming the field; a run grows at its config's steps with its parameter count unchanged,
// the same bits on one thread and two; the trainer's relocation reads the lists its step used and
// its lists then hold every moved site a fresh build finds at its node; and on a picture with sharp
// detail, growth ends at a loss no higher than the same sites without it.
#include "primitive_fixtures.h"
#include "test_support.h"

#include "engine/errors.h"
#include "engine/sad_growth.h"
#include "engine/thread_budget.h"
#include "engine/training/growth_step.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

using namespace redraw;

namespace {

/// side x side sites on a grid, grey, round at one cell, then `idle` sites scattered with a radius
/// so negative that they are never any pixel's owner.
std::vector<float> sad_grid_sites(int32_t side, int32_t idle) {
  const int64_t count = int64_t(side) * side + idle;
  std::vector<float> p(size_t(count * k_sad_floats), 0.0f);
  for (int64_t i = 0; i < count; ++i) {
    float* s = p.data() + i * k_sad_floats;
    if (i < int64_t(side) * side) {
      s[k_sad_mx] = float(-1.0 + (2.0 * double(i % side) + 1.0) / side);
      s[k_sad_my] = float(-1.0 + (2.0 * double(i / side) + 1.0) / side);
      s[k_sad_radius] = 0.0f;
    } else {
      s[k_sad_mx] = float(random_unit(5, 40, uint64_t(i) * 2) * 1.8 - 0.9);
      s[k_sad_my] = float(random_unit(5, 40, uint64_t(i) * 2 + 1) * 1.8 - 0.9);
      s[k_sad_radius] = -1000.0f;
    }
    s[k_sad_l11] = 1.0f;
    s[k_sad_l22] = 1.0f;
    s[k_sad_temp] = float(std::log(0.3));
    for (int32_t k = 0; k < k_sad_channels; ++k)
      s[k_sad_colour + k] = float(0.4 + 0.05 * double((i + k) % 3));
  }
  return p;
}

/// The squared error of the sites' fresh render (identity head) against `target`, 3 channels.
double sad_render_error(const std::vector<float>& params, int64_t count, int32_t w, int32_t h,
                        const std::vector<float>& target) {
  return test::squared_error(target, sad_pixel_blends(sad_params(count), params.data(), w, h).colour);
}

RunConfig sad_grow_config(int64_t sites, int64_t steps, bool grow) {
  RunConfig c = load_preset("sad");
  c.model.encoding.sites = sites;
  return test::growth_run(c, steps, grow);
}

} // namespace

TEST_CASE("sad growth moves the idle sites to the wrong region's pixels, fits them and zeroes their moments") {
  const int32_t side = 8, idle = 6, w = 32, h = 32;
  const int64_t count = int64_t(side) * side + idle;
  std::vector<float> params = sad_grid_sites(side, idle);
  const std::vector<float> before = params;
  const SadPixelBlends blends = sad_pixel_blends(sad_params(count), params.data(), w, h);
  const std::vector<float> prediction = blends.colour;
  // The target is the picture itself except a wrong square, pixels [20, 28) x [4, 12), 0.4 brighter.
  std::vector<float> target = prediction;
  const auto wrong = [](int64_t x, int64_t y) { return x >= 20 && x < 28 && y >= 4 && y < 12; };
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      if (wrong(x, y))
        for (int32_t k = 0; k < 3; ++k)
          target[(size_t(y) * w + size_t(x)) * 3 + size_t(k)] += 0.4f;

  const std::vector<int64_t> moved = least_useful_sites(blends, params.data(), count, test::k_identity_head, 3, idle);
  CHECK(std::set<int64_t>(moved.begin(), moved.end()) == std::set<int64_t>{64, 65, 66, 67, 68, 69});
  CHECK(least_useful_sites(blends, params.data(), count, test::k_identity_head, 3, idle + 2).size() ==
        size_t(idle + 2));

  std::vector<double> error(size_t(w) * h, 0.0);
  for (size_t p = 0; p < error.size(); ++p)
    for (int32_t k = 0; k < 3; ++k)
      error[p] += std::pow(double(target[p * 3 + size_t(k)]) - prediction[p * 3 + size_t(k)], 2);
  const std::vector<int64_t> pixels = error_weighted_pixels(error, idle, 3, 10);
  REQUIRE(pixels.size() == size_t(idle));
  OptimizerState moments{std::vector<float>(params.size(), 0.5f), std::vector<float>(params.size(), 0.25f)};
  const GrowthPicture pic{w, h, 3, target.data(), prediction.data(), {}};
  const double estimate = relocate_sites(params, count, test::k_identity_head, pic, blends, moved, pixels, moments);
  for (size_t j = 0; j < moved.size(); ++j) {
    const float* s = params.data() + moved[j] * k_sad_floats;
    CAPTURE(j);
    const int64_t px = pixels[j] % w, py = pixels[j] / w;
    CHECK(wrong(px, py));
    CHECK(s[k_sad_mx] == doctest::Approx(pixel_centre<double>(int32_t(px), w)));
    CHECK(s[k_sad_my] == doctest::Approx(pixel_centre<double>(int32_t(py), h)));
    for (int32_t k = 0; k < 3; ++k)
      CHECK(s[k_sad_colour + k] > 0.5f); // the region wants 0.8 to 0.9, its sites are 0.4 to 0.5 (a
                                         // site placed where earlier ones lifted it fits what is left)
    for (int32_t f = 0; f < k_sad_floats; ++f) {
      CHECK(moments.first[size_t(moved[j] * k_sad_floats + f)] == 0.0f);
      CHECK(moments.second[size_t(moved[j] * k_sad_floats + f)] == 0.0f);
    }
  }
  for (int64_t i = 0; i < side * side; ++i) // the sites that stay keep their bits and moments
    CHECK(std::memcmp(params.data() + i * k_sad_floats, before.data() + i * k_sad_floats,
                      sizeof(float) * k_sad_floats) == 0);
  CHECK(moments.first[0] == 0.5f);
  const double was = sad_render_error(before, count, w, h, target), now = sad_render_error(params, count, w, h, target);
  MESSAGE("wrong square: squared error " << was << " before, " << now << " after (placement's estimate " << estimate
                                         << ")");
  CHECK(now < 0.7 * was);
}

TEST_CASE("training.grow takes sad sites under a linear head and is refused otherwise, naming the field") {
  const auto error_of = [](const char* otype, nlohmann::json hidden) {
    nlohmann::json j = {{"model", {{"encoding", {{"otype", otype}}}, {"hidden", hidden}}},
                        {"training", {{"grow", {{"every", 10}}}}}};
    return test::config_error_of(j);
  };
  CHECK(error_of("Sad", nlohmann::json::array()).empty());
  CHECK(error_of("HashGrid", nlohmann::json::array()).find("training.grow: the HashGrid family does not grow") !=
        std::string::npos);
  CHECK(error_of("HashGrid", nlohmann::json::array()).find("Gaussians, Sad") != std::string::npos);
  RunConfig deep = sad_grow_config(50, 10, true);
  deep.model.hidden = {16};
  CHECK_THROWS_WITH_AS(Trainer(std::make_unique<CpuBackend>(), deep, Dataset{test::detail_picture(16)}),
                       doctest::Contains("model.hidden must be []"), ConfigError);
}

TEST_CASE(
    "a growing sad run relocates at its config's steps, keeps its parameter count, the same bits on 1 and 2 threads") {
  const Image img = test::detail_picture(32);
  const RunConfig cfg = sad_grow_config(200, 60, true);
  set_cpu_threads(1);
  Trainer one = test::small_trainer(cfg, img);
  const size_t floats = one.parameters().size();
  one.run(60);
  const std::vector<GrowthEvent> expected = {{20, 20}, {40, 20}};
  CHECK(growth_events_until(cfg, 60) == expected);
  CHECK(one.record().growth() == expected);
  CHECK(one.parameters().size() == floats);
  set_cpu_threads(2);
  Trainer two = test::small_trainer(cfg, img);
  two.run(60);
  set_cpu_threads(0);
  CHECK(test::same_bits(test::weights_and_moments(one), test::weights_and_moments(two)));
  test::check_growth_changed_bits(one, sad_grow_config(200, 60, false), img);
}

TEST_CASE("on a picture with sharp detail, grown sad sites reach a loss no higher than the same sites without") {
  // The sad-grow preset's growth scaled to the run, as its 50 of 2,000 steps: every 4 of 160,
  // 5% of the sites, until half the run.
  const Image img = test::detail_picture(48);
  RunConfig grow = sad_grow_config(150, 160, true);
  grow.training.grow = GrowSpec{.every = 4, .fraction = 0.05, .until = 0.5};
  Trainer plain = test::small_trainer(sad_grow_config(150, 160, false), img);
  Trainer grown = test::small_trainer(grow, img);
  plain.run(160);
  grown.run(160);
  const double p = plain.measure().psnr_db, g = grown.measure().psnr_db;
  MESSAGE("48 x 48 detail, 150 sites, 160 steps: plain " << p << " dB, grown " << g << " dB ("
                                                         << grown.record().growth().size() << " relocations)");
  CHECK(g >= p); // 18.54 against 21.07 dB when written
}

TEST_CASE("a sad relocation reads the step's lists, and the refreshed lists find the moved sites a build finds") {
  const Image img = test::detail_picture(32);
  Trainer t = test::small_trainer(sad_grow_config(200, 60, false), img);
  t.run(20);
  const RunConfig& cfg = t.config(); // the model's channels resolved for the picture
  RunConfig grow = cfg;
  grow.training.grow = GrowSpec{.every = 20, .fraction = 0.1, .until = 0.8};
  Backend& b = t.backend();
  std::vector<int32_t> lists;
  REQUIRE(b.bound_site_lists(lists));
  const SadParams p = sad_params(200);
  REQUIRE(lists.size() == size_t(p.grid) * size_t(p.grid) * k_sad_k);
  // The family's relocation on the step's lists and on lists built afresh, by hand.
  const std::vector<float> before = b.parameters();
  const OptimizerState moments = b.optimizer_state();
  std::vector<float> prediction(size_t(t.dataset().size())), coords(size_t(t.dataset().size()) * 2);
  grid_coordinates(32, 32, 0, 32, coords.data());
  b.predict_bound(coords.data(), t.dataset().size(), prediction.data());
  const GrowthPicture with{32, 32, 1, t.dataset().targets(), prediction.data(), lists};
  const GrowthPicture without{32, 32, 1, t.dataset().targets(), prediction.data(), {}};
  std::vector<float> by_lists = before, by_build = before;
  OptimizerState m1 = moments, m2 = moments;
  const int64_t moved = grow_sad(cfg.model, grow.training.grow, cfg.training.seed, 20, with, by_lists, m1);
  (void)grow_sad(cfg.model, grow.training.grow, cfg.training.seed, 20, without, by_build, m2);
  const std::string same = test::same_bits(by_lists, by_build) ? "the same" : "different";
  MESSAGE("relocated from the step's lists and from a build: " << same << " sites");
  const std::optional<GrowthEvent> event = grow_bound_primitives(b, grow, t.dataset(), 20);
  REQUIRE(event);
  CHECK(event->moved == moved);
  CHECK(moved == 20);
  CHECK(test::same_bits(b.parameters(), by_lists));
  // Every moved site a fresh build finds at its own node, the refreshed lists find there too.
  std::vector<int32_t> after;
  REQUIRE(b.bound_site_lists(after));
  SadLists fresh;
  sad_build_lists(p, by_lists.data(), fresh);
  int32_t found_by_build = 0;
  for (int64_t i = 0; i < 200; ++i) {
    const float* s = by_lists.data() + i * k_sad_floats;
    if (std::memcmp(s, before.data() + i * k_sad_floats, k_sad_floats * sizeof(float)) == 0) continue;
    const int32_t* built = sad_node_list(fresh.ids.data(), p.grid, s[k_sad_mx], s[k_sad_my]);
    if (std::find(built, built + k_sad_k, int32_t(i)) == built + k_sad_k) continue;
    ++found_by_build;
    const int32_t* kept = sad_node_list(after.data(), p.grid, s[k_sad_mx], s[k_sad_my]);
    CAPTURE(i);
    CHECK(std::find(kept, kept + k_sad_k, int32_t(i)) != kept + k_sad_k);
  }
  CHECK(found_by_build >= 10);
  t.run(30); // and training goes on from them
  CHECK(std::isfinite(t.measure().psnr_db));
}
