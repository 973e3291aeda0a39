#pragma once
/// Conversions the Python module's classes share: configs from presets, files and dicts; metrics
/// rows and histories as Python objects; paths from str or os.PathLike.
#include "engine/metrics.h"
#include "engine/run_config.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace redraw::python {

namespace py = pybind11;

/// str or os.PathLike as a path string; TypeError naming `what` otherwise, ValueError for a path
/// with an embedded NUL (which the C library would cut there, as Python's open refuses it).
std::string path_of(const py::handle& obj, const char* what);
/// An int argument (a Python int, or any integer with __index__ such as numpy.int64); None gives
/// nullopt. TypeError naming `what` and the expected type otherwise (a bool or a float too).
std::optional<int64_t> int_arg(const py::handle& obj, const char* what);
/// An unsigned 64-bit int argument (a seed); None gives nullopt; TypeError naming `what` for
/// another type, ValueError for a value outside 0..2^64-1.
std::optional<uint64_t> uint_arg(const py::handle& obj, const char* what);
/// A number argument (int, float, or a numpy scalar); None gives nullopt; TypeError naming `what`.
std::optional<double> float_arg(const py::handle& obj, const char* what);
/// A str argument; None gives nullopt; TypeError naming `what`.
std::optional<std::string> str_arg(const py::handle& obj, const char* what);
/// A preset name ("instant"), a JSON config file (a path ending in .json, or os.PathLike), or a dict
/// in the config file's layout; ConfigError (engine) naming the field for a bad key or value.
RunConfig config_of(const py::object& preset);
/// nlohmann JSON as Python objects (dict, list, str, int, float, bool, None), through json.loads.
py::object python_of(const nlohmann::json& j);
/// A metrics row as {"step", "loss", "psnr_db", "lr", "seconds", "psnr_exact"}.
py::dict row_dict(const MetricsRow& r);
/// Rows as a dict of numpy arrays, one per field (step int64, the others float64, psnr_exact bool).
py::dict history_arrays(const std::vector<MetricsRow>& rows);

} // namespace redraw::python
