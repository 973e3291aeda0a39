#pragma once
/// Fixtures shared by the tests of the primitive families (the Gaussians, with or without their
/// cosine carrier, engine/gaussian_math.h; sad's sites, engine/sad_math.h) in tests/engine/<room>/
/// and tests/cuda/. Like test_support.h, which it includes, it reaches the engine up to its training
/// room and the CPU backend (its Gaussians' passes), and sits beside it so that a test of any room
/// may include it (tests/project/layering.sh checks the tests' own includes).
/// - Primitives drawn to vary every field: drawn_primitives, and drawn_gaussians / drawn_sites.
/// - The float64 references: a Cholesky metric written out (Sigma = L L^T and its inverse, another
///   route than the passes' forward substitution), the Gaussians' all-pairs sum and a float64
///   render, a squared error; central differences of a float64 loss and the per-field check of a
///   gradient against them; the CPU's forward pass against the sum; the rows passes at 1, 2 and 3
///   threads and the CPU grid's two passes.
/// - The model, picture and run setup: sample coordinates, a Gaussians model and a preset's model at
///   a count, the encoding's floats, test parameters with colours of both signs and a head away from
///   the identity, a short run's and a parity run's config, a trained model saved and loaded and its
///   renders compared; a growth run's config, the sharp-detail picture and a trainer's weights and
///   moments compared bit for bit; a config's error message.
#include "cpu/cpu_gaussian_grid.h"
#include "cpu/cpu_gaussians.h"
#include "engine/errors.h"
#include "engine/frames/renderer.h"
#include "engine/gaussian_math.h"
#include "engine/model_files/checkpoint.h"
#include "engine/model_spec.h"
#include "engine/rng_math.h"
#include "engine/run_config.h"
#include "engine/sad_math.h"
#include "engine/training/open_run.h"
#include "test_support.h"

#include <nlohmann/json.hpp>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace redraw::test {

/// One float's range in drawn_primitives: uniform over [lo, hi).
struct FieldRange {
  double lo, hi;
};

/// `count` primitives of fields.size() floats each: float j of primitive i is drawn from
/// `fields[j]` by random_unit(seed, stream, 16 i + j).
inline std::vector<float> drawn_primitives(int64_t count, uint64_t seed, uint64_t stream,
                                           std::initializer_list<FieldRange> fields) {
  const size_t stride = fields.size();
  std::vector<float> p(size_t(count) * stride);
  for (int64_t i = 0; i < count; ++i) {
    size_t j = 0;
    for (const FieldRange& f : fields) {
      p[size_t(i) * stride + j] = float(f.lo + (f.hi - f.lo) * random_unit(seed, stream, uint64_t(i) * 16 + j));
      ++j;
    }
  }
  return p;
}

/// How drawn_gaussians spreads the fields: means over [-mean, mean]^2, Cholesky diagonals in
/// [diag_lo, diag_hi) (of either sign by default: the floor keeps them positive), shears in
/// [-shear, shear), colours in [-colour, colour); with `carrier`, frequencies up to `frequency`
/// radians per standard deviation (stored as frequency / k_gaussian_carrier_step).
struct GaussianDraw {
  uint64_t stream;
  double mean = 1.1, diag_lo = -3.0, diag_hi = 3.0, shear = 2.0, colour = 1.0;
  bool carrier = false;
  double frequency = 3.0;
};

/// `count` Gaussians (k_gaussian_floats each, gaussian_floats(true) with the carrier).
inline std::vector<float> drawn_gaussians(int64_t count, uint64_t seed, const GaussianDraw& d) {
  const FieldRange colour{-d.colour, d.colour};
  const double most = d.frequency / k_gaussian_carrier_step;
  if (d.carrier)
    return drawn_primitives(count, seed, d.stream,
                            {{-d.mean, d.mean}, {-d.mean, d.mean}, {d.diag_lo, d.diag_hi}, {-d.shear, d.shear},
                             {d.diag_lo, d.diag_hi}, colour, colour, colour, {-most, most}, {-most, most}});
  return drawn_primitives(count, seed, d.stream,
                          {{-d.mean, d.mean}, {-d.mean, d.mean}, {d.diag_lo, d.diag_hi}, {-d.shear, d.shear},
                           {d.diag_lo, d.diag_hi}, colour, colour, colour});
}

/// How drawn_sites spreads the fields: positions over [-mean, mean]^2, metric diagonals in
/// [diag_lo, diag_hi), shears in [-shear, shear), radii in [-radius, radius), temperatures in
/// [temp_lo, temp_hi), colours in [-colour, colour). The defaults: over the picture and a little
/// past it, metrics from round to three to one, radii and temperatures around their start.
struct SiteDraw {
  uint64_t stream;
  double mean = 1.05, diag_lo = 0.5, diag_hi = 1.5, shear = 0.5, radius = 0.3, temp_lo = -1.5, temp_hi = -0.5;
  double colour = 1.0;
};

/// `count` sad sites (k_sad_floats each).
inline std::vector<float> drawn_sites(int64_t count, uint64_t seed, const SiteDraw& d) {
  static_assert(k_sad_floats == 10 && k_sad_colour == 7, "drawn_sites lists a site's ten floats in order");
  const FieldRange colour{-d.colour, d.colour};
  return drawn_primitives(count, seed, d.stream,
                          {{-d.mean, d.mean}, {-d.mean, d.mean}, {d.diag_lo, d.diag_hi}, {-d.shear, d.shear},
                           {d.diag_lo, d.diag_hi}, {-d.radius, d.radius}, {d.temp_lo, d.temp_hi}, colour, colour,
                           colour});
}

/// A primitive's metric in float64 from its floats m = (mx, my, l11, l21, l22): L = cell [[a', 0],
/// [l21, c']] with a' = sqrt(l11^2 + floor^2), c' likewise, and Sigma = L L^T written out.
struct CholeskyMetric64 {
  double a, b, c;         ///< L's entries: L11, L21, L22 (picture units)
  double sxx, sxy, syy;   ///< Sigma
  double det;             ///< det Sigma
  CholeskyMetric64(const double* m, double cell, double floor)
      : a(cell * std::sqrt(m[2] * m[2] + floor * floor)), b(cell * m[3]),
        c(cell * std::sqrt(m[4] * m[4] + floor * floor)), sxx(a * a), sxy(a * b), syy(b * b + c * c),
        det(sxx * syy - sxy * sxy) {}
  /// d^T Sigma^-1 d for the offset d = (dx, dy) from the mean, by Sigma's inverse written out.
  double q(double dx, double dy) const { return (syy * dx * dx - 2 * sxy * dx * dy + sxx * dy * dy) / det; }
};

/// The Gaussians' float64 all-pairs sum (with the carrier: the envelope times cos(w . z), z from
/// L^-1 written out); params in double so central differences can move them.
struct GaussianReference {
  double cell;
  std::vector<double> params;
  bool carrier = false;
  int32_t stride() const { return gaussian_floats(carrier); }
  int64_t count() const { return int64_t(params.size()) / stride(); }

  /// Gaussian i's weight at (x, y): 0 at and past the cutoff (and for a q that is not a number).
  double weight(int64_t i, double x, double y) const {
    const double* g = params.data() + i * stride();
    const CholeskyMetric64 m(g, cell, k_gaussian_diag_floor);
    const double dx = x - g[0], dy = y - g[1];
    const double q = m.q(dx, dy);
    if (!(q < k_gaussian_cutoff)) return 0.0;
    const double envelope = std::exp(-0.5 * q) - std::exp(-0.5 * k_gaussian_cutoff);
    if (!carrier) return envelope;
    const double inv[2][2] = {{1.0 / m.a, 0.0}, {-m.b / (m.a * m.c), 1.0 / m.c}}; // L^-1
    const double z1 = inv[0][0] * dx, z2 = inv[1][0] * dx + inv[1][1] * dy;
    const double s = k_gaussian_carrier_step;
    return envelope * std::cos(s * g[k_gauss_wx] * z1 + s * g[k_gauss_wy] * z2);
  }
  /// The encoding at (x, y), channel k.
  double value(double x, double y, int k) const {
    double s = 0;
    for (int64_t i = 0; i < count(); ++i) s += params[size_t(i * stride() + k_gauss_colour + k)] * weight(i, x, y);
    return s;
  }
  /// The sum over samples and channels of r * value: the loss whose dLoss/dEncoding is r.
  double loss(const std::vector<float>& coords, const std::vector<float>& r) const {
    double s = 0;
    for (size_t j = 0; j < coords.size() / 2; ++j)
      for (int k = 0; k < k_gaussian_channels; ++k)
        s += double(r[j * k_gaussian_channels + size_t(k)]) * value(coords[2 * j], coords[2 * j + 1], k);
    return s;
  }
};

/// The reference of the floats `p` of g.count Gaussians (g's cell and carrier).
inline GaussianReference gaussian_reference(const GaussianParams& g, const std::vector<float>& p) {
  return GaussianReference{double(g.cell), std::vector<double>(p.begin(), p.end()), g.carrier};
}

/// The float64 render of `count` plain Gaussians at every pixel centre of a w x h picture, 3
/// channels, pixel by pixel (row-major, channels interleaved).
inline std::vector<double> gaussian_render_f64(const std::vector<float>& params, int64_t count, int32_t w, int32_t h) {
  const GaussianReference ref = gaussian_reference(gaussian_params(count), params);
  std::vector<double> out(size_t(w) * size_t(h) * 3, 0.0);
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      for (int k = 0; k < 3; ++k)
        out[(size_t(y) * w + x) * 3 + size_t(k)] = ref.value(pixel_centre<double>(x, w), pixel_centre<double>(y, h), k);
  return out;
}

/// The squared error of `picture` against `target` in float64, value by value.
template <class T> double squared_error(const std::vector<float>& target, const std::vector<T>& picture) {
  double s = 0;
  for (size_t e = 0; e < target.size(); ++e)
    s += (double(target[e]) - double(picture[e])) * (double(target[e]) - double(picture[e]));
  return s;
}

/// The CPU grid's passes over the Gaussians `p` (g's layout) at n coordinates: the forward pass
/// (written over NaN) and the backward pass of `d_out` (accumulated onto 0.5).
struct GridPasses {
  std::vector<float> out, grads;
};

/// GridPasses on the AVX2 kernels (`avx2`) or the baseline's.
inline GridPasses cpu_grid_passes(const GaussianParams& g, const std::vector<float>& p, const std::vector<float>& coords,
                                  int64_t n, const std::vector<float>& d_out, bool avx2) {
  cpu::GaussianGrid grid;
  grid.use_avx2(avx2);
  grid.build(g, p.data());
  GridPasses r{std::vector<float>(size_t(n * k_gaussian_channels), NAN), std::vector<float>(p.size(), 0.5f)};
  grid.encode(coords.data(), n, r.out.data());
  grid.backward(p.data(), coords.data(), d_out.data(), n, r.grads.data(), true);
  return r;
}

/// The CPU's forward pass (gaussian_encode_rows) of the Gaussians `p` at `coords` against the
/// float64 reference: the worst difference, the largest reference value and how many are not 0.
struct ForwardErrors {
  double worst = 0, largest = 0;
  int64_t covered = 0;
};

inline ForwardErrors gaussian_forward_errors(const GaussianParams& g, const std::vector<float>& p,
                                             const std::vector<float>& coords) {
  const int64_t n = int64_t(coords.size() / 2);
  std::vector<float> out(size_t(n * k_gaussian_channels), NAN);
  gaussian_encode_rows(g, p.data(), coords.data(), n, out.data());
  const GaussianReference ref = gaussian_reference(g, p);
  ForwardErrors e;
  for (int64_t j = 0; j < n; ++j)
    for (int k = 0; k < k_gaussian_channels; ++k) {
      const double want = ref.value(coords[size_t(2 * j)], coords[size_t(2 * j + 1)], k);
      e.worst = std::max(e.worst, std::abs(double(out[size_t(j * k_gaussian_channels + k)]) - want));
      e.largest = std::max(e.largest, std::abs(want));
      e.covered += want != 0.0;
    }
  return e;
}

/// The central difference (loss(q + h e_i) - loss(q - h e_i)) / 2h of `loss` (a function of q's
/// current values, called with none) in q[i]; q[i] is restored.
template <class Loss> double central_difference(std::vector<double>& q, size_t i, const Loss& loss, double h = 1e-6) {
  const double keep = q[i];
  q[i] = keep + h;
  const double up = loss();
  q[i] = keep - h;
  const double down = loss();
  q[i] = keep;
  return (up - down) / (2 * h);
}

/// Per field of a primitive, over all primitives: the worst difference between an analytic
/// gradient and central differences, and the largest central difference.
struct FieldGradientErrors {
  std::vector<double> worst, scale;
};

/// `grads` (float) against central differences of ref.loss(coords, r) in each of ref.params.
inline FieldGradientErrors gaussian_gradient_errors(GaussianReference& ref, const std::vector<float>& grads,
                                                    const std::vector<float>& coords, const std::vector<float>& r) {
  const size_t stride = size_t(ref.stride());
  FieldGradientErrors e{std::vector<double>(stride, 0.0), std::vector<double>(stride, 0.0)};
  for (size_t i = 0; i < ref.params.size(); ++i) {
    const double fd = central_difference(ref.params, i, [&] { return ref.loss(coords, r); });
    e.worst[i % stride] = std::max(e.worst[i % stride], std::abs(double(grads[i]) - fd));
    e.scale[i % stride] = std::max(e.scale[i % stride], std::abs(fd));
  }
  return e;
}

/// Checks each field of `e` (named by `names`, one a field): the samples move it (a central
/// difference above 1e-3), and the gradient is within 1e-4 of the largest plus 1e-6.
inline void check_field_gradients(const FieldGradientErrors& e, const std::vector<std::string>& names) {
  for (size_t f = 0; f < e.worst.size(); ++f) {
    const std::string& name = names.at(f);
    CAPTURE(name); // a string: doctest prints a char*'s address
    MESSAGE(name << ": worst difference " << e.worst[f] << " on gradients up to " << e.scale[f]);
    CHECK(e.scale[f] > 1e-3); // a field the samples move
    CHECK(e.worst[f] <= 1e-4 * e.scale[f] + 1e-6);
  }
}

/// A case for the Gaussians' passes: the parameters `g` of the Gaussians `p`, sample coordinates
/// and a dLoss/dEncoding `r` for them.
struct GaussianCase {
  GaussianParams g;
  std::vector<float> p, coords, r;
};

/// Checks the CPU's gradient (gaussian_backward_rows) of every field of case `c` against central
/// differences of the float64 reference (check_field_gradients; `names`, one a field).
inline void check_gaussian_gradient(const GaussianCase& c, const std::vector<std::string>& names) {
  std::vector<float> grads(c.p.size(), NAN);
  gaussian_backward_rows(c.g, c.p.data(), c.coords.data(), c.r.data(), int64_t(c.coords.size() / 2), grads.data(), false);
  GaussianReference ref = gaussian_reference(c.g, c.p);
  check_field_gradients(gaussian_gradient_errors(ref, grads, c.coords, c.r), names);
}

/// The rows passes of case `c` (gaussian_encode_rows, and gaussian_backward_rows accumulated onto
/// 0.25) at 1, 2 and 3 threads: checks that 2 and 3 give the bits of 1, and returns those.
inline GridPasses rows_passes_at_1_2_3_threads(const GaussianCase& c) {
  const int64_t n = int64_t(c.coords.size() / 2);
  const int before = omp_get_max_threads();
  GridPasses one;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    omp_set_num_threads(threads);
    std::vector<float> out(size_t(n * k_gaussian_channels)), grads(c.p.size(), 0.25f);
    gaussian_encode_rows(c.g, c.p.data(), c.coords.data(), n, out.data());
    gaussian_backward_rows(c.g, c.p.data(), c.coords.data(), c.r.data(), n, grads.data(), true);
    if (threads == 1) {
      one = GridPasses{out, grads};
      continue;
    }
    CHECK(std::memcmp(out.data(), one.out.data(), out.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(grads.data(), one.grads.data(), grads.size() * sizeof(float)) == 0);
  }
  omp_set_num_threads(before);
  return one;
}

/// n coordinates over [-1.2, 1.2]^2 (stream 22): samples may fall outside the picture (a render's margin).
inline std::vector<float> margin_coords(int64_t n, uint64_t seed) {
  return uniform_values(size_t(2 * n), seed, 22, -1.2f, 1.2f);
}

/// `count` Gaussians drawn by `d` from seed + offset, n coordinates over [-1.2, 1.2]^2 from
/// seed + offset + 1, and r in [-1, 1) from (seed, r_stream).
inline GaussianCase gaussian_case(int64_t count, int64_t n, const GaussianDraw& d, uint64_t seed, uint64_t offset,
                                  uint64_t r_stream) {
  return GaussianCase{gaussian_params(count, d.carrier), drawn_gaussians(count, seed + offset, d),
                      margin_coords(n, seed + offset + 1),
                      uniform_values(size_t(n * k_gaussian_channels), seed, r_stream, -1.0f, 1.0f)};
}

/// n coordinates in [-1.1, 1.1]^2 from random_unit(seed, stream, i) in float64: some fall outside
/// the picture (the border bins and nodes take them).
inline std::vector<float> border_coords(int64_t n, uint64_t seed, uint64_t stream) {
  std::vector<float> c(size_t(n) * 2);
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(2.2 * random_unit(seed, stream, i) - 1.1);
  return c;
}

/// The count field of a primitive family's encoding: &EncodingSpec::gaussians or &EncodingSpec::sites.
using PrimitiveCount = int64_t EncodingSpec::*;

/// A gaussians model of `count` Gaussians, without hidden layers: a linear head to 3 channels.
inline ModelSpec gaussians_spec(int64_t count) {
  ModelSpec m;
  m.encoding.kind = EncodingKind::Gaussians;
  m.encoding.gaussians = count;
  m.output_channels = 3;
  m.output_activation = Activation::Identity;
  return m;
}

/// `preset`'s model with `count` primitives and 3 output channels.
inline ModelSpec preset_model(const char* preset, PrimitiveCount field, int64_t count) {
  ModelSpec m = load_preset(preset).model;
  m.encoding.*field = count;
  m.output_channels = 3;
  return m;
}

/// The floats of m's encoding at the front of the parameters `p`.
inline std::vector<float> encoding_floats(const std::vector<float>& p, const ModelSpec& m) {
  return {p.begin(), p.begin() + std::ptrdiff_t(encoding_parameter_count(m.encoding))};
}

/// Moves the dense head's floats (after the encoding's) off their start by up to +-0.1, from
/// random_unit(seed, stream, j), so every float's gradient is nonzero somewhere.
inline void shake_head(const ModelSpec& m, uint64_t seed, uint64_t stream, std::vector<float>& p) {
  const int64_t lead = encoding_parameter_count(m.encoding);
  for (size_t j = size_t(lead); j < p.size(); ++j) p[j] += float(0.2 * (random_unit(seed, stream, j) - 0.5));
}

/// The initial parameters of `m` (a Gaussians model) moved so that every float's gradient is
/// nonzero somewhere: colours of both signs, 2 random_unit(seed, 51, 3 i + k) - 1 (the preset's start
/// is grey); with the carrier, frequencies up to 3 radians per standard deviation from
/// random_unit(seed, 55, 2 i + k) (the start's are near 0); the head shaken (stream 52).
inline std::vector<float> gaussian_test_params(const ModelSpec& m, uint64_t seed) {
  std::vector<float> p = initial_parameters(m, seed);
  const int32_t stride = gaussian_floats(m.encoding.carrier);
  for (int64_t i = 0; i < m.encoding.gaussians; ++i) {
    float* g = p.data() + i * stride;
    for (int32_t k = 0; k < k_gaussian_channels; ++k)
      g[k_gauss_colour + k] = float(2 * random_unit(seed, 51, uint64_t(i * 3 + k)) - 1);
    if (!m.encoding.carrier) continue;
    g[k_gauss_wx] = float((6 * random_unit(seed, 55, uint64_t(2 * i)) - 3) / k_gaussian_carrier_step);
    g[k_gauss_wy] = float((6 * random_unit(seed, 55, uint64_t(2 * i + 1)) - 3) / k_gaussian_carrier_step);
  }
  shake_head(m, seed, 52, p);
  return p;
}

/// `preset` with `count` primitives, `steps` steps and one metrics row at the end.
inline RunConfig short_primitive_run(const char* preset, PrimitiveCount field, int64_t count, int64_t steps) {
  RunConfig cfg = load_preset(preset);
  cfg.model.encoding.*field = count;
  cfg.training.steps = steps;
  cfg.training.metrics_every = steps;
  return cfg;
}

/// `preset`, `count` primitives, the same batch on the CPU as on the GPU, 100 steps and a
/// metrics row every 25 (the CUDA tests' training runs).
inline RunConfig parity_run(const char* preset, PrimitiveCount field, int64_t count, int64_t batch) {
  RunConfig c = load_preset(preset);
  c.model.encoding.*field = count;
  c.training.batch_size = batch;
  c.training.cpu_batch_size = -1; // the same batch on both backends
  c.training.steps = 100;
  c.training.metrics_every = 25;
  return c;
}

/// A growth test's run of `c` (a preset with its count set): `steps` steps, grey, metrics rows
/// past the end; with `grow`, 10% of the primitives moved every 20 steps until 80% of the run.
inline RunConfig growth_run(RunConfig c, int64_t steps, bool grow) {
  c.training.steps = steps;
  c.training.metrics_every = 1000;
  c.data.color_mode = ColorMode::Gray;
  if (grow) c.training.grow = GrowSpec{.every = 20, .fraction = 0.1, .until = 0.8};
  return c;
}

/// The colour head that passes the primitives' sum through (3 x 3, row-major).
constexpr float k_identity_head[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/// A grey picture, black on its left half and, on its right, squares of 3 pixels in a checkerboard
/// with a bright disc: sharp detail where a uniform start puts half its primitives in vain.
inline Image detail_picture(int32_t side) {
  Image img = filled_image(side, side, 1, 0.0f);
  for (int32_t y = 0; y < side; ++y)
    for (int32_t x = side / 2; x < side; ++x) {
      const double dx = x - 0.75 * side, dy = y - 0.5 * side;
      const bool disc = dx * dx + dy * dy < 0.03 * side * side;
      img.pixels[size_t(y) * side + x] = disc ? 1.0f : (((x / 3) + (y / 3)) % 2 ? 0.8f : 0.2f);
    }
  return img;
}

/// A backend factory that answers every name with a CPU backend.
inline BackendFactory cpu_backend_factory() {
  return [](const std::string&, std::string*, const std::string&) {
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  };
}

/// A run of `cfg` on horse.png at 24 pixels by the CPU backend: its parameters at the start, its
/// checkpoint after cfg.training.steps steps, saved to `file`, and the checkpoint loaded back from it.
struct SavedRun {
  std::vector<float> start;
  Checkpoint trained, loaded;
};

inline SavedRun train_save_and_load(const RunConfig& cfg, const std::filesystem::path& file) {
  OpenRunOptions opts;
  opts.config = cfg;
  opts.config.data.max_side = 24;
  OpenedRun run = open_run(RunSource{sample("horse.png").string(), ""}, cpu_backend_factory(), opts);
  SavedRun r{run.trainer->parameters(), {}, {}};
  run.trainer->run(cfg.training.steps);
  r.trained = run.trainer->checkpoint("horse.png");
  save_checkpoint(file, r.trained);
  r.loaded = load_checkpoint(file);
  return r;
}

/// Checks that the CPU backend renders the models of `a` and `b` at 40 x 28 to the same bits;
/// returns a's render.
inline Image check_same_render(const Checkpoint& a, const Checkpoint& b) {
  CpuBackend cpu;
  const Image ra = render_image(cpu, NetworkView{&a.config.model, a.params, {}}, 40, 28);
  const Image rb = render_image(cpu, NetworkView{&b.config.model, b.params, {}}, 40, 28);
  REQUIRE(ra.pixels.size() == rb.pixels.size());
  CHECK(std::memcmp(ra.pixels.data(), rb.pixels.data(), ra.pixels.size() * sizeof(float)) == 0);
  return ra;
}

/// The message of the ConfigError that parse_run_config throws for `j`, or "" when it takes it.
inline std::string config_error_of(const nlohmann::json& j) {
  try {
    (void)parse_run_config(j, "cfg.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return {};
}

/// The trainer's parameters followed by its optimizer's two moments.
inline std::vector<float> weights_and_moments(Trainer& t) {
  std::vector<float> out = t.parameters();
  const OptimizerState st = t.backend().optimizer_state();
  out.insert(out.end(), st.first.begin(), st.first.end());
  out.insert(out.end(), st.second.begin(), st.second.end());
  return out;
}

/// Whether a and b hold the same floats bit for bit (NaNs and signed zeros included).
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Trains `plain` (a grown run's config without growth) on `img` to its last step, and checks
/// that it has no growth events and that `grown`'s weights and moments are not its bits.
inline void check_growth_changed_bits(Trainer& grown, const RunConfig& plain, const Image& img) {
  Trainer t = small_trainer(plain, img);
  t.run(plain.training.steps);
  CHECK(t.record().growth().empty());
  CHECK_FALSE(same_bits(weights_and_moments(grown), weights_and_moments(t)));
}

} // namespace redraw::test
