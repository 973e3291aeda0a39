// The CPU backend's renders of a sad model (CpuBackend::predict keeps its trained encoding between
// calls, cpu/cpu_backend.h; CpuTrainedEncoding::render_begins): whatever was rendered before, in
// one band or many, a render gives the bits of lists built afresh for the weights rendered, as a
// fresh backend gives them and as sad_build_lists and sad_encode_rows give them; weights edited in
// place are seen, and so are lists a training step refreshed in between.
#include "cpu/cpu_backend.h"
#include "cpu/cpu_family_encoders.h"
#include "cpu/cpu_sad.h"
#include "engine/rng_math.h"
#include "engine/run_config.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace redraw;

namespace {

/// A sad model of `count` sites and an identity-free head: every float drawn from `seed`, the
/// sites spread over the picture at about one cell apart.
std::vector<float> sad_render_weights(const ModelSpec& model, uint64_t seed) {
  std::vector<float> p(size_t(parameter_count(model)));
  auto u = [&](uint64_t i, double lo, double hi) { return float(lo + (hi - lo) * random_unit(seed, 43, i)); };
  for (size_t i = 0; i < p.size(); ++i)
    p[i] = u(i, -0.5, 0.5);
  for (int64_t i = 0; i < model.encoding.sites; ++i) {
    float* s = p.data() + i * k_sad_floats;
    const uint64_t c = uint64_t(i) * 16 + 1000000;
    s[k_sad_mx] = u(c, -1.05, 1.05);
    s[k_sad_my] = u(c + 1, -1.05, 1.05);
    s[k_sad_l11] = u(c + 2, 0.5, 1.5);
    s[k_sad_l22] = u(c + 4, 0.5, 1.5);
    s[k_sad_temp] = u(c + 6, -1.5, -0.5);
  }
  return p;
}

/// `from` with every site moved by up to half a cell and its colour changed.
std::vector<float> sad_render_moved(const ModelSpec& model, std::vector<float> from, uint64_t seed) {
  const double half = 0.5 * double(sad_params(model.encoding.sites).cell);
  for (int64_t i = 0; i < model.encoding.sites; ++i) {
    float* s = from.data() + i * k_sad_floats;
    s[k_sad_mx] += float(half * (2 * random_unit(seed, 44, uint64_t(i) * 3) - 1));
    s[k_sad_my] += float(half * (2 * random_unit(seed, 44, uint64_t(i) * 3 + 1)) - half);
    s[k_sad_colour] += float(random_unit(seed, 44, uint64_t(i) * 3 + 2) - 0.5);
  }
  return from;
}

std::vector<float> sad_render_coords(int32_t w, int32_t h) {
  std::vector<float> c;
  for (int32_t j = 0; j < h; ++j)
    for (int32_t i = 0; i < w; ++i)
      c.push_back(pixel_centre<float>(i, w)), c.push_back(pixel_centre<float>(j, h));
  return c;
}

/// The model's output at the coordinates on `b`, in `bands` calls.
std::vector<float> sad_render_on(Backend& b, const ModelSpec& model, const std::vector<float>& params,
                                 const std::vector<float>& coords, int32_t bands) {
  const int64_t n = int64_t(coords.size() / 2), C = model.output_channels;
  std::vector<float> out(size_t(n * C));
  for (int32_t k = 0; k < bands; ++k) {
    const int64_t r0 = n * k / bands, r1 = n * (k + 1) / bands;
    b.predict(model, params, {}, coords.data() + 2 * r0, r1 - r0, out.data() + r0 * C);
  }
  return out;
}

std::vector<float> sad_render_fresh(const ModelSpec& model, const std::vector<float>& params,
                                    const std::vector<float>& coords) {
  CpuBackend fresh;
  return sad_render_on(fresh, model, params, coords, 1);
}

bool sad_render_same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

TEST_CASE("a CPU backend's sad renders give a fresh build's bits whatever it rendered before") {
  RunConfig cfg = load_preset("sad");
  cfg.model.encoding.sites = 300;
  const ModelSpec& model = cfg.model;
  const std::vector<float> a = sad_render_weights(model, 1);
  const std::vector<float> b = sad_render_moved(model, a, 2);
  const std::vector<float> coords = sad_render_coords(40, 30);
  const std::vector<float> fresh_a = sad_render_fresh(model, a, coords), fresh_b = sad_render_fresh(model, b, coords);
  REQUIRE_FALSE(sad_render_same_bits(fresh_a, fresh_b));
  CpuBackend kept;
  CHECK(sad_render_same_bits(sad_render_on(kept, model, a, coords, 1), fresh_a));
  CHECK(sad_render_same_bits(sad_render_on(kept, model, a, coords, 3), fresh_a)); // kept lists
  CHECK(sad_render_same_bits(sad_render_on(kept, model, b, coords, 4), fresh_b)); // built for b
  CHECK(sad_render_same_bits(sad_render_on(kept, model, a, coords, 2), fresh_a)); // back to a
  // The same vector edited in place: the lists follow its floats, not its address.
  std::vector<float> edited = a;
  (void)sad_render_on(kept, model, edited, coords, 1);
  edited[5 * k_sad_floats + k_sad_mx] += 0.3f;
  edited[5 * k_sad_floats + k_sad_radius] += 2.0f;
  const std::vector<float> fresh_edited = sad_render_fresh(model, edited, coords);
  CHECK_FALSE(sad_render_same_bits(fresh_edited, fresh_a));
  CHECK(sad_render_same_bits(sad_render_on(kept, model, edited, coords, 2), fresh_edited));
  // Another model on the same backend, then this one again.
  RunConfig other = cfg;
  other.model.encoding.sites = 200;
  const std::vector<float> c = sad_render_weights(other.model, 3);
  CHECK(sad_render_same_bits(sad_render_on(kept, other.model, c, coords, 1), sad_render_fresh(other.model, c, coords)));
  CHECK(sad_render_same_bits(sad_render_on(kept, model, b, coords, 1), fresh_b));
}

TEST_CASE("a sad encoding's render takes lists built afresh for its floats, after a refresh too") {
  RunConfig cfg = load_preset("sad");
  cfg.model.encoding.sites = 300;
  const SadParams p = sad_params(cfg.model.encoding.sites);
  const std::vector<float> a = sad_render_weights(cfg.model, 4);
  const std::vector<float> b = sad_render_moved(cfg.model, a, 5);
  const std::vector<float> coords = sad_render_coords(37, 23);
  const int64_t n = int64_t(coords.size() / 2);
  const auto reference = [&](const std::vector<float>& params) {
    SadLists lists;
    sad_build_lists(p, params.data(), lists);
    std::vector<float> out(size_t(n * k_sad_channels));
    sad_encode_rows(p, params.data(), lists, coords.data(), n, out.data());
    return out;
  };
  const auto encoded = [&](cpu::CpuTrainedEncoding& e, const std::vector<float>& params) {
    std::vector<float> out(size_t(n * k_sad_channels));
    e.encode(params.data(), coords.data(), n, out.data());
    return out;
  };
  const auto enc = cpu::cpu_trained_encoding(cfg.model.encoding);
  REQUIRE(enc);
  enc->render_begins(a.data());
  CHECK(sad_render_same_bits(encoded(*enc, a), reference(a)));
  enc->render_begins(b.data());
  CHECK(sad_render_same_bits(encoded(*enc, b), reference(b)));
  // A step refreshes the lists from a's: a render of b afterwards builds them afresh again.
  enc->step_begins(a.data());
  enc->step_begins(b.data());
  const std::vector<float> refreshed = encoded(*enc, b);
  enc->render_begins(b.data());
  const std::vector<float> rendered = encoded(*enc, b);
  CHECK(sad_render_same_bits(rendered, reference(b)));
  const std::string same = sad_render_same_bits(refreshed, rendered) ? "equal" : "differ from";
  MESSAGE("lists refreshed from a's " << same << " the lists built for b");
}
