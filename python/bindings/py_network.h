#pragma once
/// What the Python Trainer and Model share: rendering and predicting with a backend, the GIL
/// released while the engine works and Python's signals checked between bands (py_interrupt.h):
/// Ctrl+C raises KeyboardInterrupt within a band of k_python_band_pixels points.
#include "engine/backend.h"
#include "engine/frames/renderer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <optional>

namespace redraw::python {

namespace py = pybind11;

/// Points a render or predict evaluates between two checks for Ctrl+C: a quarter of the CLI's
/// band, a fraction of a second for a wide SIREN on one core. A point's value does not depend on
/// the band it is in.
constexpr int64_t k_python_band_pixels = int64_t(1) << 16;

/// The render size from width and height (ints, or both None for default_w x default_h);
/// TypeError naming the argument for another type, ValueError for one without the other or a
/// size outside 1..k_max_render_side.
void render_size(const py::object& width, const py::object& height, int32_t default_w, int32_t default_h,
                 int32_t& out_w, int32_t& out_h);
/// render(opts) with the GIL released, opts' bands of k_python_band_pixels, stopping at Ctrl+C
/// (KeyboardInterrupt) or at interpreter exit (CancelledError); the picture as an (h, w, C) float32
/// array over the engine's own buffer.
py::array_t<float> render_interruptible(const std::function<Image(const RenderOptions&)>& render);
/// `net` rendered at w x h as render_interruptible does.
py::array_t<float> render_array(Backend& backend, const NetworkView& net, int32_t w, int32_t h);
/// `net`'s unclamped outputs at (N, 2) coordinates in [0, 1]^2, as an (N, C) float32 array,
/// in bands of k_python_band_pixels with the same stops as a render.
py::array_t<float> predict_array(Backend& backend, const NetworkView& net, const py::object& coords);

} // namespace redraw::python
