#include "python/bindings/py_convert.h"

#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/metric_columns.h"

#include <cmath>

namespace redraw::python {

namespace {
std::string type_name(const py::handle& obj) { return py::str(obj.get_type().attr("__name__")); }

std::string checked_path(std::string path, const char* what) {
  if (path.find('\0') != std::string::npos) throw py::value_error(std::string(what) + ": embedded null byte");
  return path;
}
} // namespace

std::string path_of(const py::handle& obj, const char* what) {
  if (py::isinstance<py::str>(obj)) return checked_path(obj.cast<std::string>(), what);
  if (py::hasattr(obj, "__fspath__")) {
    py::object p = py::module_::import("os").attr("fspath")(obj);
    if (py::isinstance<py::str>(p)) return checked_path(p.cast<std::string>(), what);
  }
  throw py::type_error(std::string(what) + ": expected a path (str or os.PathLike), not " + type_name(obj));
}

std::optional<int64_t> int_arg(const py::handle& obj, const char* what) {
  if (obj.is_none()) return std::nullopt;
  if (!PyBool_Check(obj.ptr()) && PyIndex_Check(obj.ptr())) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
    if (!i) throw py::error_already_set();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0) throw py::value_error(std::string(what) + ": " + std::string(py::str(obj)) + " is too large");
    return int64_t(v);
  }
  throw py::type_error(std::string(what) + ": expected an int, not " + type_name(obj));
}

std::optional<uint64_t> uint_arg(const py::handle& obj, const char* what) {
  if (obj.is_none()) return std::nullopt;
  if (PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr()))
    throw py::type_error(std::string(what) + ": expected an int, not " + type_name(obj));
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!i) throw py::error_already_set();
  const unsigned long long v = PyLong_AsUnsignedLongLong(i.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(std::string(what) + ": " + std::string(py::str(obj)) + " is outside 0..2^64-1");
  }
  return uint64_t(v);
}

std::optional<double> float_arg(const py::handle& obj, const char* what) {
  if (obj.is_none()) return std::nullopt;
  if (!PyBool_Check(obj.ptr()) && !PyUnicode_Check(obj.ptr()) && !PyBytes_Check(obj.ptr()) &&
      (PyFloat_Check(obj.ptr()) || PyIndex_Check(obj.ptr()) || py::hasattr(obj, "__float__"))) {
    const double v = PyFloat_AsDouble(obj.ptr());
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return v;
  }
  throw py::type_error(std::string(what) + ": expected a number, not " + type_name(obj));
}

std::optional<std::string> str_arg(const py::handle& obj, const char* what) {
  if (obj.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  throw py::type_error(std::string(what) + ": expected a str, not " + type_name(obj));
}

namespace {
/// A config dict's value as plain Python (dicts, lists, str, int, float, bool, None) for json.dumps:
/// numpy scalars become their Python values (np.float32(1e-3) -> 0.001..., np.int64(3) -> 3) and
/// numpy arrays lists. ConfigError naming the place of what JSON cannot hold: a float that is NaN
/// or infinite, or lists and dicts nested deeper than a config file may be (checked here, before
/// json.dumps would write NaN as a bare word or run out of Python's recursion).
py::object plain_config_value(const py::handle& v, const std::string& path, int depth, const py::handle& numpy) {
  if (depth > k_max_json_depth)
    throw ConfigError("config dict: " + path + ": nested deeper than " + std::to_string(k_max_json_depth) +
                      " levels of lists and dicts");
  if (py::isinstance(v, numpy.attr("ndarray"))) return plain_config_value(v.attr("tolist")(), path, depth, numpy);
  if (py::isinstance(v, numpy.attr("generic"))) return plain_config_value(v.attr("item")(), path, depth, numpy);
  if (py::isinstance<py::float_>(v) && !std::isfinite(v.cast<double>()))
    throw ConfigError("config dict: " + path + ": " + std::string(py::repr(v)) + " is not a number a config holds");
  if (py::isinstance<py::dict>(v)) {
    py::dict out;
    for (const auto& [key, value] : v.cast<py::dict>())
      out[key] =
          plain_config_value(value, path + (path.empty() ? "" : ".") + std::string(py::str(key)), depth + 1, numpy);
    return out;
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    py::list out;
    size_t i = 0;
    for (const py::handle item : v)
      out.append(plain_config_value(item, path + "[" + std::to_string(i++) + "]", depth + 1, numpy));
    return out;
  }
  return py::reinterpret_borrow<py::object>(v);
}
} // namespace

RunConfig config_of(const py::object& preset) {
  if (py::isinstance<py::dict>(preset)) {
    const py::object plain = plain_config_value(preset, "", 0, py::module_::import("numpy"));
    const std::string text = py::module_::import("json").attr("dumps")(plain).cast<std::string>();
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
