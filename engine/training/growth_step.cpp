#include "engine/training/growth_step.h"

#include "engine/model_family.h"

#include <algorithm>

namespace redraw {

namespace {
/// The bound model's output at every pixel centre of `data` (pixels x channels), in bands.
std::vector<float> predict_every_pixel(Backend& backend, const Dataset& data) {
  const int32_t w = data.image.width, h = data.image.height, C = data.channels();
  std::vector<float> out(size_t(data.size()) * size_t(C)), coords;
  const int32_t band = std::max<int32_t>(1, int32_t(65536 / std::max(w, 1)));
  for (int32_t y0 = 0; y0 < h; y0 += band) {
    const int32_t y1 = std::min(h, y0 + band);
    coords.resize(size_t(y1 - y0) * size_t(w) * 2);
    grid_coordinates(w, h, y0, y1, coords.data());
    backend.predict_bound(coords.data(), int64_t(y1 - y0) * w, out.data() + size_t(y0) * size_t(w) * size_t(C));
  }
  return out;
}
} // namespace

std::optional<GrowthEvent> grow_bound_primitives(Backend& backend, const RunConfig& config, const Dataset& data,
                                                 int64_t step) {
  const ModelFamily& family = model_family(config.model.encoding.kind);
  if (!family.grow) return std::nullopt;
  backend.synchronize();
  if (!backend.parameters_sound(true)) return std::nullopt;
  std::vector<float> params = backend.parameters();
  OptimizerState moments = backend.optimizer_state();
  const std::vector<float> prediction = predict_every_pixel(backend, data);
  std::vector<int32_t> lists;
  backend.bound_site_lists(lists); // the lists the step and the prediction used, when it keeps them
  const GrowthPicture picture{data.image.width, data.image.height, data.channels(), data.targets(), prediction.data(),
                              lists};
  const int64_t moved =
      family.grow(config.model, config.training.grow, config.training.seed, step, picture, params, moments);
  backend.set_moved_parameters(params);
  backend.set_optimizer_state(moments);
  return GrowthEvent{step, moved};
}

} // namespace redraw
