// Finite-difference checks: every activation, encoding, loss and layer, in float64; then the CPU
// backend's float32 forward and gradients against the float64 reference.
#include "reference_mlp.h"

#include "cpu/cpu_backend.h"
#include "engine/rng_math.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace redraw;
using redraw::test::normalised_error;
using redraw::test::ReferenceMlp;

namespace {

const Activation k_all_activations[] = {Activation::Identity, Activation::Relu,    Activation::LeakyRelu,
                                        Activation::Tanh,     Activation::Sigmoid, Activation::Softplus,
                                        Activation::Sine,     Activation::Finer,   Activation::Gauss,
                                        Activation::Gabor};

struct Problem {
  ModelSpec model;
  std::vector<float> params, fourier_b, coords, targets;
};

Problem make_problem(Activation act, Activation out_act, EncodingSpec enc, int32_t channels, uint64_t seed, int n = 7) {
  Problem p;
  p.model.encoding = enc;
  p.model.hidden = {6, 5};
  p.model.hidden_activations = {act, act};
  p.model.output_activation = out_act;
  p.model.output_channels = channels;
  // omega_0 = 3 when a layer is periodic (its hidden layers or its output): at 30 a Finer or Gabor
  // output's float forward pass is off the float64 one by more than the check's 1e-5 (1.3e-5 with
  // clang's scalar sinf), which says nothing about the gradient.
  auto periodic_act = [](Activation a) { return a == Activation::Sine || a == Activation::Finer || a == Activation::Gabor; };
  const bool periodic = periodic_act(act) || periodic_act(out_act);
  p.model.omega_0 = periodic ? 3.0f : 30.0f;
  p.model.gauss_scale = 1.5f;
  p.model.init = InitKind::Xavier;
  p.params = initial_parameters(p.model, seed);
  // Biases away from zero so ReLU kinks are unlikely to sit within the FD step.
  for (const auto& L : dense_layers(p.model))
    for (int32_t o = 0; o < L.out; ++o)
      p.params[size_t(L.bias_offset + o)] = float(0.3 * (2 * random_unit(seed, 9, uint64_t(L.bias_offset + o)) - 1));
  p.fourier_b = fourier_matrix(enc, seed);
  for (int i = 0; i < n; ++i) {
    p.coords.push_back(float(2 * random_unit(seed, 7, uint64_t(2 * i)) - 1));
    p.coords.push_back(float(2 * random_unit(seed, 7, uint64_t(2 * i + 1)) - 1));
    for (int c = 0; c < channels; ++c) p.targets.push_back(float(random_unit(seed, 8, uint64_t(i * channels + c))));
  }
  return p;
}

/// Central differences of the reference loss in double.
std::vector<double> fd_gradient(const Problem& p, const LossParams& lp) {
  ReferenceMlp ref(p.model, p.params, p.fourier_b);
  return ref.central_differences(lp, p.coords, p.targets);
}

/// Checks reference backprop against FD, then the CPU backend against the reference.
void check_problem(const Problem& p, const LossParams& lp, double backend_bound = 2e-5) {
  ReferenceMlp ref(p.model, p.params, p.fourier_b);
  const auto analytic = ref.gradient(lp, p.coords, p.targets);
  const auto fd = fd_gradient(p, lp);
  CHECK(normalised_error(analytic, fd) < 1e-6);

  CpuBackend cpu;
  std::vector<float> grads(p.params.size());
  const int64_t n = int64_t(p.coords.size() / 2);
  const double loss = cpu.loss_and_gradients(p.model, lp, p.params, p.fourier_b, p.coords.data(), p.targets.data(), n, grads);
  CHECK(loss == doctest::Approx(ref.loss(lp, p.coords, p.targets)).epsilon(1e-5));
  CHECK(normalised_error(grads, analytic) < backend_bound);

  std::vector<float> out(size_t(n) * size_t(p.model.output_channels));
  cpu.predict(p.model, p.params, p.fourier_b, p.coords.data(), n, out.data());
  std::vector<double> want;
  for (int64_t s = 0; s < n; ++s)
    for (double v : ref.forward(p.coords[size_t(2 * s)], p.coords[size_t(2 * s + 1)])) want.push_back(v);
  CHECK(normalised_error(out, want) < 1e-5);
}

} // namespace

TEST_CASE("activation derivatives match finite differences") {
  for (Activation a : k_all_activations) {
    const std::string name = activation_name(a); // a string: clang's doctest shows a char* as its address
    CAPTURE(name);
    for (double z : {-2.3, -0.7, -0.05, 0.11, 0.9, 2.6, 25.0}) {
      if ((a == Activation::Sine || a == Activation::Finer) && std::abs(z) > 3) continue;
      const double h = 1e-6, omega = 2.5, scale = 0.8;
      const double fd =
          (activate<double>(a, z + h, omega, scale) - activate<double>(a, z - h, omega, scale)) / (2 * h);
      const double y = activate<double>(a, z, omega, scale);
      CHECK(activate_derivative<double>(a, z, y, omega, scale) == doctest::Approx(fd).epsilon(1e-6));
    }
  }
}

TEST_CASE("FINER, Gauss and Gabor activations: the papers' formulas, and FINER's exact derivative at 0") {
  const double omega = 20.0, s = 7.0;
  for (double z : {-1.3, -0.2, -1e-3, 0.0, 0.05, 0.4, 2.2}) {
    CAPTURE(z);
    CHECK(activate<double>(Activation::Finer, z, omega, s) ==
          doctest::Approx(std::sin(omega * (std::fabs(z) + 1) * z)).epsilon(1e-14));
    CHECK(activate<double>(Activation::Gauss, z, omega, s) == doctest::Approx(std::exp(-s * s * z * z)).epsilon(1e-14));
    CHECK(activate<double>(Activation::Gabor, z, omega, s) ==
          doctest::Approx(std::cos(omega * z) * std::exp(-s * s * z * z)).epsilon(1e-14));
  }
  // d/dz sin(omega (|z| + 1) z) = omega (2|z| + 1) cos(...): omega at 0 from either side, and
  // not the detached omega (|z| + 1) cos(...) of FINER's reference code.
  CHECK(activate_derivative<double>(Activation::Finer, 0.0, 0.0, omega, s) == doctest::Approx(omega));
  const double z = 0.5;
  CHECK(activate_derivative<double>(Activation::Finer, z, 0.0, omega, s) ==
        doctest::Approx(omega * 2.0 * std::cos(omega * 1.5 * z)).epsilon(1e-14));
  CHECK(activate_derivative<double>(Activation::Finer, -z, 0.0, omega, s) ==
        doctest::Approx(omega * 2.0 * std::cos(-omega * 1.5 * z)).epsilon(1e-14));
}

TEST_CASE("encoding derivatives match finite differences") {
  EncodingSpec pos{EncodingKind::Positional, 4, 0, 0, 0};
  EncodingSpec fou{EncodingKind::Fourier, 0, 6, 3.0f, 0};
  EncodingSpec id{EncodingKind::Identity, 0, 0, 0, 0};
  for (const EncodingSpec& enc : {id, pos, fou}) {
    CAPTURE(encoding_name(enc.kind));
    const auto b = fourier_matrix(enc, 11);
    const EncodingParams e = enc.params();
    for (int32_t j = 0; j < enc.width(); ++j) {
      const double x = 0.31, y = -0.42, h = 1e-6;
      double dx = 0, dy = 0;
      encoding_derivative<double>(e, b.data(), x, y, j, dx, dy);
      const double fx = (encoding_value<double>(e, b.data(), x + h, y, j) - encoding_value<double>(e, b.data(), x - h, y, j)) / (2 * h);
      const double fy = (encoding_value<double>(e, b.data(), x, y + h, j) - encoding_value<double>(e, b.data(), x, y - h, j)) / (2 * h);
      CHECK(dx == doctest::Approx(fx).epsilon(1e-5).scale(1));
      CHECK(dy == doctest::Approx(fy).epsilon(1e-5).scale(1));
    }
  }
}

TEST_CASE("loss gradients match finite differences") {
  LossParams mse{LossKind::MSE}, l1{LossKind::L1}, huber{LossKind::Huber, 0.2f}, bce{LossKind::BCE, 0.1f, 1e-6f};
  for (const LossParams& lp : {mse, l1, huber, bce}) {
    for (double pred : {0.03, 0.25, 0.5, 0.81, 0.97}) {
      for (double t : {0.0, 0.4, 1.0}) {
        if (std::abs(pred - t) < 1e-3) continue;
        const double h = 1e-7;
        const double fd = (loss_value<double>(lp, pred + h, t) - loss_value<double>(lp, pred - h, t)) / (2 * h);
        CHECK(loss_gradient<double>(lp, pred, t) == doctest::Approx(fd).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("BCE is clipped: finite at predictions of exactly 0 and 1") {
  LossParams bce{LossKind::BCE, 0.1f, 1e-6f};
  for (float pred : {0.0f, 1.0f}) {
    CHECK(std::isfinite(loss_value<float>(bce, pred, 1.0f - pred)));
    CHECK(std::isfinite(loss_gradient<float>(bce, pred, 1.0f - pred)));
    CHECK(loss_gradient<float>(bce, pred, 1.0f - pred) != 0.0f);
  }
}

TEST_CASE("network gradients: every hidden activation") {
  const EncodingSpec id{};
  for (Activation a : k_all_activations) {
    const std::string name = activation_name(a); // a string: clang's doctest shows a char* as its address
    CAPTURE(name);
    check_problem(make_problem(a, Activation::Sigmoid, id, 1, 3), LossParams{LossKind::MSE});
  }
}

TEST_CASE("network gradients: every output activation, RGB") {
  const EncodingSpec id{};
  for (Activation a : k_all_activations) {
    const std::string name = activation_name(a); // a string: clang's doctest shows a char* as its address
    CAPTURE(name);
    check_problem(make_problem(Activation::Tanh, a, id, 3, 5), LossParams{LossKind::MSE});
  }
}

TEST_CASE("network gradients: encodings") {
  EncodingSpec pos{EncodingKind::Positional, 3, 0, 0, 0};
  EncodingSpec fou{EncodingKind::Fourier, 0, 5, 2.0f, 0};
  check_problem(make_problem(Activation::Tanh, Activation::Sigmoid, pos, 1, 7), LossParams{LossKind::MSE});
  check_problem(make_problem(Activation::Relu, Activation::Sigmoid, fou, 3, 8), LossParams{LossKind::MSE});
}

TEST_CASE("network gradients: losses") {
  const EncodingSpec id{};
  check_problem(make_problem(Activation::Tanh, Activation::Sigmoid, id, 1, 9), LossParams{LossKind::L1});
  check_problem(make_problem(Activation::Tanh, Activation::Sigmoid, id, 1, 10), LossParams{LossKind::Huber, 0.1f});
  check_problem(make_problem(Activation::Tanh, Activation::Sigmoid, id, 3, 11), LossParams{LossKind::BCE, 0.1f, 1e-6f});
}

TEST_CASE("CPU backend: chunked batches give the same gradient as the reference") {
  // More samples than one chunk, so accumulation across chunks is exercised.
  Problem p = make_problem(Activation::Sine, Activation::Identity, EncodingSpec{}, 1, 12,
                           int(CpuBackend::k_chunk_rows + 37));
  ReferenceMlp ref(p.model, p.params, p.fourier_b);
  const auto analytic = ref.gradient(LossParams{}, p.coords, p.targets);
  CpuBackend cpu;
  std::vector<float> grads(p.params.size());
  cpu.loss_and_gradients(p.model, LossParams{}, p.params, p.fourier_b, p.coords.data(), p.targets.data(),
                         int64_t(p.coords.size() / 2), grads);
  CHECK(normalised_error(grads, analytic) < 1e-4);
}

TEST_CASE("CPU backend: encode matches the per-element formula") {
  EncodingSpec fou{EncodingKind::Fourier, 0, 8, 4.0f, 0};
  const auto b = fourier_matrix(fou, 2);
  std::vector<float> coords = {0.1f, -0.2f, 0.9f, 0.5f, -1.0f, 1.0f};
  std::vector<float> out(3 * size_t(fou.width()));
  CpuBackend cpu;
  cpu.encode(fou, b, coords.data(), 3, out.data());
  for (int s = 0; s < 3; ++s)
    for (int j = 0; j < fou.width(); ++j)
      CHECK(out[size_t(s * fou.width() + j)] ==
            doctest::Approx(encoding_value<double>(fou.params(), b.data(), coords[size_t(2 * s)], coords[size_t(2 * s + 1)], j)).epsilon(1e-5));
}
