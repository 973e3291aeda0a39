#pragma once
/// What the Python Trainer and Model share: rendering and predicting with a backend, the GIL
/// released while the engine works.
#include "engine/backend.h"
#include "engine/frames/renderer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>

namespace redraw::python {

namespace py = pybind11;

/// The render size: both given, or neither (then `default_w` x `default_h`); ValueError otherwise.
void render_size(const std::optional<int32_t>& w, const std::optional<int32_t>& h, int32_t default_w,
                 int32_t default_h, int32_t& out_w, int32_t& out_h);
/// `net` rendered at w x h as an (h, w, C) float32 array in [0, 1], over the engine's own buffer.
py::array_t<float> render_array(Backend& backend, const NetworkView& net, int32_t w, int32_t h);
/// `net`'s unclamped outputs at (N, 2) coordinates in [0, 1]^2, as an (N, C) float32 array.
py::array_t<float> predict_array(Backend& backend, const NetworkView& net, const py::object& coords);

} // namespace redraw::python
