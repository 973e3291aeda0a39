// CUDA backend against the CPU reference backend, op by op, with a normalised error bound per op:
//   e = max_i |cuda_i - cpu_i| / max_i |cpu_i|   (tests/reference_mlp.h: normalised_error)
// fp32 bounds (the two backends sum in different orders, and nvcc contracts a*b+c into FMAs):
//   encode                  identity exact; positional/Fourier 2e-5 (phases reach ~100 rad, where
//                           one float ulp of the phase is 7.6e-6)
//   predict                 1e-5; 2e-5 with positional/Fourier inputs or sine layers
//   loss                    relative 1e-5
//   gradients               1e-5; 5e-5 with positional/Fourier inputs or sine layers
//   optimizer (Adam, SGD)   1e-6 (the same per-element function; only FMA contraction differs)
//   render (float)          1e-5; render (RGBA8) at most 1 level apart per channel
//   200-step training run   parameters 1e-3, recorded losses and PSNR relative 1e-3 (per-op
//                           rounding differences of 1e-6 compound over 200 updates; a real bug
//                           shows up as an O(1) difference)
// tf32 (tensor cores, 10-bit mantissa): predict 5e-3; bf16 (7-bit mantissa): predict 3e-2, and
// a 200-step run still lowers the loss.
// Every case needs a device; without one it prints "SKIPPED: no CUDA device: <why>" (MESSAGE and
// stdout) and checks nothing, so a CPU-only run shows what was not tested.
#if REDRAW_HAVE_CUDA

#include "cuda_test_support.h"
#include "reference_mlp.h"
#include "test_support.h"

#include "cuda/cuda_backend.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/pixel_sample.h"
#include "engine/frames/renderer.h"
#include "engine/rng_math.h"
#include "engine/training/trainer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace redraw;
using redraw::test::normalised_error;


namespace {

const Activation k_activations[] = {Activation::Identity, Activation::Relu,    Activation::LeakyRelu,
                                    Activation::Tanh,     Activation::Sigmoid, Activation::Softplus,
                                    Activation::Sine,     Activation::Finer,   Activation::Gauss,
                                    Activation::Gabor};
const LossKind k_losses[] = {LossKind::MSE, LossKind::L1, LossKind::Huber, LossKind::BCE};
const EncodingKind k_encodings[] = {EncodingKind::Identity, EncodingKind::Positional, EncodingKind::Fourier};

/// Calls `check(act, enc)` for every hidden activation with every encoding of k_encodings.
template <class F> void for_each_activation_and_encoding(F&& check) {
  for (Activation act : k_activations)
    for (EncodingKind enc : k_encodings) check(act, enc);
}

EncodingSpec encoding_of(EncodingKind k) {
  EncodingSpec e;
  e.kind = k;
  e.levels = 6;
  e.features = 32;
  e.sigma = 6.0f;
  return e;
}

std::vector<float> random_coords(int64_t n, uint64_t seed) {
  std::vector<float> c(size_t(n) * 2);
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(2 * random_unit(seed, 11, i) - 1);
  return c;
}

std::vector<float> random_targets(int64_t count, uint64_t seed) {
  std::vector<float> t(static_cast<size_t>(count));
  for (size_t i = 0; i < t.size(); ++i) t[i] = float(random_unit(seed, 12, i));
  return t;
}

struct Net {
  ModelSpec model;
  std::vector<float> params, fourier_b;
};

Net make_net(Activation act, EncodingKind enc, Activation out, int32_t channels, uint64_t seed) {
  Net n;
  n.model.encoding = encoding_of(enc);
  n.model.hidden = {32, 24};
  n.model.hidden_activations = {act, act};
  n.model.output_activation = out;
  n.model.output_channels = channels;
  n.model.omega_0 = 30.0f;
  n.model.gauss_scale = 2.5f; // Gauss and Gabor: wide enough that few units sit at exp(-(s z)^2) = 0
  n.model.init = paper_init(act, act == Activation::Relu ? InitKind::He : InitKind::Xavier);
  n.params = initial_parameters(n.model, seed);
  // Biases away from zero, as a trained net has them (an all-zero bias hides bias bugs).
  for (const auto& L : dense_layers(n.model))
    for (int32_t o = 0; o < L.out; ++o)
      n.params[size_t(L.bias_offset + o)] = float(0.2 * (2 * random_unit(seed, 13, uint64_t(L.bias_offset + o)) - 1));
  n.fourier_b = fourier_matrix(n.model.encoding, seed);
  return n;
}

bool high_frequency(Activation act, EncodingKind enc) {
  return act == Activation::Sine || act == Activation::Finer || act == Activation::Gabor ||
         enc != EncodingKind::Identity;
}

std::unique_ptr<CudaBackend> fp32_backend() { return test::cuda_backend(CudaPrecision::Fp32); }

/// Whether the device runs tf32 and bf16 (compute capability 8.0 or newer); when it does not,
/// a SKIPPED message that `needs` begins ("bf16 needs").
bool runs_tf32(const CudaBackend& gpu, const char* needs) {
  if (gpu.supports(BackendFeature::Tf32)) return true;
  MESSAGE("SKIPPED: " << needs << " compute capability 8.0 or newer");
  return false;
}

/// The fp32 CUDA backend, the CPU backend it is checked against, and n random coordinates.
struct OpParity {
  std::unique_ptr<CudaBackend> gpu = fp32_backend();
  CpuBackend cpu;
  int64_t n;
  std::vector<float> coords;
  OpParity(int64_t samples, uint64_t seed) : n(samples), coords(random_coords(samples, seed)) {}
};

} // namespace

TEST_CASE("cuda parity: encode (identity, positional, Fourier)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  OpParity p(1000, 3);
  auto& [gpu, cpu, n, coords] = p;
  for (EncodingKind k : k_encodings) {
    EncodingSpec e = encoding_of(k);
    if (k == EncodingKind::Fourier) e.features = 256, e.sigma = 10.0f;
    const auto b = fourier_matrix(e, 5);
    std::vector<float> a(size_t(n) * e.width()), r(a.size());
    gpu->encode(e, b, coords.data(), n, a.data());
    cpu.encode(e, b, coords.data(), n, r.data());
    const double err = normalised_error(a, r);
    INFO("encoding " << encoding_name(k) << " error " << err);
    CHECK(err <= (k == EncodingKind::Identity ? 0.0 : 2e-5));
  }
}

TEST_CASE("cuda parity: predict, every activation and encoding, 1 and 3 channels") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  OpParity p(777, 17);
  auto& [gpu, cpu, n, coords] = p;
  for_each_activation_and_encoding([&](Activation act, EncodingKind enc) {
    for (int32_t channels : {1, 3}) {
      const Activation out = channels == 1 ? Activation::Sigmoid : Activation::Identity;
      const Net net = make_net(act, enc, out, channels, 21);
      std::vector<float> a(size_t(n) * channels), r(a.size());
      gpu->predict(net.model, net.params, net.fourier_b, coords.data(), n, a.data());
      cpu.predict(net.model, net.params, net.fourier_b, coords.data(), n, r.data());
      const double err = normalised_error(a, r);
      INFO(activation_name(act) << " / " << encoding_name(enc) << " / " << channels << " channels: error " << err);
      CHECK(err <= (high_frequency(act, enc) ? 2e-5 : 1e-5));
    }
  });
}

TEST_CASE("cuda parity: predict in tf32 and bf16 stays close") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = fp32_backend();
  if (!runs_tf32(*gpu, "tf32 and bf16 need")) return;
  CpuBackend cpu;
  const int64_t n = 500;
  const auto coords = random_coords(n, 4);
  const Net net = make_net(Activation::Tanh, EncodingKind::Identity, Activation::Sigmoid, 3, 8);
  std::vector<float> r(size_t(n) * 3);
  cpu.predict(net.model, net.params, net.fourier_b, coords.data(), n, r.data());
  for (auto [precision, bound] : {std::pair{CudaPrecision::Tf32, 5e-3}, std::pair{CudaPrecision::Bf16, 3e-2}}) {
    gpu->set_precision(precision);
    std::vector<float> a(r.size());
    gpu->predict(net.model, net.params, net.fourier_b, coords.data(), n, a.data());
    INFO(cuda_precision_name(precision) << ": error " << normalised_error(a, r));
    CHECK(normalised_error(a, r) <= bound);
  }
}

TEST_CASE("cuda: a bf16 training run still learns") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = fp32_backend();
  if (!runs_tf32(*gpu, "bf16 needs")) return;
  gpu->set_precision(CudaPrecision::Bf16);
  RunConfig c = redraw::test::small_config(OptimizerKind::Adam, 0);
  c.training.steps = 200;
  c.training.metrics_every = 50;
  Trainer t(std::move(gpu), c, Dataset{redraw::test::gradient_image(40, 30, 1)});
  t.run(200);
  REQUIRE(t.record().rows().size() >= 2);
  CHECK(t.record().rows().back().loss < 0.5 * t.record().rows().front().loss);
}

TEST_CASE("cuda parity: loss and gradients, every activation, encoding and loss") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  OpParity p(300, 31);
  auto& [gpu, cpu, n, coords] = p;
  for_each_activation_and_encoding([&](Activation act, EncodingKind enc) {
    for (LossKind lk : k_losses) {
      // BCE needs predictions in (0, 1); the other losses also run with 3 linear outputs.
      const int32_t channels = lk == LossKind::BCE ? 1 : 3;
      const Activation out = lk == LossKind::BCE ? Activation::Sigmoid : Activation::Identity;
      const Net net = make_net(act, enc, out, channels, 41);
      const auto targets = random_targets(n * channels, 43);
      LossParams lp;
      lp.kind = lk;
      std::vector<float> ga(net.params.size()), gr(net.params.size());
      const double la =
          gpu->loss_and_gradients(net.model, lp, net.params, net.fourier_b, coords.data(), targets.data(), n, ga);
      const double lr =
          cpu.loss_and_gradients(net.model, lp, net.params, net.fourier_b, coords.data(), targets.data(), n, gr);
      const double gerr = normalised_error(ga, gr);
      INFO(activation_name(act) << " / " << encoding_name(enc) << " / " << loss_name(lk) << ": loss " << la << " vs "
                                << lr << ", gradient error " << gerr);
      CHECK(std::abs(la - lr) <= 1e-5 * std::abs(lr));
      CHECK(gerr <= (high_frequency(act, enc) ? 5e-5 : 1e-5));
    }
  });
}

TEST_CASE("cuda parity: gradients over several chunks accumulate like one pass") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  OpParity p(70000, 51); // more than one stateless chunk (65536 rows)
  auto& [gpu, cpu, n, coords] = p;
  const Net net = make_net(Activation::Tanh, EncodingKind::Identity, Activation::Sigmoid, 1, 52);
  const auto targets = random_targets(n, 53);
  LossParams lp;
  std::vector<float> ga(net.params.size()), gr(net.params.size());
  const double la = gpu->loss_and_gradients(net.model, lp, net.params, net.fourier_b, coords.data(), targets.data(), n, ga);
  const double lr = cpu.loss_and_gradients(net.model, lp, net.params, net.fourier_b, coords.data(), targets.data(), n, gr);
  CHECK(std::abs(la - lr) <= 1e-5 * lr);
  CHECK(normalised_error(ga, gr) <= 1e-5);
}

TEST_CASE("cuda parity: optimizer update (Adam, SGD, SGD momentum, Nesterov)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = fp32_backend();
  CpuBackend cpu;
  const size_t n = 10007;
  for (int variant = 0; variant < 4; ++variant) {
    OptimizerSpec opt;
    opt.kind = variant == 0 ? OptimizerKind::Adam : OptimizerKind::Sgd;
    opt.adam.weight_decay = 1e-4f;
    opt.sgd.momentum = variant >= 2 ? 0.9f : 0.0f;
    opt.sgd.nesterov = variant == 3;
    std::vector<float> pa = random_targets(int64_t(n), 61), pr = pa;
    OptimizerState sa, sr;
    for (int64_t step = 0; step < 3; ++step) {
      std::vector<float> g = random_targets(int64_t(n), 70 + uint64_t(step));
      for (float& v : g) v -= 0.5f;
      gpu->optimizer_update(opt, pa, g, sa, 1e-2f, step);
      cpu.optimizer_update(opt, pr, g, sr, 1e-2f, step);
    }
    INFO("variant " << variant);
    CHECK(normalised_error(pa, pr) <= 1e-6);
    CHECK(sa.first.size() == sr.first.size());
    CHECK(sa.second.size() == sr.second.size());
    if (!sr.first.empty()) CHECK(normalised_error(sa.first, sr.first) <= 1e-6);
    if (!sr.second.empty()) CHECK(normalised_error(sa.second, sr.second) <= 1e-6);
  }
}

namespace {

/// A trainer on each backend for the same run.
struct Pair {
  Trainer cpu, gpu;
  Pair(const RunConfig& cfg, const Image& img)
      : cpu(std::make_unique<CpuBackend>(), cfg, Dataset{img}), gpu(fp32_backend(), cfg, Dataset{img}) {}
};

RunConfig run_config(int variant) {
  RunConfig c = redraw::test::small_config(variant == 1 ? OptimizerKind::Sgd : OptimizerKind::Adam, 0);
  c.training.steps = 200;
  c.training.metrics_every = 50;
  switch (variant) {
  case 0: // Adam, full batch, tanh (small_config)
    break;
  case 1: // SGD with momentum, minibatch drawn on the device, Fourier features + ReLU
    c.model.encoding = encoding_of(EncodingKind::Fourier);
    c.model.hidden = {32, 32};
    c.model.hidden_activations = {Activation::Relu, Activation::Relu};
    c.model.init = InitKind::He;
    c.training.batch_size = 256;
    c.schedule.kind = ScheduleKind::Cosine;
    c.schedule.lr_max = 0.02;
    c.schedule.lr_min = 1e-4;
    break;
  case 2: // SIREN, 3 channels, linear output, Adam
    c.model.hidden = {32, 32};
    c.model.hidden_activations = {Activation::Sine, Activation::Sine};
    c.model.output_activation = Activation::Identity;
    c.model.init = InitKind::Siren;
    c.schedule.lr_max = 1e-3;
    break;
  case 3: // FINER, 3 channels, linear output, Adam (cuBLAS fp32: the fused path refuses it)
    c.model.hidden = {32, 32};
    c.model.hidden_activations = {Activation::Finer, Activation::Finer};
    c.model.output_activation = Activation::Identity;
    c.model.init = InitKind::Finer;
    c.schedule.lr_max = 1e-3;
    break;
  case 4: // Gabor (real WIRE), 3 channels, linear output, Adam
    c.model.hidden = {32, 32};
    c.model.hidden_activations = {Activation::Gabor, Activation::Gabor};
    c.model.output_activation = Activation::Identity;
    c.model.init = InitKind::Linear;
    c.model.omega_0 = 10.0f;
    c.model.gauss_scale = 3.0f;
    c.schedule.lr_max = 1e-3;
    break;
  }
  return c;
}

} // namespace

TEST_CASE("cuda parity: 200-step training runs through the bound API") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  for (int variant = 0; variant < 5; ++variant) {
    const RunConfig cfg = run_config(variant);
    const Image img = redraw::test::gradient_image(40, 30, cfg.model.output_channels == 3 || variant >= 2 ? 3 : 1);
    RunConfig c = cfg;
    c.model.output_channels = img.channels;
    Pair p(c, img);
    p.cpu.run(200);
    p.gpu.run(200);
    INFO("variant " << variant);
    const double perr = normalised_error(p.gpu.parameters(), p.cpu.parameters());
    INFO("parameter error " << perr);
    CHECK(perr <= 1e-3);
    const auto& hc = p.cpu.record().rows();
    const auto& hg = p.gpu.record().rows();
    // The GPU measures a row inside the step after its count, so a row's loss is the training loss
    // at the row's weights: the loss the CPU reports one step later (engine/training/lagged_rows.h).
    // The reference: the same CPU run with a row at every step.
    RunConfig every_step = c;
    every_step.training.metrics_every = 1;
    Trainer ref(std::make_unique<CpuBackend>(), every_step, Dataset{img});
    ref.run(200);
    const auto& every = ref.record().rows();
    REQUIRE(every.size() >= 200); // a row at each count 1..200 (and the untrained one, if kept)
    REQUIRE(hc.size() == hg.size());
    // FINER's phase omega (|z| + 1) z runs to about 3x SIREN's at |z| = 1, so the few-ulp differences
    // between the device's and the host's sinf and summation orders reach the picture about 3x as
    // much: on an H200 its rows differed by 1.35e-3 of the PSNR (0.033 dB) with the parameters
    // within 1.6e-4, where the other variants stay under 1e-3.
    const double psnr_tolerance = variant == 3 ? 3e-3 : 1e-3;
    for (size_t i = 0; i < hc.size(); ++i) {
      INFO("metrics row " << i << " step " << hc[i].step << ": PSNR " << hg[i].psnr_db << " vs " << hc[i].psnr_db);
      CHECK(hg[i].step == hc[i].step);
      CHECK(std::abs(hg[i].psnr_db - hc[i].psnr_db) <= psnr_tolerance * std::abs(hc[i].psnr_db));
      REQUIRE(std::isfinite(hg[i].loss));
      if (hg[i].step >= 200) continue; // the last row's loss is the whole image's, measured at the end
      const auto next = std::find_if(every.begin(), every.end(), [&](const MetricsRow& r) { return r.step == hg[i].step + 1; });
      REQUIRE(next != every.end());
      const double want = next->loss;
      INFO("metrics row " << i << " step " << hg[i].step << ": loss " << hg[i].loss << " vs " << want);
      CHECK(std::abs(hg[i].loss - want) <= 1e-3 * std::abs(want));
    }
    CHECK(hc.back().loss < hc.front().loss); // it learned something
  }
}

TEST_CASE("cuda: graph replay matches eager steps, and runs repeat bit for bit") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  const RunConfig cfg = run_config(1);
  RunConfig c = cfg;
  c.model.output_channels = 1;
  const Image img = redraw::test::gradient_image(40, 30, 1);
  auto run = [&](bool graphs) {
    auto b = fp32_backend();
    b->set_graphs_enabled(graphs);
    Trainer t(std::move(b), c, Dataset{img});
    t.run(30);
    return t.parameters();
  };
  const auto with_graph = run(true);
  const auto eager = run(false);
  const auto again = run(true);
  // cuBLAS may pick other kernels under capture, so graph vs eager is held to 1e-6, not bits.
  if (with_graph != eager) MESSAGE("graph and eager runs differ in the last bits");
  CHECK(normalised_error(with_graph, eager) <= 1e-6);
  CHECK(with_graph == again); // deterministic: no atomics, fixed reduction order
}

TEST_CASE("cuda parity: bound state round trips, poll_loss and dataset_mse") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  RunConfig c = redraw::test::small_config(OptimizerKind::Adam, 0);
  const Image img = redraw::test::gradient_image(33, 21, 1);
  TrainSetup setup{c.model, c.loss, c.optimizer, 0, c.training.seed};
  auto gpu = fp32_backend();
  CpuBackend cpu;
  const Dataset data{img}; // the CPU backend reads its pixels in place: it must outlive the binding
  gpu->configure(setup, data);
  cpu.configure(setup, data);
  const auto params = initial_parameters(c.model, 9);
  gpu->set_parameters(params);
  cpu.set_parameters(params);
  CHECK(gpu->parameters() == params);
  OptimizerState st;
  st.first = random_targets(int64_t(params.size()), 1);
  st.second = random_targets(int64_t(params.size()), 2);
  gpu->set_optimizer_state(st);
  cpu.set_optimizer_state(st);
  const OptimizerState back = gpu->optimizer_state();
  CHECK(back.first == st.first);
  CHECK(back.second == st.second);

  CHECK_FALSE(gpu->poll_loss().has_value());
  StepArgs args;
  args.step = 0;
  args.learning_rate = 1e-3f;
  args.record_loss = true;
  gpu->train_step(args);
  cpu.train_step(args);
  gpu->synchronize();
  const auto lg = gpu->poll_loss();
  const auto lc = cpu.poll_loss();
  REQUIRE(lg.has_value());
  REQUIRE(lc.has_value());
  CHECK(lg->step == 0);
  CHECK(std::abs(lg->loss - lc->loss) <= 1e-5 * lc->loss);
  CHECK_FALSE(gpu->poll_loss().has_value()); // reported once
  CHECK(std::abs(gpu->dataset_mse() - cpu.dataset_mse()) <= 1e-5 * cpu.dataset_mse());
  CHECK(normalised_error(gpu->parameters(), cpu.parameters()) <= 1e-5);
}

TEST_CASE("cuda parity: a recorded step brings the dataset's error of its starting point (full batch and minibatch)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  for (const int64_t batch : {int64_t(0), int64_t(200)}) {
    CAPTURE(batch);
    RunConfig c = redraw::test::small_config(OptimizerKind::Adam, batch);
    c.model.output_channels = 3;
    const Image img = redraw::test::gradient_image(33, 21, 3);
    TrainSetup setup{c.model, c.loss, c.optimizer, batch, c.training.seed};
    auto gpu = fp32_backend();
    CpuBackend cpu;
    const Dataset data{img}; // the CPU backend reads its pixels in place: it must outlive the binding
    gpu->configure(setup, data);
    cpu.configure(setup, data);
    REQUIRE(gpu->supports(BackendFeature::StepMetrics));
    const auto params = initial_parameters(c.model, 5);
    gpu->set_parameters(params);
    cpu.set_parameters(params);
    for (int64_t step = 0; step < 6; ++step) {
      const double before = cpu.dataset_mse(); // the reference: the parameters this step starts from
      StepArgs args;
      args.step = step;
      args.learning_rate = 1e-2f;
      args.record_loss = step % 2 == 1;
      args.record_mse = args.record_loss;
      gpu->train_step(args);
      cpu.train_step(args);
      (void)cpu.poll_loss();
      if (!args.record_loss) continue;
      gpu->synchronize();
      const auto sample = gpu->poll_loss();
      REQUIRE(sample.has_value());
      CHECK(sample->step == step);
      REQUIRE(std::isfinite(sample->mse));
      CHECK(std::abs(sample->mse - before) <= 1e-4 * before);
    }
  }
}

TEST_CASE("cuda parity: a minibatch step on an image over the metric sample measures those pixels, not all") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  // 300 x 260 = 78,000 pixels: more than the metric sample of a 4096-pixel batch (6,144, as the
  // Trainer sets it), so a recorded step measures that fixed sample. Reference: the CPU's forward pass over the same pixels, in float64.
  for (const EncodingKind enc : {EncodingKind::Identity, EncodingKind::Positional}) {
    CAPTURE(int(enc));
    RunConfig c = redraw::test::small_config(OptimizerKind::Adam, 4096);
    c.model.output_channels = 3;
    c.model.encoding = encoding_of(enc);
    const Image img = redraw::test::gradient_image(300, 260, 3);
    const Dataset data{img};
    TrainSetup setup{c.model, c.loss, c.optimizer, 4096, c.training.seed};
    setup.metric_sample_pixels = metric_sample_pixels(setup.batch_size);
    REQUIRE(setup.metric_sample_pixels == 6144);
    auto gpu = fp32_backend();
    gpu->configure(setup, data);
    const auto params = initial_parameters(c.model, 11);
    gpu->set_parameters(params);
    const PixelSample sample = stratified_pixel_sample(img.width, img.height, setup.metric_sample_pixels, 0);
    REQUIRE_FALSE(sample.whole);
    const size_t k = sample.indices.size();
    std::vector<float> xy(2 * k), pred(3 * k);
    for (size_t i = 0; i < k; ++i) data.coordinate(sample.indices[i], xy[2 * i], xy[2 * i + 1]);
    CpuBackend cpu;
    cpu.predict(c.model, params, fourier_matrix(c.model.encoding, c.training.seed), xy.data(), int64_t(k), pred.data());
    double se = 0;
    for (size_t i = 0; i < k; ++i)
      for (int ch = 0; ch < 3; ++ch) {
        const double d = std::clamp(double(pred[3 * i + size_t(ch)]), 0.0, 1.0) -
                         double(img.pixels[size_t(sample.indices[i]) * 3 + size_t(ch)]);
        se += d * d;
      }
    const double expected = se / double(3 * k);
    StepArgs args;
    args.step = 0;
    args.learning_rate = 1e-2f;
    args.record_loss = args.record_mse = true;
    gpu->train_step(args);
    gpu->synchronize();
    const auto got = gpu->poll_loss();
    REQUIRE(got.has_value());
    CHECK(got->mse_sampled);
    CHECK(std::abs(got->mse - expected) <= 1e-4 * expected);
    // dataset_mse() still reads every pixel, and differs from the sample's estimate.
    const double exact = gpu->dataset_mse();
    CHECK(exact > 0);
    CHECK(exact != got->mse);
  }
}

TEST_CASE("cuda parity: rendering (float tiles and the RGBA8 device image)") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  for (int32_t channels : {1, 3}) {
    RunConfig c = redraw::test::small_config(OptimizerKind::Adam, 0);
    c.model.output_channels = channels;
    c.model.encoding = encoding_of(EncodingKind::Positional);
    const Image img = redraw::test::gradient_image(20, 10, channels);
    TrainSetup setup{c.model, c.loss, c.optimizer, 0, c.training.seed};
    auto gpu = fp32_backend();
    const Dataset data{img}; // the CPU backend reads its pixels in place: it must outlive the binding
    gpu->configure(setup, data);
    const auto params = initial_parameters(c.model, 77);
    gpu->set_parameters(params);
    const auto fb = fourier_matrix(c.model.encoding, c.training.seed);
    CpuBackend cpu;
    const NetworkView view{&c.model, params, fb};
    RenderOptions small_tiles;
    small_tiles.max_tile_pixels = 1000; // many bands, a partial last band
    const Image ref = render_image(cpu, view, 97, 61, small_tiles);
    const Image got = render_image(*gpu, view, 97, 61, small_tiles);
    CHECK(normalised_error(got.pixels, ref.pixels) <= 1e-5);

    // 97 x 61 = 5917 pixels, more than the 200-sample training chunk: several device tiles.
    const auto rgba = gpu->render_rgba8(97, 61);
    REQUIRE(rgba.size() == size_t(97) * 61 * 4);
    int worst = 0;
    for (size_t p = 0; p < size_t(97) * 61; ++p) {
      for (int k = 0; k < 3; ++k) {
        const float v = ref.pixels[p * size_t(channels) + size_t(channels == 3 ? k : 0)];
        const int want = int(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
        worst = std::max(worst, std::abs(int(rgba[p * 4 + size_t(k)]) - want));
      }
      CHECK(rgba[p * 4 + 3] == 255);
    }
    CHECK(worst <= 1);
  }
}

TEST_CASE("cuda: errors are BackendErrors, never crashes") {
  REDRAW_REQUIRE_CUDA_DEVICE();
  auto gpu = fp32_backend();
  CHECK_THROWS_AS(gpu->render_rgba8(4, 4), BackendError);         // nothing configured
  CHECK_THROWS_AS(gpu->train_step(StepArgs{}), BackendError);     // nothing configured
  CHECK(gpu->device_description().find("compute capability") != std::string::npos);
  // Configured, then asked for sizes outside [1, k_max_render_side]: ConfigError, nothing written.
  RunConfig c = redraw::test::small_config(OptimizerKind::Adam, 0);
  const Image img = redraw::test::gradient_image(8, 8, c.model.output_channels);
  const Dataset data{img}; // the CPU backend reads its pixels in place: it must outlive the binding
  gpu->configure(TrainSetup{c.model, c.loss, c.optimizer, 0, c.training.seed}, data);
  gpu->set_parameters(initial_parameters(c.model, 5));
  CHECK_THROWS_AS(gpu->render_rgba8(0, 4), ConfigError);
  CHECK_THROWS_AS(gpu->render_rgba8(4, -1), ConfigError);
  CHECK_THROWS_AS(gpu->render_rgba8(100000, 4), ConfigError);
  CHECK(gpu->render_rgba8(4, 4).size() == 4u * 4u * 4u); // and the backend still works
}

#endif // REDRAW_HAVE_CUDA
