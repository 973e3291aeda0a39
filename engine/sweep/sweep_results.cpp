#include "engine/sweep/sweep_results.h"

#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/named_enum.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace redraw {
using nlohmann::json;

namespace {
const NameTable<CellStatus> k_statuses = {{"pending", CellStatus::Pending},
                                          {"unfinished", CellStatus::Unfinished},
                                          {"done", CellStatus::Done},
                                          {"failed", CellStatus::Failed}};

/// A number for a table: "" for NaN (not measured), "inf" for +infinity (an exact fit).
std::string formatted(double v, const char* format) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

double parse_number(const std::string& s) {
  if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) throw ConfigError("results.csv: '" + s + "' is not a number");
  return v;
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string row;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) row += ',';
    row += csv_field(fields[i]);
  }
  return row + "\n";
}

json json_number(double v) { return std::isfinite(v) ? json(v) : json(formatted(v, "%g")); }
double number_of(const json& v) { return v.is_number() ? v.get<double>() : parse_number(v.get<std::string>()); }

/// result.json's `key` when it is in [lo, hi] (NaN: not measured, when `nan_ok`; +inf, when
/// `inf_ok`); ConfigError naming `source` and the field otherwise. `range` is [lo, hi] in words.
double result_field(const json& j, const char* key, double lo, double hi, const char* range, bool nan_ok, bool inf_ok,
                    const std::string& source) {
  const json& v = j.at(key);
  double x = std::numeric_limits<double>::quiet_NaN();
  try {
    x = v.is_string() && v.get<std::string>() == "inf" ? INFINITY : number_of(v);
  } catch (const ConfigError&) {
    throw ConfigError(source + ": " + key + ": " + json_excerpt(v) + " is not a number");
  }
  const bool ok = std::isnan(x) ? nan_ok : std::isinf(x) ? inf_ok && x > 0 : x >= lo && x <= hi;
  if (!ok) throw ConfigError(source + ": " + key + ": " + json_excerpt(v) + " is outside " + range);
  return x;
}

/// result.json's `key`, a whole number in [0, INT64_MAX].
int64_t result_count(const json& j, const char* key, const std::string& source) {
  const json& v = j.at(key);
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0) ||
      (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())))
    throw ConfigError(source + ": " + key + ": " + json_excerpt(v) + " is not a whole number of at least 0");
  return v.get<int64_t>();
}
} // namespace

const char* cell_status_name(CellStatus s) { return name_of(s, k_statuses); }
CellStatus parse_cell_status(const std::string& name) { return lookup_name("Cell status", name, k_statuses); }

std::string cell_result_json(const SweepCell& cell, const CellResult& r) {
  const json j = {{"cell", cell.name},
                  {"index", cell.index},
                  {"status", cell_status_name(r.status)},
                  {"steps", r.steps},
                  {"seconds", r.seconds},
                  {"psnr_db", json_number(r.psnr_db)},
                  {"ssim", json_number(r.ssim)},
                  {"parameters", r.parameters},
                  {"model_bytes", r.model_bytes},
                  {"backend", r.backend},
                  {"threads", r.threads},
                  {"wall_seconds", r.wall_seconds},
                  {"peak_host_bytes", r.peak_host_bytes},
                  {"peak_device_bytes", r.peak_device_bytes},
                  {"error", r.error}};
  return j.dump(1) + "\n";
}

CellResult parse_cell_result(const std::string& text, const std::string& source) {
  const json j = try_parse_json(text, source);
  if (!j.is_object()) throw ConfigError(source + ": not a cell result (JSON object)");
  CellResult r;
  try {
    // Every figure in its range, so a file changed by hand or damaged never reaches a table.
    r.status = parse_cell_status(j.at("status").get<std::string>());
    r.steps = result_count(j, "steps", source);
    r.seconds = result_field(j, "seconds", 0, k_max_result_seconds, "[0, 1e9] s", false, false, source);
    r.psnr_db = result_field(j, "psnr_db", 0, k_max_result_psnr_db, "[0, 1000] dB", true, true, source);
    r.ssim = result_field(j, "ssim", -1, 1, "[-1, 1]", true, false, source);
    r.parameters = result_count(j, "parameters", source);
    r.model_bytes = result_count(j, "model_bytes", source);
    r.backend = j.at("backend").get<std::string>();
    r.threads = j.at("threads").get<int32_t>();
    if (r.threads < 0) throw ConfigError(source + ": threads: " + std::to_string(r.threads) + " is below 0");
    r.wall_seconds = result_field(j, "wall_seconds", 0, k_max_result_seconds, "[0, 1e9] s", false, false, source);
    r.error = j.at("error").get<std::string>();
    // absent in sweeps written before them
    r.peak_host_bytes = j.contains("peak_host_bytes") ? result_count(j, "peak_host_bytes", source) : 0;
    r.peak_device_bytes = j.contains("peak_device_bytes") ? result_count(j, "peak_device_bytes", source) : 0;
  } catch (const json::exception& e) {
    throw ConfigError(source + ": " + e.what());
  }
  return r;
}

namespace {
std::vector<std::string> results_header(const SweepPlan& plan) {
  std::vector<std::string> h = {"cell", "image", "preset"};
  for (const SweepAxis& a : plan.grid.axes)
    h.push_back(a.key);
  for (const char* c : {"seed", "status", "steps", "seconds", "psnr_db", "ssim", "parameters", "model_bytes", "backend",
                        "threads", "wall_seconds", "error"})
    h.push_back(c);
  return h;
}
} // namespace

std::string results_csv(const SweepPlan& plan, const std::vector<CellResult>& results) {
  std::string out = csv_row(results_header(plan));
  for (size_t i = 0; i < plan.cells.size() && i < results.size(); ++i) {
    const SweepCell& c = plan.cells[i];
    const CellResult& r = results[i];
    const bool ran = r.status == CellStatus::Done; // a failed or stopped cell's steps are not its result
    std::vector<std::string> f = {c.name, c.image, c.preset};
    for (const std::string& v : c.values)
      f.push_back(sweep_value_label(v));
    f.push_back(std::to_string(c.seed));
    f.push_back(cell_status_name(r.status));
    f.push_back(ran ? std::to_string(r.steps) : "");
    f.push_back(ran ? formatted(r.seconds, "%.3f") : "");
    f.push_back(formatted(r.psnr_db, "%.4f"));
    f.push_back(formatted(r.ssim, "%.6f"));
    f.push_back(r.parameters > 0 ? std::to_string(r.parameters) : "");
    f.push_back(r.model_bytes > 0 ? std::to_string(r.model_bytes) : "");
    f.push_back(r.backend);
    f.push_back(r.threads > 0 ? std::to_string(r.threads) : "");
    f.push_back(ran ? formatted(r.wall_seconds, "%.3f") : "");
    f.push_back(r.error);
    out += csv_row(f);
  }
  return out;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += text[++i];
      else if (c == '"')
        quoted = false;
      else
        field += c;
      continue;
    }
    any = true;
    if (c == '"')
      quoted = true;
    else if (c == ',')
      row.push_back(std::exchange(field, {}));
    else if (c == '\n') {
      row.push_back(std::exchange(field, {}));
      rows.push_back(std::exchange(row, {}));
      any = false;
    } else if (c != '\r')
      field += c;
  }
  if (quoted) throw ConfigError("CSV: a quoted field is not closed");
  if (any) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

std::vector<CellResult> parse_results_csv(const std::string& text,
                                          std::vector<std::map<std::string, std::string>>* columns) {
  const auto rows = parse_csv(text);
  if (rows.empty()) throw ConfigError("results.csv: empty");
  const std::vector<std::string>& header = rows.front();
  std::vector<CellResult> out;
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() != header.size())
      throw ConfigError("results.csv: row " + std::to_string(i + 1) + " has " + std::to_string(rows[i].size()) +
                        " fields, the header " + std::to_string(header.size()));
    std::map<std::string, std::string> f;
    for (size_t k = 0; k < header.size(); ++k)
      f[header[k]] = rows[i][k];
    CellResult r;
    r.status = parse_cell_status(f["status"]);
    r.steps = f["steps"].empty() ? 0 : std::stoll(f["steps"]);
    r.seconds = f["seconds"].empty() ? 0 : parse_number(f["seconds"]);
    r.psnr_db = parse_number(f["psnr_db"]);
    r.ssim = parse_number(f["ssim"]);
    r.parameters = f["parameters"].empty() ? 0 : std::stoll(f["parameters"]);
    r.model_bytes = f["model_bytes"].empty() ? 0 : std::stoll(f["model_bytes"]);
    r.backend = f["backend"];
    r.threads = f["threads"].empty() ? 0 : std::stoi(f["threads"]);
    r.wall_seconds = f["wall_seconds"].empty() ? 0 : parse_number(f["wall_seconds"]);
    r.error = f["error"];
    out.push_back(r);
    if (columns) columns->push_back(std::move(f));
  }
  return out;
}

Spread spread_of(const std::vector<double>& values) {
  Spread s;
  s.count = int64_t(values.size());
  if (values.empty()) return s;
  double sum = 0;
  for (const double v : values)
    sum += v;
  s.mean = sum / double(values.size());
  double sq = 0;
  for (const double v : values)
    sq += (v - s.mean) * (v - s.mean);
  s.stddev = values.size() > 1 && std::isfinite(s.mean) ? std::sqrt(sq / double(values.size() - 1)) : 0.0;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

std::vector<ConfigurationSummary> summarize(const SweepPlan& plan, const std::vector<CellResult>& results) {
  std::vector<ConfigurationSummary> rows;
  std::map<std::string, size_t> at;
  std::vector<std::vector<double>> psnr, ssim, seconds;
  for (size_t i = 0; i < plan.cells.size() && i < results.size(); ++i) {
    const SweepCell& c = plan.cells[i];
    const std::string key = c.configuration(plan.grid.axes);
    auto [it, added] = at.emplace(key, rows.size());
    if (added) {
      rows.push_back({key, c.preset, c.values, {}, 0, 0, {}, {}, {}});
      psnr.emplace_back();
      ssim.emplace_back();
      seconds.emplace_back();
    }
    ConfigurationSummary& row = rows[it->second];
    row.cells.push_back(c.index);
    const CellResult& r = results[i];
    if (r.status == CellStatus::Failed) ++row.failed;
    if (r.status != CellStatus::Done) continue;
    ++row.done;
    if (!std::isnan(r.psnr_db)) psnr[it->second].push_back(r.psnr_db);
    if (!std::isnan(r.ssim)) ssim[it->second].push_back(r.ssim);
    seconds[it->second].push_back(r.seconds);
  }
  for (size_t k = 0; k < rows.size(); ++k) {
    rows[k].psnr_db = spread_of(psnr[k]);
    rows[k].ssim = spread_of(ssim[k]);
    rows[k].seconds = spread_of(seconds[k]);
  }
  return rows;
}

std::string summary_csv(const SweepPlan& plan, const std::vector<ConfigurationSummary>& rows) {
  std::vector<std::string> h = {"preset"};
  for (const SweepAxis& a : plan.grid.axes)
    h.push_back(a.key);
  for (const char* c : {"cells", "done", "failed"})
    h.push_back(c);
  for (const char* m : {"psnr_db", "ssim", "seconds"})
    for (const char* s : {"mean", "stddev", "min", "max"})
      h.push_back(std::string(m) + "_" + s);
  std::string out = csv_row(h);
  for (const ConfigurationSummary& r : rows) {
    std::vector<std::string> f = {r.preset};
    for (const std::string& v : r.values)
      f.push_back(sweep_value_label(v));
    f.push_back(std::to_string(r.cells.size()));
    f.push_back(std::to_string(r.done));
    f.push_back(std::to_string(r.failed));
    for (const auto& [s, format] :
         {std::pair{&r.psnr_db, "%.4f"}, std::pair{&r.ssim, "%.6f"}, std::pair{&r.seconds, "%.3f"}})
      for (const double v : {s->mean, s->stddev, s->min, s->max})
        f.push_back(formatted(v, format));
    out += csv_row(f);
  }
  return out;
}

} // namespace redraw
