#include "python/bindings/py_convert.h"

#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/metric_columns.h"

#include <cmath>

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

namespace {
/// ConfigError naming the place in a config dict that JSON cannot hold: a float that is NaN or
/// infinite, or lists and dicts nested deeper than a config file may be (checked before
/// json.dumps, which would write NaN as a bare word or run out of Python's recursion).
void check_config_value(const py::handle& v, const std::string& path, int depth) {
  if (depth > k_max_json_depth)
    throw ConfigError("config dict: " + path + ": nested deeper than " + std::to_string(k_max_json_depth) +
                      " levels of lists and dicts");
  if (py::isinstance<py::float_>(v) && !std::isfinite(v.cast<double>()))
    throw ConfigError("config dict: " + path + ": " + std::string(py::repr(v)) + " is not a number a config holds");
  if (py::isinstance<py::dict>(v)) {
    for (const auto& [key, value] : v.cast<py::dict>())
      check_config_value(value, path + (path.empty() ? "" : ".") + std::string(py::str(key)), depth + 1);
  } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    size_t i = 0;
    for (const py::handle item : v)
      check_config_value(item, path + "[" + std::to_string(i++) + "]", depth + 1);
  }
}
} // namespace

RunConfig config_of(const py::object& preset) {
  if (py::isinstance<py::dict>(preset)) {
    check_config_value(preset, "", 0);
    const std::string text = py::module_::import("json").attr("dumps")(preset).cast<std::string>();
    return parse_run_config(parse_json(text, "config dict"), "config dict");
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

// The numeric metric columns by name (engine/metric_columns.h), then psnr_exact (the Text column
// psnr_from as a bool).
py::dict row_dict(const MetricsRow& r) {
  py::dict d;
  for (const MetricColumn& c : k_metric_columns) {
    if (c.kind == MetricKind::Integer) d[c.name] = c.get_i64(r);
    if (c.kind == MetricKind::Real) d[c.name] = c.get(r);
  }
  d["psnr_exact"] = r.psnr_exact;
  return d;
}

py::dict history_arrays(const std::vector<MetricsRow>& rows) {
  const py::ssize_t n = py::ssize_t(rows.size());
  py::dict d;
  for (const MetricColumn& c : k_metric_columns) {
    if (c.kind == MetricKind::Integer) {
      py::array_t<int64_t> a(n);
      for (py::ssize_t i = 0; i < n; ++i) a.mutable_at(i) = c.get_i64(rows[size_t(i)]);
      d[c.name] = a;
    }
    if (c.kind == MetricKind::Real) {
      py::array_t<double> a(n);
      for (py::ssize_t i = 0; i < n; ++i) a.mutable_at(i) = c.get(rows[size_t(i)]);
      d[c.name] = a;
    }
  }
  py::array_t<bool> exact(n);
  for (py::ssize_t i = 0; i < n; ++i) exact.mutable_at(i) = rows[size_t(i)].psnr_exact;
  d["psnr_exact"] = exact;
  return d;
}

} // namespace redraw::python
