#include "python/bindings/py_model.h"

#include "app/backend_registry.h"
#include "engine/errors.h"
#include "engine/model_files/model_check.h"
#include "engine/model_files/weights_export.h"
#include "engine/training/open_run.h"
#include "python/bindings/py_arrays.h"
#include "python/bindings/py_convert.h"
#include "python/bindings/py_interrupt.h"
#include "python/bindings/py_network.h"

#include <pybind11/stl.h>

namespace redraw::python {

namespace {

class PyModel {
public:
  /// `model` is open_model(path)'s, read by load_model (refused there, naming the file and the field).
  PyModel(const std::string& path, Checkpoint&& model, const std::string& backend, const std::string& precision)
      : m_path(path), m_model(std::move(model)) {
    Unlocked unlocked;
    m_net = open_network(m_model, backend_factory(), backend, precision);
  }

  /// The weights of frame `snapshot` (None: the final ones); ValueError for a bad index or a
  /// picture-only frame.
  std::vector<float> frame_params(const std::optional<int64_t>& snapshot) const {
    if (!snapshot) return m_model.params;
    const int64_t n = int64_t(m_model.snapshots.size());
    const int64_t i = *snapshot < 0 ? n + *snapshot : *snapshot;
    if (i < 0 || i >= n)
      throw py::index_error("snapshot: " + std::to_string(*snapshot) + " is out of range (" + m_path + " has " +
                            std::to_string(n) + " frames)");
    const Snapshot& s = m_model.snapshots[size_t(i)];
    if (!has_weights(s))
      throw py::value_error("snapshot: frame " + std::to_string(i) + " of " + m_path +
                            " is a picture only (its .frames entry has the picture)");
    return frame_weights(s);
  }

  py::array_t<float> render(const py::object& w, const py::object& h, const py::object& snapshot_index) {
    int32_t rw = 0, rh = 0;
    render_size(w, h, m_model.image_width, m_model.image_height, rw, rh);
    const std::optional<int64_t> snapshot = int_arg(snapshot_index, "render: snapshot");
    if (!snapshot) return render_array(*m_net.backend, m_net.view(m_model.params), rw, rh);
    const std::vector<float> params = frame_params(snapshot);
    return render_array(*m_net.backend, m_net.view(params), rw, rh);
  }

  py::array_t<float> predict(const py::object& coords) {
    return predict_array(*m_net.backend, m_net.view(m_model.params), coords);
  }

  py::list frames() const {
    py::list out;
    for (const Snapshot& s : m_model.snapshots) {
      py::dict d = row_dict(s.metrics);
      d["kind"] = has_weights(s) ? (s.params.empty() ? "keyframe (fp16 weights)" : "keyframe") : "picture";
      const FramePicture& p = s.picture;
      if (p.width > 0 && p.height > 0) {
        std::vector<uint8_t> pixels = p.pixels;
        d["picture"] = array_from_vector(std::move(pixels), {p.height, p.width, p.channels});
      } else {
        d["picture"] = py::none();
      }
      out.append(d);
    }
    return out;
  }

  void export_weights(const py::object& path) const {
    const std::string file = path_of(path, "export_weights: path");
    Unlocked unlocked;
    export_weights_safetensors(file, {&m_model.config, m_model.params, m_model.image_width, m_model.image_height,
                                      m_model.step});
  }

  /// The final weights, a read-only view of the model's own memory.
  py::array_t<float> parameters(const py::object& self) const {
    py::array_t<float> a({py::ssize_t(m_model.params.size())}, m_model.params.data(), self);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
  }

  const Checkpoint& model() const { return m_model; }
  const OpenedNetwork& network() const { return m_net; }

private:
  std::string m_path;
  Checkpoint m_model;
  OpenedNetwork m_net;
};

} // namespace

void bind_model(py::module_& m) {
  py::class_<PyModel>(m, "Model", "A saved .redraw model (redraw.load_model)")
      .def("render", &PyModel::render, py::arg("width") = py::none(), py::arg("height") = py::none(),
           py::arg("snapshot") = py::none(),
           "The picture at width x height (default: the training size) as (H, W, C) float32 in [0, 1]; "
           "snapshot: a timelapse frame's weights (index, -1 = last) instead of the final ones.")
      .def("predict", &PyModel::predict, py::arg("coords"),
           "The network's outputs (N, C) float32, unclamped, at (N, 2) coordinates (x, y) in [0, 1]^2.")
      .def("export_weights", &PyModel::export_weights, py::arg("path"),
           "Writes the network's tensors as safetensors (atomically), as `redraw export-weights`.")
      .def_property_readonly("config", [](const PyModel& p) { return python_of(to_json(p.model().config)); })
      .def_property_readonly("history", [](const PyModel& p) { return history_arrays(p.model().history); },
                             "The metrics rows as a dict of numpy arrays (as Trainer.metrics).")
      .def_property_readonly("frames", &PyModel::frames,
                             "The timelapse: a list of dicts (step, loss, psnr_db, lr, seconds, psnr_exact, kind, "
                             "picture: (h, w, C) uint8 or None).")
      .def_property_readonly("step", [](const PyModel& p) { return p.model().step; })
      .def_property_readonly("size", [](const PyModel& p) {
        return py::make_tuple(p.model().image_width, p.model().image_height);
      }, "The training size (width, height).")
      .def_property_readonly("source_image", [](const PyModel& p) { return p.model().source_image; })
      .def_property_readonly("backend", [](const PyModel& p) { return p.network().backend->name(); })
      .def_property_readonly("parameters", [](py::object self) { return self.cast<const PyModel&>().parameters(self); },
                             "The final weights (flat, the layout of docs/model-file.md), read-only, not copied.");
  m.def(
      "load_model",
      [](const py::object& path, const py::object& backend, const py::object& precision) {
        const std::string file = path_of(path, "load_model: path");
        const std::string device = str_arg(backend, "load_model: backend").value_or(k_auto_backend);
        const std::string digits = str_arg(precision, "load_model: precision").value_or("");
        // On a thread of its own, so that Ctrl+C raises at once (the read is dropped when it ends).
        Checkpoint model = run_interruptible<Checkpoint>([file] { return open_model(file); }, "load_model");
        return new PyModel(file, std::move(model), device, digits);
      },
      py::arg("path"), py::arg("backend") = k_auto_backend, py::arg("precision") = "",
      "Opens a .redraw model (redraw.CheckpointError naming the file and the problem when it cannot).");
}

} // namespace redraw::python
