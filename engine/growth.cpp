/// What the families that grow share: the rules are in engine/growth.h.
#include "engine/growth.h"

#include "engine/model_family.h"
#include "engine/rng_math.h"

#include <algorithm>
#include <cmath>

namespace redraw {

std::string grow_problem(const RunConfig& c) {
  if (!c.training.grow.on()) return {};
  if (!model_family(c.model.encoding.kind).grow) {
    std::string growing;
    for (const ModelFamily* f : model_families())
      if (f->grow) growing += std::string(growing.empty() ? "" : ", ") + f->name;
    return std::string("training.grow: the ") + encoding_name(c.model.encoding.kind) +
           " family does not grow (those that do: " + growing + ")";
  }
  if (!c.model.hidden.empty())
    return "training.grow: primitives grow under a linear colour head only (model.hidden must be [])";
  return {};
}

int64_t grow_count(int64_t count, double fraction) {
  return std::clamp<int64_t>(std::llround(double(count) * fraction), 1, std::max<int64_t>(count, 1));
}

bool grow_due(const RunConfig& c, int64_t step, int64_t progress) {
  const GrowSpec& g = c.training.grow;
  return g.on() && model_family(c.model.encoding.kind).grow && step > 0 && step % g.every == 0 &&
         double(progress) < g.until * double(c.training.steps);
}

int64_t grow_events_reached(const RunConfig& c, int64_t progress) {
  const GrowSpec& g = c.training.grow;
  if (!g.on() || !model_family(c.model.encoding.kind).grow || progress <= 0) return 0;
  const double window = g.until * double(c.training.steps); // relocations below it
  const int64_t last = progress < window ? progress : int64_t(std::ceil(window)) - 1;
  return last > 0 ? last / g.every : 0;
}

bool grow_due_at(const RunConfig& c, int64_t progress, int64_t done) {
  const GrowSpec& g = c.training.grow;
  return g.on() && double(progress) < g.until * double(c.training.steps) && grow_events_reached(c, progress) > done;
}

std::vector<GrowthEvent> growth_events_until(const RunConfig& c, int64_t step) {
  std::vector<GrowthEvent> out;
  const ModelFamily& family = model_family(c.model.encoding.kind);
  if (!c.training.grow.on() || !family.grow) return out;
  const int64_t m = grow_count(family.primitives(c.model.encoding), c.training.grow.fraction);
  for (int64_t s = c.training.grow.every; s <= step; s += c.training.grow.every)
    if (grow_due(c, s, s)) out.push_back({s, m});
  return out;
}

std::vector<int64_t> error_weighted_pixels(std::span<const double> error, int64_t m, uint64_t seed, int64_t step) {
  struct Keyed {
    double key;
    int64_t pixel;
  };
  // `before`: more likely first, ties by pixel. The m best so far in a heap whose top is the worst
  // of them, so the draw keeps m entries, not one per pixel.
  const auto before = [](const Keyed& a, const Keyed& b) { return a.key != b.key ? a.key > b.key : a.pixel < b.pixel; };
  std::vector<Keyed> best;
  if (m <= 0) return {};
  best.reserve(size_t(std::min<int64_t>(m, int64_t(error.size()))));
  for (size_t p = 0; p < error.size(); ++p) {
    if (!(error[p] > 0.0) || !std::isfinite(error[p])) continue;
    // u in (0, 1): log(u) / e is the larger the more likely, for e > 0.
    const uint64_t bits = random_u64(seed, k_stream_gaussian_growth, (uint64_t(step) << 32) + uint64_t(p)) >> 11;
    const double u = (double(bits) + 0.5) * (1.0 / 9007199254740992.0);
    const Keyed k{std::log(u) / error[p], int64_t(p)};
    if (int64_t(best.size()) < m) {
      best.push_back(k);
      std::push_heap(best.begin(), best.end(), before);
    } else if (before(k, best.front())) {
      std::pop_heap(best.begin(), best.end(), before);
      best.back() = k;
      std::push_heap(best.begin(), best.end(), before);
    }
  }
  std::sort_heap(best.begin(), best.end(), before);
  std::vector<int64_t> out(best.size());
  for (size_t j = 0; j < best.size(); ++j)
    out[j] = best[j].pixel;
  return out;
}

std::vector<double> head_pseudo_inverse(const float* head, int32_t C, int32_t K) {
  double m[4][8] = {}; // [H H^T | I], C <= 4
  std::vector<double> p(size_t(K * C), 0.0);
  if (C < 1 || C > 4) return p;
  for (int32_t a = 0; a < C; ++a) {
    for (int32_t b = 0; b < C; ++b)
      for (int32_t k = 0; k < K; ++k)
        m[a][b] += double(head[a * K + k]) * double(head[b * K + k]);
    m[a][C + a] = 1.0;
  }
  for (int32_t col = 0; col < C; ++col) { // Gauss-Jordan with partial pivoting
    int32_t piv = col;
    for (int32_t row = col + 1; row < C; ++row)
      if (std::abs(m[row][col]) > std::abs(m[piv][col])) piv = row;
    if (!(std::abs(m[piv][col]) > 1e-12)) return p;
    std::swap(m[piv], m[col]);
    const double d = m[col][col];
    for (int32_t j = 0; j < 2 * C; ++j)
      m[col][j] /= d;
    for (int32_t row = 0; row < C; ++row)
      if (row != col) {
        const double f = m[row][col];
        for (int32_t j = 0; j < 2 * C; ++j)
          m[row][j] -= f * m[col][j];
      }
  }
  for (int32_t k = 0; k < K; ++k)
    for (int32_t o = 0; o < C; ++o)
      for (int32_t a = 0; a < C; ++a)
        p[size_t(k * C + o)] += double(head[a * K + k]) * m[a][C + o];
  return p;
}

} // namespace redraw
