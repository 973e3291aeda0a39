#pragma once
/// Conversions the Python module's classes share: configs from presets, files and dicts; metrics
/// rows and histories as Python objects; paths from str or os.PathLike.
#include "engine/metrics.h"
#include "engine/run_config.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace redraw::python {

namespace py = pybind11;

/// str or os.PathLike as a path string; TypeError naming `what` otherwise.
std::string path_of(const py::handle& obj, const char* what);
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
