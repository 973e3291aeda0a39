#include "python/bindings/py_convert.h"

#include "engine/errors.h"

namespace redraw::python {

std::string path_of(const py::handle& obj, const char* what) {
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  if (py::hasattr(obj, "__fspath__")) {
    py::object p = py::module_::import("os").attr("fspath")(obj);
    if (py::isinstance<py::str>(p)) return p.cast<std::string>();
  }
  throw py::type_error(std::string(what) + ": expected a path (str or os.PathLike), not " +
                       std::string(py::str(obj.get_type().attr("__name__"))));
}

RunConfig config_of(const py::object& preset) {
  if (py::isinstance<py::dict>(preset)) {
    const std::string text = py::module_::import("json").attr("dumps")(preset).cast<std::string>();
    return parse_run_config(nlohmann::json::parse(text), "config dict");
  }
  const std::string name = path_of(preset, "preset");
  const bool file = !py::isinstance<py::str>(preset) ||
                    (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) ||
                    name.find('/') != std::string::npos;
  return file ? load_run_config(name) : load_preset(name);
}

py::object python_of(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

py::dict row_dict(const MetricsRow& r) {
  py::dict d;
  d["step"] = r.step;
  d["loss"] = r.loss;
  d["psnr_db"] = r.psnr_db;
  d["lr"] = r.lr;
  d["seconds"] = r.seconds;
  d["psnr_exact"] = r.psnr_exact;
  return d;
}

py::dict history_arrays(const std::vector<MetricsRow>& rows) {
  const py::ssize_t n = py::ssize_t(rows.size());
  py::array_t<int64_t> step(n);
  py::array_t<double> loss(n), psnr(n), lr(n), seconds(n);
  py::array_t<bool> exact(n);
  for (py::ssize_t i = 0; i < n; ++i) {
    const MetricsRow& r = rows[size_t(i)];
    step.mutable_at(i) = r.step;
    loss.mutable_at(i) = r.loss;
    psnr.mutable_at(i) = r.psnr_db;
    lr.mutable_at(i) = r.lr;
    seconds.mutable_at(i) = r.seconds;
    exact.mutable_at(i) = r.psnr_exact;
  }
  py::dict d;
  d["step"] = step;
  d["loss"] = loss;
  d["psnr_db"] = psnr;
  d["lr"] = lr;
  d["seconds"] = seconds;
  d["psnr_exact"] = exact;
  return d;
}

} // namespace redraw::python
