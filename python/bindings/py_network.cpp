#include "python/bindings/py_network.h"

#include "engine/errors.h"
#include "python/bindings/py_arrays.h"
#include "python/bindings/py_convert.h"
#include "python/bindings/py_interrupt.h"

namespace redraw::python {

void render_size(const py::object& width, const py::object& height, int32_t default_w, int32_t default_h,
                 int32_t& out_w, int32_t& out_h) {
  const std::optional<int64_t> w = int_arg(width, "render: width"), h = int_arg(height, "render: height");
  if (w.has_value() != h.has_value()) throw py::value_error("render: give both width and height, or neither");
  const int64_t rw = w ? *w : default_w, rh = h ? *h : default_h;
  if (rw < 1 || rh < 1 || rw > k_max_render_side || rh > k_max_render_side)
    throw py::value_error("render: " + std::to_string(rw) + "x" + std::to_string(rh) + " is outside 1.." +
                          std::to_string(k_max_render_side) + " per side");
  out_w = int32_t(rw);
  out_h = int32_t(rh);
}

py::array_t<float> render_interruptible(const std::function<Image(const RenderOptions&)>& render) {
  RenderOptions opts;
  opts.max_tile_pixels = k_python_band_pixels;
  opts.progress = [check = StopCheck()](double) mutable { return !check(); };
  Image img;
  bool stopped = false;
  {
    Unlocked unlocked;
    try {
      img = render(opts);
    } catch (const CancelledError&) {
      stopped = true; // only the progress above cancels a render
    }
  }
  if (stopped) interrupted("render");
  return array_from_image(std::move(img));
}

py::array_t<float> render_array(Backend& backend, const NetworkView& net, int32_t w, int32_t h) {
  return render_interruptible([&](const RenderOptions& opts) { return render_image(backend, net, w, h, opts); });
}

py::array_t<float> predict_array(Backend& backend, const NetworkView& net, const py::object& coords) {
  const std::vector<float> xy = network_coordinates(coords);
  const int64_t n = int64_t(xy.size() / 2);
  const int32_t channels = net.model->output_channels;
  std::vector<float> out(size_t(n) * size_t(channels));
  bool stopped = false;
  {
    Unlocked unlocked;
    StopCheck check;
    // In bands, as a render is: a million coordinates never need a million rows of activations.
    for (int64_t i = 0; i < n && !stopped; i += k_python_band_pixels) {
      const int64_t m = std::min(k_python_band_pixels, n - i);
      if (net.bound) backend.predict_bound(xy.data() + 2 * i, m, out.data() + i * channels);
      else backend.predict(*net.model, net.params, net.fourier_b, xy.data() + 2 * i, m, out.data() + i * channels);
      stopped = check();
    }
  }
  if (stopped) interrupted("predict");
  return array_from_vector(std::move(out), {py::ssize_t(n), py::ssize_t(channels)});
}

} // namespace redraw::python
