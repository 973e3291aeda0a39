/// The Python module `redraw` (docs/python.md): load_image, Trainer, load_model and the engine's
/// errors as Python exceptions carrying the engine's message.
#include "app/backend_registry.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/run_config.h"
#include "python/bindings/py_arrays.h"
#include "python/bindings/py_convert.h"
#include "python/bindings/py_interrupt.h"
#include "python/bindings/py_model.h"
#include "python/bindings/py_trainer.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace redraw;
using namespace redraw::python;

namespace {

/// redraw.Error (a RuntimeError) and one subclass per engine error type; a bad argument caught in
/// the module itself is a ValueError or TypeError as usual.
void bind_errors(py::module_& m) {
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<ImageError> image(m, "ImageError", error.ptr());
  static py::exception<ConfigError> config(m, "ConfigError", error.ptr());
  static py::exception<CheckpointError> checkpoint(m, "CheckpointError", error.ptr());
  static py::exception<BackendError> backend(m, "BackendError", error.ptr());
  static py::exception<IoError> io(m, "IoError", error.ptr());
  static py::exception<CancelledError> cancelled(m, "CancelledError", error.ptr());
  static py::exception<DivergedError> diverged(m, "DivergedError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ImageError& e) {
      PyErr_SetString(image.ptr(), e.what());
    } catch (const ConfigError& e) {
      PyErr_SetString(config.ptr(), e.what());
    } catch (const CheckpointError& e) {
      PyErr_SetString(checkpoint.ptr(), e.what());
    } catch (const BackendError& e) {
      PyErr_SetString(backend.ptr(), e.what());
    } catch (const IoError& e) {
      PyErr_SetString(io.ptr(), e.what());
    } catch (const CancelledError& e) {
      PyErr_SetString(cancelled.ptr(), e.what());
    } catch (const DivergedError& e) {
      PyErr_SetString(diverged.ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (const nlohmann::json::exception& e) {
      PyErr_SetString(config.ptr(), (std::string("config: ") + e.what()).c_str());
    }
  });
}

} // namespace

PYBIND11_MODULE(_redraw, m) {
  m.doc() = "Redraw: train a coordinate network on an image, render it at any size (docs/python.md)";
  m.attr("__version__") = REDRAW_VERSION;
  bind_errors(m);
  install_exit_hook(m);
  m.def(
      "load_image",
      [](const py::object& path) {
        const std::string file = path_of(path, "load_image: path");
        Image img;
        ImageInfo info;
        {
          Unlocked unlocked;
          img = load_image(file, DecodeLimits{}, DecodeOptions{}, &info);
        }
        // What the app would say about the file (an orientation applied, a profile converted).
        if (!info.notes.empty() || !info.incomplete.empty()) {
          auto warn = py::module_::import("warnings").attr("warn");
          for (const std::string& n : info.notes) warn(file + ": " + n, py::module_::import("builtins").attr("UserWarning"), 2);
          if (!info.incomplete.empty()) warn(file + ": " + info.incomplete);
        }
        return array_from_image(std::move(img));
      },
      py::arg("path"),
      "Decodes an image as the app does (orientation, colour profile, 16-bit kept): an (H, W, C) float32 "
      "array in [0, 1], C the file's channels (1 grey, 2 grey and alpha, 3 RGB, 4 RGBA). The decoder's notes "
      "are UserWarnings; redraw.ImageError names the file and the problem.");
  m.def("default_image", [] { return default_image_path().string(); }, "The drawing the app opens first.");
  m.def("presets", &preset_names, "The preset names Trainer's preset= takes.");
  m.def(
      "preset_config",
      [](const py::object& name) {
        if (name.is_none()) throw py::type_error("preset_config: name: expected a str, not NoneType");
        const std::string preset = *str_arg(name, "preset_config: name");
        if (preset.find('\0') != std::string::npos) throw py::value_error("preset_config: name: embedded null byte");
        return python_of(to_json(load_preset(preset)));
      },
      py::arg("name"),
      "A preset's config as a dict (to edit and pass to Trainer's preset=).");
  m.def("describe_backends", &describe_backends, "The compiled-in backends and the devices found, as text.");
  bind_trainer(m);
  bind_model(m);
}
