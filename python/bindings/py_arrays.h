#pragma once
/// numpy arrays in and out of the engine, for the Python module (python/bindings).
/// - Out: an engine buffer (a std::vector the engine filled) is moved into a capsule that the
///   array keeps alive: the array's memory is the engine's, never copied (owns_engine_memory).
/// - In: any object with the buffer protocol or __dlpack__ (numpy, torch CPU tensors, ...) is read
///   through numpy; a float32 C-contiguous array is read in place, anything else converted once.
#include "engine/images/image.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

namespace redraw::python {

namespace py = pybind11;

/// An array of `shape` over `values`' memory; the vector is moved into the array's base object.
template <class T> py::array_t<T> array_from_vector(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* owner = new std::vector<T>(std::move(values));
  py::capsule base(owner, "redraw.engine_buffer", [](PyObject* cap) {
    delete static_cast<std::vector<T>*>(PyCapsule_GetPointer(cap, "redraw.engine_buffer"));
  });
  return py::array_t<T>(std::move(shape), owner->data(), base);
}

/// A picture as an (H, W, C) float32 array over its own pixels (moved, not copied).
py::array_t<float> array_from_image(Image&& img);

/// Any array-like (numpy, an object with __dlpack__ or the buffer protocol) as a C-contiguous
/// float32 numpy array; `what` names the argument in errors.
py::array_t<float, py::array::c_style> float_array(const py::object& obj, const char* what);

/// A picture from an (H, W) or (H, W, C) array of C = 1..4 channels: float values in [0, 1]
/// (checked), or uint8 / uint16 samples (scaled by 255 / 65535). ValueError naming `what`.
Image image_from_array(const py::object& obj, const char* what);

/// (N, 2) coordinates in [0, 1]^2 (x right, y down, pixel i of n at (i + 0.5) / n) as the
/// network's [-1, 1]^2 coordinates, row-major. ValueError for another shape or a value outside.
std::vector<float> network_coordinates(const py::object& coords);

} // namespace redraw::python
