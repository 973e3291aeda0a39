#include "python/bindings/py_network.h"

#include "python/bindings/py_arrays.h"

namespace redraw::python {

void render_size(const std::optional<int32_t>& w, const std::optional<int32_t>& h, int32_t default_w,
                 int32_t default_h, int32_t& out_w, int32_t& out_h) {
  if (w.has_value() != h.has_value()) throw py::value_error("render: give both width and height, or neither");
  out_w = w ? *w : default_w;
  out_h = h ? *h : default_h;
  if (out_w < 1 || out_h < 1 || out_w > k_max_render_side || out_h > k_max_render_side)
    throw py::value_error("render: " + std::to_string(out_w) + "x" + std::to_string(out_h) + " is outside 1.." +
                          std::to_string(k_max_render_side) + " per side");
}

py::array_t<float> render_array(Backend& backend, const NetworkView& net, int32_t w, int32_t h) {
  Image img;
  {
    py::gil_scoped_release unlocked;
    img = render_image(backend, net, w, h);
  }
  return array_from_image(std::move(img));
}

py::array_t<float> predict_array(Backend& backend, const NetworkView& net, const py::object& coords) {
  const std::vector<float> xy = network_coordinates(coords);
  const int64_t n = int64_t(xy.size() / 2);
  const int32_t channels = net.model->output_channels;
  std::vector<float> out(size_t(n) * size_t(channels));
  {
    py::gil_scoped_release unlocked;
    // In bands, as a render is: a million coordinates never need a million rows of activations.
    constexpr int64_t k_band = int64_t(1) << 18;
    for (int64_t i = 0; i < n; i += k_band) {
      const int64_t m = std::min(k_band, n - i);
      if (net.bound) backend.predict_bound(xy.data() + 2 * i, m, out.data() + i * channels);
      else backend.predict(*net.model, net.params, net.fourier_b, xy.data() + 2 * i, m, out.data() + i * channels);
    }
  }
  return array_from_vector(std::move(out), {py::ssize_t(n), py::ssize_t(channels)});
}

} // namespace redraw::python
