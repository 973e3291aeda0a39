// The fused fp16 MLP's rules (cuda/fused_mlp_rules.h), checked on the CPU. The loss rule is
// checked against the arithmetic itself: for every loss and output activation the fused backward
// would store loss_gradient * activate_derivative (engine/loss_math.h, engine/activation_math.h,
// the kernels' own functions) in fp16; the rule must refuse exactly the pairs where that value
// leaves fp16's range somewhere over the outputs the activation can produce.
#include "cuda/fused_mlp_rules.h"
#include "engine/activation_math.h"
#include "engine/run_config.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace redraw;
using namespace redraw::cuda;

namespace {

/// Pre-activations from -30 to 30: a fine linear grid plus +-10^-k down to 10^-12, where BCE's
/// clip sits.
std::vector<float> pre_activations() {
  std::vector<float> z;
  for (int i = -3000; i <= 3000; ++i) z.push_back(float(i) * 0.01f);
  for (int k = 1; k <= 12; ++k)
    for (float m : {1.0f, 2.0f, 5.0f}) {
      z.push_back(m * std::pow(10.0f, -float(k)));
      z.push_back(-m * std::pow(10.0f, -float(k)));
    }
  return z;
}

/// The largest |dLoss/dZ| of the output layer the fused backward stores in fp16 (unscaled: the
/// kernel multiplies the mean's 1/count back out), over outputs y = act(z) and targets in [0, 1].
/// The kernel evaluates the derivative from y alone (activate_derivative(act, y, y)).
float worst_output_gradient(LossKind kind, Activation out) {
  LossParams loss;
  loss.kind = kind;
  float worst = 0.0f;
  for (float z : pre_activations()) {
    const float y = activate<float>(out, z, 30.0f, 1.0f);
    for (float t : {0.0f, 0.25f, 0.5f, 1.0f}) {
      const float g = loss_gradient<float>(loss, y, t) * activate_derivative<float>(out, y, y, 30.0f, 1.0f);
      worst = std::max(worst, std::isfinite(g) ? std::abs(g) : INFINITY);
    }
  }
  return worst;
}

ModelSpec instant_model() { return load_preset("instant").model; }

} // namespace

TEST_CASE("fused MLP rules: a loss is refused exactly where its output gradient overflows fp16") {
  for (LossKind kind : {LossKind::MSE, LossKind::L1, LossKind::Huber, LossKind::BCE}) {
    for (Activation out : {Activation::Identity, Activation::Relu, Activation::LeakyRelu, Activation::Tanh,
                           Activation::Sigmoid}) {
      LossParams loss;
      loss.kind = kind;
      const float worst = worst_output_gradient(kind, out);
      const bool refused = !fused_loss_unsupported(loss, out).empty();
      CAPTURE(int(kind));
      CAPTURE(activation_name(out));
      CAPTURE(worst);
      if (refused)
        CHECK(worst > k_fp16_max);
      else
        CHECK(worst < k_fp16_max / 64); // headroom: the hidden layers' dZ grow from here
    }
  }
  // The case the rule exists for: BCE's gradient at the clip is 1/eps.
  CHECK(worst_output_gradient(LossKind::BCE, Activation::Identity) >= 0.5e6f);
  CHECK(worst_output_gradient(LossKind::BCE, Activation::Sigmoid) <= 1.01f);
}

TEST_CASE("fused MLP rules: instant's shape runs fused; BCE without a sigmoid output falls back, with the reason") {
  ModelSpec m = instant_model();
  REQUIRE(m.output_activation == Activation::Sigmoid);
  CHECK(fused_mlp_unsupported(m).empty());
  LossParams bce;
  bce.kind = LossKind::BCE;
  CHECK(fused_mlp_unsupported(m, &bce).empty());
  CHECK(fused_mlp_unsupported(m, nullptr).empty());
  m.output_activation = Activation::Identity;
  CHECK(fused_mlp_unsupported(m).empty()); // forward passes alone are fine
  const std::string why = fused_mlp_unsupported(m, &bce);
  CHECK(why.find("BCE") != std::string::npos);
  CHECK(why.find("fp16") != std::string::npos);
  const LossParams mse{};
  CHECK(fused_mlp_unsupported(m, &mse).empty());
}

TEST_CASE("fused MLP rules: shapes outside the kernels say why") {
  ModelSpec m = instant_model();
  const ModelSpec base = m;
  m.hidden = {64, 32};
  m.hidden_activations.assign(2, Activation::Relu);
  CHECK(fused_mlp_unsupported(m) == "hidden layers of different widths");
  m = base;
  m.hidden.assign(m.hidden.size(), 48);
  CHECK(fused_mlp_unsupported(m).find("48") != std::string::npos);
  m = base;
  m.hidden.assign(9, 64);
  m.hidden_activations.assign(9, Activation::Relu);
  CHECK(fused_mlp_unsupported(m).find("hidden layers") != std::string::npos);
  m = base;
  m.hidden_activations.assign(m.hidden.size(), Activation::Sine);
  CHECK(fused_mlp_unsupported(m).find("activation") != std::string::npos);
  // The fp16 kernels keep only y; these derivatives need z (cuBLAS fp32 runs them).
  for (Activation a : {Activation::Finer, Activation::Gauss, Activation::Gabor}) {
    m = base;
    m.hidden_activations.assign(m.hidden.size(), a);
    CHECK(fused_mlp_unsupported(m) == std::string(activation_name(a)) + " activation");
    m = base;
    m.output_activation = a;
    CHECK(fused_mlp_unsupported(m) == std::string(activation_name(a)) + " output");
  }
  m = base;
  m.output_channels = 17;
  CHECK(fused_mlp_unsupported(m) == "more than 16 outputs");
  m = base;
  m.hidden.assign(m.hidden.size(), 16); // instant's 32 grid features are wider than 16
  CHECK(fused_mlp_unsupported(m) == "the encoding is wider than the hidden layers");
  for (int32_t w : {16, 32, 64, 128}) CHECK(fused_supported_width(w));
  for (int32_t w : {0, 8, 48, 96, 256}) CHECK_FALSE(fused_supported_width(w));
}

TEST_CASE("fused MLP rules: a pass never takes more rows than its buffers hold") {
  CHECK(fused_rows_problem(0, 4096).empty());
  CHECK(fused_rows_problem(4096, 4096).empty());
  const std::string over = fused_rows_problem(4097, 4096);
  CHECK(over.find("4097") != std::string::npos);
  CHECK(over.find("4096") != std::string::npos);
  CHECK_FALSE(fused_rows_problem(1, 0).empty()); // nothing allocated
  CHECK_FALSE(fused_rows_problem(-1, 4096).empty());
}

TEST_CASE("fused MLP rules: the epilogue switch's names, default and errors") {
  CHECK(parse_fused_epilogue(nullptr) == FusedEpilogue::Staged);
  CHECK(parse_fused_epilogue("") == FusedEpilogue::Staged);
  CHECK(parse_fused_epilogue("staged") == FusedEpilogue::Staged);
  CHECK(parse_fused_epilogue("fragment") == FusedEpilogue::Fragment);
  CHECK(std::string(fused_epilogue_name(FusedEpilogue::Fragment)) == "fragment");
  CHECK_THROWS_WITH_AS(parse_fused_epilogue("fast"),
                       "REDRAW_FUSED_MLP_EPILOGUE: 'fast' not found (known: staged, fragment)", ConfigError);
}
