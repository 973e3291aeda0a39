#include "python/bindings/py_arrays.h"

#include <cmath>
#include <string>

namespace redraw::python {

py::array_t<float> array_from_image(Image&& img) {
  const std::vector<py::ssize_t> shape = {img.height, img.width, img.channels};
  return array_from_vector(std::move(img.pixels), shape);
}

namespace {
/// Objects that speak DLPack but not the buffer protocol (a torch tensor) are read through numpy.
py::object as_numpy(const py::object& obj) {
  if (py::isinstance<py::array>(obj)) return obj;
  if (py::hasattr(obj, "__dlpack__") && !py::hasattr(obj, "__array_interface__")) {
    auto np = py::module_::import("numpy");
    if (py::hasattr(np, "from_dlpack")) return np.attr("from_dlpack")(obj);
  }
  return obj;
}
} // namespace

py::array_t<float, py::array::c_style> float_array(const py::object& obj, const char* what) {
  py::object arr = as_numpy(obj);
  try {
    return py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(arr).cast<
        py::array_t<float, py::array::c_style>>();
  } catch (const py::error_already_set&) {
  }
  throw py::type_error(std::string(what) + ": expected an array of numbers, not " +
                       std::string(py::str(obj.get_type().attr("__name__"))));
}

Image image_from_array(const py::object& obj, const char* what) {
  py::array arr = py::array::ensure(as_numpy(obj));
  if (!arr) throw py::type_error(std::string(what) + ": not an array");
  if (arr.ndim() != 2 && arr.ndim() != 3)
    throw py::value_error(std::string(what) + ": shape must be (H, W) or (H, W, C), not " + std::to_string(arr.ndim()) +
                          "-dimensional");
  const py::ssize_t h = arr.shape(0), w = arr.shape(1), c = arr.ndim() == 3 ? arr.shape(2) : 1;
  if (c < 1 || c > 4)
    throw py::value_error(std::string(what) + ": " + std::to_string(c) + " channels; 1 to 4 are read (grey, grey and "
                          "alpha, RGB, RGBA)");
  // The decoders' limits, before the copy below (a broadcast view can be far larger than its memory).
  const std::string size = std::to_string(w) + "x" + std::to_string(h);
  if (w < 1 || h < 1) throw py::value_error(std::string(what) + ": the array holds no pixels (" + size + ")");
  if (w > k_max_image_side || h > k_max_image_side || int64_t(w) * int64_t(h) > k_max_image_pixels)
    throw py::value_error(std::string(what) + ": " + size + " is larger than an image Redraw reads (" +
                          std::to_string(k_max_image_side) + " per side, " + std::to_string(k_max_image_pixels >> 20) +
                          " Mpixel in all)");
  double scale = 1.0;
  const char kind = arr.dtype().kind();
  if (kind == 'u' && arr.itemsize() == 1) scale = 1.0 / 255.0;
  else if (kind == 'u' && arr.itemsize() == 2) scale = 1.0 / 65535.0;
  else if (kind != 'f') throw py::type_error(std::string(what) + ": dtype must be float, uint8 or uint16");
  auto values = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(arr);
  Image img;
  img.width = int32_t(w);
  img.height = int32_t(h);
  img.channels = int32_t(c);
  img.pixels.resize(size_t(w) * size_t(h) * size_t(c));
  const float* src = values.data();
  for (size_t i = 0; i < img.pixels.size(); ++i) {
    const float v = float(src[i] * scale);
    if (!(v >= 0.0f && v <= 1.0f))
      throw py::value_error(std::string(what) + ": value " + std::to_string(src[i]) + " at flat index " +
                            std::to_string(i) + " is outside [0, 1]");
    img.pixels[i] = v;
  }
  return img;
}

std::vector<float> network_coordinates(const py::object& coords) {
  auto arr = float_array(coords, "predict: coords");
  if (arr.ndim() != 2 || arr.shape(1) != 2)
    throw py::value_error("predict: coords: shape must be (N, 2), x and y in [0, 1]");
  const size_t n = size_t(arr.shape(0)) * 2;
  std::vector<float> out(n);
  const float* src = arr.data();
  for (size_t i = 0; i < n; ++i) {
    if (!(src[i] >= 0.0f && src[i] <= 1.0f))
      throw py::value_error("predict: coords: value " + std::to_string(src[i]) + " at row " + std::to_string(i / 2) +
                            " is outside [0, 1]");
    // The renderer's mapping (window_coordinates): u in [0, 1] -> 2 u - 1, in double, then float.
    out[i] = float(2.0 * double(src[i]) - 1.0);
  }
  return out;
}

} // namespace redraw::python
