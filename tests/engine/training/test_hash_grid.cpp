// The HashGrid encoding on the CPU: its levels and hash against a float64 reference written here
// from the paper's definitions, finite-difference gradients for table entries and MLP weights
// through it, bit-identical reruns, weight decay sparing the table, the config keys, the
// instant preset, checkpoints (format 2, and format 1 files still read) and the timelapse cap.
#include "reference_mlp.h"
#include "test_support.h"

#include "engine/backend_names.h"
#include "engine/model_files/checkpoint.h"
#include "cpu/cpu_backend.h"
#include "engine/thread_budget.h"
#include "engine/errors.h"
#include "engine/rng_math.h"
#include "engine/run_config.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <cmath>
#include <cstring>

using namespace redraw;
using redraw::test::normalised_error;
using redraw::test::ReferenceMlp;

namespace {

EncodingSpec small_grid(GridInterpolation interp = GridInterpolation::Linear) {
  EncodingSpec e;
  e.kind = EncodingKind::HashGrid;
  e.n_levels = 4;
  e.n_features_per_level = 2;
  e.log2_hashmap_size = 10; // 1024 entries: levels 0 and 1 dense, 2 and 3 hashed
  e.base_resolution = 4;
  e.per_level_scale = 4.0f; // 4, 16, 64, 256 cells per side
  e.interpolation = interp;
  return e;
}

/// The independent reference: one level of the encoding in float64, from the definitions.
struct RefLevel {
  long long n = 0; ///< cells per side
  bool dense = false;
  long long offset = 0; ///< first entry
};

std::vector<RefLevel> reference_levels(int levels, double base, double scale, int log2_table) {
  std::vector<RefLevel> out;
  const long long table = 1LL << log2_table;
  long long offset = 0;
  for (int l = 0; l < levels; ++l) {
    RefLevel r;
    r.n = (long long)std::floor((long double)base * std::pow((long double)scale, (long double)l) + 1e-6L);
    const long long vertices = (r.n + 1) * (r.n + 1);
    r.dense = vertices <= table;
    r.offset = offset;
    offset += r.dense ? vertices : table;
    out.push_back(r);
  }
  return out;
}

/// Entry of vertex (i, j): dense row-major, or the paper's hash (i * 1) xor (j * 2654435761) mod T
/// with the products taken modulo 2^32.
long long reference_entry(const RefLevel& r, long long i, long long j, int log2_table) {
  if (r.dense) return r.offset + i + j * (r.n + 1);
  const unsigned long long h = ((unsigned long long)i ^ (((unsigned long long)j * 2654435761ULL) & 0xffffffffULL));
  return r.offset + (long long)(h & ((1ULL << log2_table) - 1));
}

struct Problem {
  ModelSpec model;
  std::vector<float> params, fourier_b, coords, targets;
};

Problem grid_problem(Activation act, GridInterpolation interp, int32_t channels, uint64_t seed, int n = 7) {
  Problem p;
  p.model.encoding = small_grid(interp);
  p.model.hidden = {6, 5};
  p.model.hidden_activations = {act, act};
  p.model.output_activation = Activation::Sigmoid;
  p.model.output_channels = channels;
  p.model.init = InitKind::Xavier;
  p.params = initial_parameters(p.model, seed);
  // A trained-looking table (the +-1e-4 start would make every weight gradient tiny) and biases
  // away from zero.
  const int64_t table = encoding_parameter_count(p.model.encoding);
  for (int64_t i = 0; i < table; ++i)
    p.params[size_t(i)] = float(2 * random_unit(seed, 21, uint64_t(i)) - 1) * 0.5f;
  for (const auto& L : dense_layers(p.model))
    for (int32_t o = 0; o < L.out; ++o)
      p.params[size_t(L.bias_offset + o)] = float(0.3 * (2 * random_unit(seed, 9, uint64_t(L.bias_offset + o)) - 1));
  for (int i = 0; i < n; ++i) {
    p.coords.push_back(float(2 * random_unit(seed, 7, uint64_t(2 * i)) - 1));
    p.coords.push_back(float(2 * random_unit(seed, 7, uint64_t(2 * i + 1)) - 1));
    for (int c = 0; c < channels; ++c)
      p.targets.push_back(float(random_unit(seed, 8, uint64_t(i * channels + c))));
  }
  return p;
}

RunConfig grid_config(int64_t batch) {
  RunConfig c = redraw::test::small_config(OptimizerKind::Adam, batch);
  c.model.encoding = small_grid();
  c.model.encoding.log2_hashmap_size = 12;
  c.model.hidden = {16, 16};
  c.model.hidden_activations = {Activation::Relu, Activation::Relu};
  c.model.init = InitKind::He;
  c.optimizer.adam.beta2 = 0.99f;
  c.optimizer.adam.epsilon = 1e-15f;
  c.training.steps = 30;
  return c;
}

} // namespace

TEST_CASE("hash grid: level resolutions, dense/hashed levels and table offsets match a float64 reference") {
  struct Case {
    int levels, base, finest, log2;
    float scale;
  };
  for (const Case k : {Case{16, 16, 2048, 17, 0}, Case{16, 16, 0, 19, 1.5f}, Case{8, 2, 0, 10, 2.0f},
                       Case{12, 16, 4096, 14, 0}, Case{1, 16, 0, 12, 1.0f}, Case{32, 4, 0, 22, 1.26f}}) {
    EncodingSpec e;
    e.kind = EncodingKind::HashGrid;
    e.n_levels = k.levels;
    e.base_resolution = k.base;
    e.finest_resolution = k.finest;
    e.per_level_scale = k.scale;
    e.log2_hashmap_size = k.log2;
    CAPTURE(k.levels);
    CAPTURE(k.finest);
    const double scale = k.finest > 0 ? std::pow(double(k.finest) / k.base, 1.0 / (k.levels - 1)) : double(k.scale);
    const auto ref = reference_levels(k.levels, k.base, scale, k.log2);
    const HashGridParams g = hash_grid_params(e);
    for (int l = 0; l < k.levels; ++l) {
      CAPTURE(l);
      CHECK(g.resolution[l] == uint32_t(ref[size_t(l)].n));
      CHECK(bool(g.dense[l]) == ref[size_t(l)].dense);
      CHECK(g.offset[l] == uint32_t(ref[size_t(l)].offset));
    }
    if (k.finest > 0) CHECK(g.resolution[k.levels - 1] == uint32_t(k.finest)); // the finest level is exact
    const long long entries =
        ref.back().offset + (ref.back().dense ? (ref.back().n + 1) * (ref.back().n + 1) : (1LL << k.log2));
    CHECK(int64_t(hash_grid_entries(g)) == entries);
    CHECK(encoding_parameter_count(e) == entries * 2);
  }
}

TEST_CASE("hash grid: corner entries and weights match a float64 reference, for linear and smoothstep") {
  for (GridInterpolation interp : {GridInterpolation::Linear, GridInterpolation::Smoothstep}) {
    EncodingSpec e = small_grid(interp);
    e.n_levels = 6; // 4 .. 4096 cells per side
    const HashGridParams g = hash_grid_params(e);
    const auto ref = reference_levels(6, 4, 4.0, 10);
    int checked = 0;
    for (uint64_t s = 0; s < 400; ++s) {
      const double x = 2 * random_unit(5, 1, 2 * s) - 1, y = 2 * random_unit(5, 1, 2 * s + 1) - 1;
      const float xf = float(x), yf = float(y);
      for (int l = 0; l < 6; ++l) {
        const RefLevel& r = ref[size_t(l)];
        const double px = (double(xf) + 1) / 2 * double(r.n), py = (double(yf) + 1) / 2 * double(r.n);
        const double cx = std::floor(px), cy = std::floor(py);
        double fx = px - cx, fy = py - cy;
        if (fx < 1e-3 || fx > 1 - 1e-3 || fy < 1e-3 || fy > 1 - 1e-3) continue; // float may pick the other cell
        if (interp == GridInterpolation::Smoothstep) {
          fx = fx * fx * (3 - 2 * fx);
          fy = fy * fy * (3 - 2 * fy);
        }
        const long long i = (long long)cx, j = (long long)cy;
        const long long want_entry[4] = {reference_entry(r, i, j, 10), reference_entry(r, i + 1, j, 10),
                                         reference_entry(r, i, j + 1, 10), reference_entry(r, i + 1, j + 1, 10)};
        const double want_w[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
        uint32_t entry[4];
        float w[4];
        hash_grid_corners<float>(g, l, xf, yf, entry, w);
        for (int c = 0; c < 4; ++c) {
          CHECK(int64_t(entry[c]) == want_entry[c]);
          // float positions carry N * 2^-24-sized errors into the fractions at fine levels
          CHECK(std::abs(double(w[c]) - want_w[c]) <= 1e-6 + double(r.n) * 3e-7);
        }
        ++checked;
      }
    }
    CHECK(checked > 2000);
  }
  // The image's corners land on the grid's corner vertices.
  const HashGridParams g = hash_grid_params(small_grid());
  uint32_t entry[4];
  double w[4];
  hash_grid_corners<double>(g, 0, 1.0, 1.0, entry, w);
  CHECK(w[3] == 1.0);
  CHECK(entry[3] == 24u); // vertex (4, 4) of 5 x 5
}

TEST_CASE("hash grid: weight derivatives match finite differences") {
  for (GridInterpolation interp : {GridInterpolation::Linear, GridInterpolation::Smoothstep}) {
    const HashGridParams g = hash_grid_params(small_grid(interp));
    for (int l = 0; l < 4; ++l) {
      const double x = 0.123, y = -0.377, h = 1e-7;
      double dx[4], dy[4], up[4], down[4];
      uint32_t e[4];
      hash_grid_weight_derivatives<double>(g, l, x, y, dx, dy);
      hash_grid_corners<double>(g, l, x + h, y, e, up);
      hash_grid_corners<double>(g, l, x - h, y, e, down);
      for (int c = 0; c < 4; ++c)
        CHECK(dx[c] == doctest::Approx((up[c] - down[c]) / (2 * h)).epsilon(1e-5));
      hash_grid_corners<double>(g, l, x, y + h, e, up);
      hash_grid_corners<double>(g, l, x, y - h, e, down);
      for (int c = 0; c < 4; ++c)
        CHECK(dy[c] == doctest::Approx((up[c] - down[c]) / (2 * h)).epsilon(1e-5));
    }
  }
}

TEST_CASE("hash grid: finite differences check table and MLP gradients; the CPU backend matches the reference") {
  const LossParams mse{};
  for (Activation act : {Activation::Relu, Activation::Tanh}) {
    for (GridInterpolation interp : {GridInterpolation::Linear, GridInterpolation::Smoothstep}) {
      for (int32_t channels : {1, 3}) {
        CAPTURE(activation_name(act));
        CAPTURE(interpolation_name(interp));
        CAPTURE(channels);
        const Problem p = grid_problem(act, interp, channels, 11);
        ReferenceMlp ref(p.model, p.params, p.fourier_b);
        const auto analytic = ref.gradient(mse, p.coords, p.targets);
        // Central differences of the double reference over every parameter, table included.
        const std::vector<double> fd = ref.central_differences(mse, p.coords, p.targets);
        const size_t table = size_t(encoding_parameter_count(p.model.encoding));
        const std::vector<double> fd_table(fd.begin(), fd.begin() + std::ptrdiff_t(table));
        const std::vector<double> an_table(analytic.begin(), analytic.begin() + std::ptrdiff_t(table));
        const std::vector<double> fd_mlp(fd.begin() + std::ptrdiff_t(table), fd.end());
        const std::vector<double> an_mlp(analytic.begin() + std::ptrdiff_t(table), analytic.end());
        CHECK(normalised_error(an_table, fd_table) < 1e-6);
        CHECK(normalised_error(an_mlp, fd_mlp) < 1e-6);
        int touched = 0;
        for (double v : an_table)
          touched += v != 0.0;
        CHECK(touched > 7 * 4 * 2); // 7 samples reach many entries of every level

        CpuBackend cpu;
        std::vector<float> grads(p.params.size(), 123.0f); // stale values must be overwritten
        const int64_t n = int64_t(p.coords.size() / 2);
        const double loss =
            cpu.loss_and_gradients(p.model, mse, p.params, p.fourier_b, p.coords.data(), p.targets.data(), n, grads);
        CHECK(loss == doctest::Approx(ref.loss(mse, p.coords, p.targets)).epsilon(1e-5));
        CHECK(normalised_error(grads, analytic) < 2e-5);
        // encode() and predict() agree with the reference too.
        std::vector<float> enc(size_t(n) * size_t(p.model.encoding.width()));
        const std::span<const float> table_span(p.params.data(), table);
        cpu.encode(p.model.encoding, table_span, p.coords.data(), n, enc.data());
        std::vector<double> want;
        for (int64_t i = 0; i < n; ++i) {
          const auto a = ref.encode(p.coords[size_t(2 * i)], p.coords[size_t(2 * i + 1)]);
          want.insert(want.end(), a.begin(), a.end());
        }
        CHECK(normalised_error(enc, want) < 5e-5); // float fractions at 256 cells per side
      }
    }
  }
}

TEST_CASE("hash grid: the gradient through a batch of two chunks matches the reference") {
  // More rows than one CPU chunk: the table gradient accumulates across chunks.
  const int n = int(CpuBackend::k_chunk_rows) + 1808;
  Problem p = grid_problem(Activation::Relu, GridInterpolation::Linear, 3, 5, n);
  const LossParams mse{};
  ReferenceMlp ref(p.model, p.params, p.fourier_b);
  const auto analytic = ref.gradient(mse, p.coords, p.targets);
  CpuBackend cpu;
  std::vector<float> grads(p.params.size());
  (void)cpu.loss_and_gradients(p.model, mse, p.params, p.fourier_b, p.coords.data(), p.targets.data(), n, grads);
  CHECK(normalised_error(grads, analytic) < 2e-5);
}

TEST_CASE("hash grid: CPU training is bit-identical for the same seed, and differs for another") {
  const Image img = redraw::test::gradient_image(48, 40, 3);
  auto run = [&](uint64_t seed) {
    RunConfig c = grid_config(1000);
    c.training.seed = seed;
    Trainer t = redraw::test::small_trainer(c, img);
    t.run(30);
    return std::make_pair(t.parameters(), t.record().rows().back().psnr_db);
  };
  const auto a = run(3), b = run(3), other = run(4);
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
  CHECK(a.first != other.first);
  CHECK(a.second > 20.0); // it learns
}

TEST_CASE("hash grid: bound minibatch steps (table update deferred) match the stateless ops, however the state is read") {
  // The CPU backend applies a minibatch step's table update during the next step's encoding.
  // Reference: each step's batch through loss_and_gradients (its own chunked pass) and one
  // optimizer_update, weight decay 0 so the table and the MLP take the same rule.
  const Image img = redraw::test::gradient_image(40, 36, 3);
  const Dataset data{img};
  RunConfig c = grid_config(700); // a chunk and a ragged one
  c.model.output_channels = 3;
  TrainSetup setup;
  setup.model = c.model;
  setup.loss = c.loss;
  setup.optimizer = c.optimizer;
  setup.batch_size = 700;
  setup.seed = 5;
  const std::vector<float> start = initial_parameters(c.model, 5);
  constexpr int k_steps = 7;
  const auto lr_of = [](int64_t k) { return 0.02f / float(k + 1); }; // a different rate each step

  std::vector<float> ref = start;
  OptimizerState ref_state;
  ref_state.first.assign(ref.size(), 0.0f);
  ref_state.second.assign(ref.size(), 0.0f);
  CpuBackend stateless;
  std::vector<float> coords(size_t(2 * setup.batch_size)), targets(size_t(3 * setup.batch_size)), grads(ref.size());
  std::vector<double> ref_loss;
  for (int64_t k = 0; k < k_steps; ++k) {
    for (int64_t i = 0; i < setup.batch_size; ++i) {
      const uint32_t j = minibatch_index(setup.seed, k, i, uint32_t(data.size()));
      data.coordinate(j, coords[size_t(2 * i)], coords[size_t(2 * i + 1)]);
      for (int ch = 0; ch < 3; ++ch) targets[size_t(3 * i + ch)] = data.targets()[size_t(3 * j + ch)];
    }
    ref_loss.push_back(stateless.loss_and_gradients(setup.model, setup.loss, ref, {}, coords.data(), targets.data(),
                                                    setup.batch_size, grads));
    stateless.optimizer_update(setup.optimizer, ref, grads, ref_state, lr_of(k), k);
  }

  // Read after every step (each read applies the deferred update), or only at the end; with the
  // table's levels scattered and updated one at a time (one thread) or three at a time (a group
  // of three and a ragged group of one for the four levels).
  for (const auto& [read_each_step_, threads_] : {std::pair{true, 1}, std::pair{false, 1}, std::pair{true, 3},
                                                  std::pair{false, 3}}) {
    const bool read_each_step = read_each_step_; // plain variables: CAPTURE's lambda cannot take a binding
    const int threads = threads_;
    CAPTURE(read_each_step);
    CAPTURE(threads);
    set_cpu_threads(threads);
    struct Measured { // the default again, however the case ends
      ~Measured() { set_cpu_threads(0); }
    } measured;
    CpuBackend bound;
    bound.configure(setup, data);
    bound.set_parameters(start);
    for (int64_t k = 0; k < k_steps; ++k) {
      StepArgs a;
      a.step = k;
      a.learning_rate = lr_of(k);
      a.record_loss = true;
      bound.train_step(a);
      const auto loss = bound.poll_loss();
      REQUIRE(loss);
      CHECK(loss->loss == doctest::Approx(ref_loss[size_t(k)]).epsilon(1e-6));
      if (read_each_step && k == 3) {
        // A prediction from the bound weights sees the whole update, as one from a copy does.
        std::vector<float> a_out(3 * 50), b_out(3 * 50);
        bound.predict_bound(coords.data(), 50, a_out.data());
        bound.predict(setup.model, bound.parameters(), {}, coords.data(), 50, b_out.data());
        CHECK(a_out == b_out);
      }
      if (read_each_step) (void)bound.optimizer_state();
    }
    const std::vector<float> got = bound.parameters();
    const OptimizerState st = bound.optimizer_state();
    REQUIRE(got.size() == ref.size());
    double worst = 0, worst_m = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      worst = std::max(worst, std::abs(double(got[i]) - double(ref[i])));
      worst_m = std::max(worst_m, std::abs(double(st.first[i]) - double(ref_state.first[i])));
    }
    // The same sums in the same order (each entry's contributions in row order, then Adam): the
    // same bits.
    CHECK(worst == 0.0);
    CHECK(worst_m == 0.0);
    CHECK(st.second == ref_state.second);
    // The table moved: a deferred update that never ran would leave it at its start.
    const size_t table = size_t(encoding_parameter_count(setup.model.encoding));
    size_t moved = 0;
    for (size_t i = 0; i < table; ++i) moved += got[i] != start[i];
    CHECK(moved > table / 10);
  }
}

TEST_CASE("hash grid: weight decay spares the table") {
  RunConfig c = grid_config(1);
  c.optimizer.kind = OptimizerKind::Sgd;
  c.optimizer.sgd.momentum = 0.0f;
  c.optimizer.sgd.weight_decay = c.optimizer.adam.weight_decay = 0.5f;
  c.schedule.lr_max = 1.0;
  Trainer t = redraw::test::small_trainer(c, redraw::test::gradient_image(16, 16, 1));
  const auto before = t.parameters();
  t.step(); // one sample: it touches 4 entries per level
  const auto after = t.parameters();
  const size_t table = size_t(encoding_parameter_count(c.model.encoding));
  int changed_table = 0, changed_mlp = 0;
  for (size_t i = 0; i < table; ++i)
    changed_table += after[i] != before[i];
  for (size_t i = table; i < after.size(); ++i)
    changed_mlp += after[i] != before[i];
  CHECK(changed_table > 0);
  CHECK(changed_table <= 4 * 4 * 2);
  CHECK(changed_mlp > int(after.size() - table) / 2); // decay moves (nearly) every MLP weight
}

TEST_CASE("hash grid: config keys round-trip; bad values name the field") {
  nlohmann::json j = {{"model",
                       {{"encoding",
                         {{"otype", "HashGrid"},
                          {"n_levels", 12},
                          {"n_features_per_level", 4},
                          {"log2_hashmap_size", 15},
                          {"base_resolution", 8},
                          {"finest_resolution", 1024},
                          {"interpolation", "Smoothstep"}}},
                        {"hidden", {32, 32}}}},
                      {"training", {{"batch", 65536}, {"batch_cpu", 4096}}}};
  const RunConfig c = parse_run_config(j, "t.json");
  CHECK(c.model.encoding.kind == EncodingKind::HashGrid);
  CHECK(c.model.encoding.width() == 48);
  CHECK(c.model.encoding.interpolation == GridInterpolation::Smoothstep);
  CHECK(hash_grid_per_level_scale(c.model.encoding) == doctest::Approx(std::pow(128.0, 1.0 / 11)));
  CHECK(backend_batch(c.training, "cpu") == 4096);
  CHECK(backend_batch(c.training, "cuda") == 65536);
  const RunConfig back = parse_run_config(to_json(c), "back");
  CHECK(to_json(back) == to_json(c));
  CHECK(parameter_count(back.model) == parameter_count(c.model));

  auto fails = [&](const char* key, nlohmann::json value, const char* text) {
    nlohmann::json bad = j;
    bad["model"]["encoding"][key] = value;
    CHECK_THROWS_WITH_AS(parse_run_config(bad, "t.json"), doctest::Contains(text), ConfigError);
  };
  fails("n_features_per_level", 3, "model.encoding.n_features_per_level");
  fails("log2_hashmap_size", 9, "model.encoding.log2_hashmap_size");
  fails("n_levels", 40, "model.encoding.n_levels");
  fails("interpolation", "Cubic", "Interpolation 'Cubic' not found (known: Linear, Smoothstep)");
  fails("finest_resolution", 4, "model.encoding.finest_resolution");
  nlohmann::json huge = j;
  huge["model"]["encoding"]["log2_hashmap_size"] = 24;
  huge["model"]["encoding"]["n_levels"] = 20;
  huge["model"]["encoding"]["finest_resolution"] = 0;
  huge["model"]["encoding"]["per_level_scale"] = 1.5;
  huge["model"]["encoding"]["n_features_per_level"] = 8;
  CHECK_THROWS_WITH_AS(parse_run_config(huge, "t.json"), doctest::Contains("over the limit"), ConfigError);
  // Configs without a hash grid write no hash-grid keys and no batch_cpu (they read as before).
  const RunConfig plain = parse_run_config(nlohmann::json::object(), "p");
  CHECK_FALSE(to_json(plain)["model"]["encoding"].contains("n_levels"));
  CHECK_FALSE(to_json(plain)["training"].contains("batch_cpu"));
}

TEST_CASE("hash grid: the instant preset") {
  const RunConfig c = load_preset("instant");
  CHECK(c.model.encoding.kind == EncodingKind::HashGrid);
  CHECK(c.model.encoding.n_levels == 16);
  CHECK(c.model.encoding.n_features_per_level == 2);
  CHECK(c.model.encoding.base_resolution == 16);
  CHECK(c.model.hidden == std::vector<int32_t>{64, 64});
  CHECK(c.optimizer.adam.beta2 == 0.99f);
  CHECK(c.optimizer.adam.epsilon == 1e-15f);
  CHECK(c.schedule.kind == ScheduleKind::Cosine);
  CHECK(backend_batch(c.training, "cuda") == 262144);
  CHECK(backend_batch(c.training, "cpu") > 0);
  CHECK(backend_batch(c.training, "cpu") < backend_batch(c.training, "cuda"));
  const HashGridParams g = hash_grid_params(c.model.encoding);
  CHECK(g.resolution[0] == 16);
  CHECK(g.dense[0] == 1u);
  CHECK(g.dense[15] == 0u);
  // The table is nearly all of the parameters; the MLP has 32*64 + 64 + 64*64 + 64 + 64*3 + 3.
  ModelSpec m = c.model;
  m.output_channels = 3;
  CHECK(parameter_count(m) - encoding_parameter_count(m.encoding) == 6467);
}

TEST_CASE("hash grid: checkpoints round-trip (format 3) and format 1 and 2 files still load") {
  redraw::test::TempDir dir;
  const Image img = redraw::test::gradient_image(24, 20, 3);
  Trainer t = redraw::test::small_trainer(grid_config(256), img);
  t.run(12);
  const Checkpoint ck = t.checkpoint("x.png");
  const auto bytes = serialize_checkpoint(ck);
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  CHECK(version == 3u);
  save_checkpoint(dir.path / "m.redraw", ck);
  const Checkpoint back = load_checkpoint(dir.path / "m.redraw");
  CHECK(back.params == ck.params);
  CHECK(back.optimizer.second == ck.optimizer.second);
  CHECK(back.config.model.encoding.log2_hashmap_size == 12);
  CHECK(back.snapshots.size() == ck.snapshots.size());
  Trainer resumed = redraw::test::small_trainer(back.config, img);
  resumed.restore(back);
  t.run(5);
  resumed.run(5);
  CHECK(resumed.parameters() == t.parameters()); // resuming is exact on the CPU

  // A file written by the format-1 writer (no hash grid, version field 1) still loads.
  Trainer plain = redraw::test::small_trainer(redraw::test::small_config(OptimizerKind::Adam, 0), img);
  plain.run(3);
  auto old = serialize_checkpoint(plain.checkpoint(), 1);
  const auto v2 = serialize_checkpoint(ck, 2);
  const Checkpoint back2 = deserialize_checkpoint(v2.data(), v2.size(), "v2.redraw");
  CHECK(back2.params == ck.params);
  CHECK(back2.snapshots.size() == ck.snapshots.size()); // every frame of a trained run has weights
  const uint32_t one = 1;
  std::memcpy(old.data() + 8, &one, 4);
  const uint32_t crc = uint32_t(crc32(crc32(0L, Z_NULL, 0), old.data(), uInt(old.size() - 4)));
  std::memcpy(old.data() + old.size() - 4, &crc, 4);
  const Checkpoint v1 = deserialize_checkpoint(old.data(), old.size(), "v1.redraw");
  CHECK(v1.params == plain.parameters());
}

TEST_CASE("hash grid: the timelapse keeps to its cap with large parameter vectors") {
  RunConfig c = grid_config(128);
  c.model.encoding.log2_hashmap_size = 14; // ~150k parameters, 0.6 MB a frame
  Trainer t = redraw::test::small_trainer(c, redraw::test::gradient_image(16, 16, 3));
  const size_t frame = snapshot_bytes(Snapshot{MetricsRow{}, t.parameters(), {}, {}});
  t.set_snapshot_cap_bytes(5 * frame);
  t.run(30);
  CHECK(t.frames().store().bytes() <= 5 * frame);
  // Every frame of the 30 steps fits as a picture; a few keep (fp16) weights.
  CHECK(t.frames().store().size() == size_t(std::count_if(
      t.frames().store().frames().begin(), t.frames().store().frames().end(),
      [&](const Snapshot& s) { return t.frames().policy().should_snapshot(s.metrics.step); })));
  CHECK(t.frames().store().thinned() == 0);
  CHECK(frame_kind(t.frames().store().frames().front()) != FrameKind::Picture);
  CHECK(frame_kind(t.frames().store().frames()[1]) == FrameKind::Picture);
}
