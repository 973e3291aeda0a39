#pragma once
/// redraw.load_model and redraw.Model: a saved .redraw model, opened as `redraw render` opens it
/// (open_model, open_network), to render, predict, inspect and export.
#include <pybind11/pybind11.h>

namespace redraw::python {

void bind_model(pybind11::module_& m);

} // namespace redraw::python
