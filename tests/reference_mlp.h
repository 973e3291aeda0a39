#pragma once
/// An independent float64 reference of the coordinate MLP for tests: a plain loop-per-element
/// forward and backward pass (no BLAS, no chunking), built on the same per-element formulas in
/// double precision. Finite differences check this reference; the reference then checks the
/// backends' float32 results. A HashGrid encoding reads its table from the leading parameters
/// (the corners and weights come from engine/hash_grid_math.h in double) and backpropagates into it.
#include "engine/model_spec.h"
#include "engine/loss_math.h"

#include <vector>

namespace redraw::test {

struct ReferenceMlp {
  const ModelSpec& model;
  std::vector<DenseLayer> layers;
  std::vector<double> params;
  const float* fourier_b;

  HashGridParams grid{};
  bool has_grid = false;

  ReferenceMlp(const ModelSpec& m, const std::vector<float>& p, const std::vector<float>& b)
      : model(m), layers(dense_layers(m)), params(p.begin(), p.end()), fourier_b(b.data()) {
    has_grid = m.encoding.kind == EncodingKind::HashGrid;
    if (has_grid) grid = hash_grid_params(m.encoding);
  }

  /// The encoding of (x, y) in double.
  std::vector<double> encode(double x, double y) const {
    const EncodingParams e = model.encoding.params();
    std::vector<double> a(size_t(encoding_width(e)));
    if (!has_grid) {
      for (int32_t j = 0; j < int32_t(a.size()); ++j)
        a[size_t(j)] = encoding_value<double>(e, fourier_b, x, y, j);
      return a;
    }
    for_each_grid_term(x, y, [&](size_t k, size_t t, double w) { a[k] += w * params[t]; });
    return a;
  }

  /// Calls term(k, t, w) for each level, feature and cell corner of (x, y): encoding output k takes
  /// w times table value t.
  template <class Term> void for_each_grid_term(double x, double y, Term&& term) const {
    const int32_t F = grid.n_features;
    for (int32_t l = 0; l < grid.n_levels; ++l) {
      uint32_t entry[4];
      double w[4];
      hash_grid_corners<double>(grid, l, x, y, entry, w);
      for (int32_t f = 0; f < F; ++f)
        for (int c = 0; c < 4; ++c) term(size_t(l * F + f), size_t(entry[c]) * size_t(F) + size_t(f), w[c]);
    }
  }

  /// Adds the table gradient of one sample, given d = dLoss/dEncoding, to g.
  void encoding_backward(double x, double y, const std::vector<double>& d, std::vector<double>& g) const {
    if (!has_grid) return;
    for_each_grid_term(x, y, [&](size_t k, size_t t, double w) { g[t] += w * d[k]; });
  }

  /// Output of one sample; fills zs / ys (per layer) when given.
  std::vector<double> forward(double x, double y, std::vector<std::vector<double>>* zs = nullptr,
                              std::vector<std::vector<double>>* ys = nullptr, std::vector<double>* input = nullptr) const {
    std::vector<double> a = encode(x, y);
    if (input) *input = a;
    for (const auto& L : layers) {
      std::vector<double> z(size_t(L.out)), out(size_t(L.out));
      for (int32_t o = 0; o < L.out; ++o) {
        double s = params[size_t(L.bias_offset + o)];
        for (int32_t i = 0; i < L.in; ++i) s += params[size_t(L.weight_offset + int64_t(o) * L.in + i)] * a[size_t(i)];
        z[size_t(o)] = s;
        out[size_t(o)] = activate<double>(L.activation, s, double(model.omega_0), double(model.gauss_scale));
      }
      if (zs) zs->push_back(z);
      if (ys) ys->push_back(out);
      a = out;
    }
    return a;
  }

  /// Mean loss over n samples (coords n x 2, targets n x C).
  double loss(const LossParams& lp, const std::vector<float>& coords, const std::vector<float>& targets) const {
    const size_t n = coords.size() / 2;
    const size_t C = size_t(layers.back().out);
    double sum = 0;
    for (size_t s = 0; s < n; ++s) {
      const auto out = forward(coords[2 * s], coords[2 * s + 1]);
      for (size_t c = 0; c < C; ++c) sum += loss_value<double>(lp, out[c], double(targets[s * C + c]));
    }
    return sum / double(n * C);
  }

  /// The gradient of loss() by central differences of step h over every parameter (table
  /// included); the parameters end as they began.
  std::vector<double> central_differences(const LossParams& lp, const std::vector<float>& coords,
                                          const std::vector<float>& targets, double h = 1e-6) {
    std::vector<double> g(params.size());
    for (size_t i = 0; i < g.size(); ++i) {
      const double keep = params[i];
      params[i] = keep + h;
      const double up = loss(lp, coords, targets);
      params[i] = keep - h;
      const double down = loss(lp, coords, targets);
      params[i] = keep;
      g[i] = (up - down) / (2 * h);
    }
    return g;
  }

  /// Analytic gradient of loss() by backpropagation in double.
  std::vector<double> gradient(const LossParams& lp, const std::vector<float>& coords,
                               const std::vector<float>& targets) const {
    const size_t n = coords.size() / 2;
    const size_t C = size_t(layers.back().out);
    std::vector<double> g(params.size(), 0.0);
    for (size_t s = 0; s < n; ++s) {
      std::vector<std::vector<double>> zs, ys;
      std::vector<double> input;
      const auto out = forward(coords[2 * s], coords[2 * s + 1], &zs, &ys, &input);
      std::vector<double> d(C);
      for (size_t c = 0; c < C; ++c) d[c] = loss_gradient<double>(lp, out[c], double(targets[s * C + c])) / double(n * C);
      for (size_t l = layers.size(); l-- > 0;) {
        const auto& L = layers[l];
        const std::vector<double>& x = l == 0 ? input : ys[l - 1];
        std::vector<double> dx(size_t(L.in), 0.0);
        for (int32_t o = 0; o < L.out; ++o) {
          const double dz = d[size_t(o)] * activate_derivative<double>(L.activation, zs[l][size_t(o)], ys[l][size_t(o)],
                                                                       double(model.omega_0),
                                                                       double(model.gauss_scale));
          g[size_t(L.bias_offset + o)] += dz;
          for (int32_t i = 0; i < L.in; ++i) {
            g[size_t(L.weight_offset + int64_t(o) * L.in + i)] += dz * x[size_t(i)];
            dx[size_t(i)] += dz * params[size_t(L.weight_offset + int64_t(o) * L.in + i)];
          }
        }
        d = dx;
      }
      encoding_backward(coords[2 * s], coords[2 * s + 1], d, g);
    }
    return g;
  }
};

/// max |a - b| / max(1e-12, max |b|): the normalised error used by every comparison.
template <class A, class B> double normalised_error(const A& a, const B& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::abs(double(a[i]) - double(b[i])));
    den = std::max(den, std::abs(double(b[i])));
  }
  return num / std::max(den, 1e-12);
}

} // namespace redraw::test
