#include "engine/sweep/sweep_results.h"

#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/json_read.h"
#include "engine/named_enum.h"
#include "engine/sweep/result_columns.h"

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

/// result.json's figure of column `c` when it is in the column's range (NaN: not measured, when
/// nan_ok; +inf, when inf_ok); ConfigError naming `source` and the field otherwise.
double result_field(const json& j, const ResultColumn& c, const std::string& source) {
  const json& v = j.at(c.name);
  double x = std::numeric_limits<double>::quiet_NaN();
  try {
    x = v.is_string() && v.get<std::string>() == "inf" ? INFINITY : number_of(v);
  } catch (const ConfigError&) {
    throw ConfigError(source + ": " + c.name + ": " + json_excerpt(v) + " is not a number");
  }
  const bool ok = std::isnan(x) ? c.nan_ok : std::isinf(x) ? c.inf_ok && x > 0 : x >= c.lo && x <= c.hi;
  if (!ok) throw ConfigError(source + ": " + c.name + ": " + json_excerpt(v) + " is outside " + c.range);
  return x;
}

/// result.json's count of column `c`, a whole number in [0, c.hi].
int64_t result_count(const json& j, const ResultColumn& c, const std::string& source) {
  const json& v = j.at(c.name);
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0) ||
      (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) ||
      double(v.get<int64_t>()) > c.hi)
    throw ConfigError(source + ": " + c.name + ": " + json_excerpt(v) + " is not a whole number " +
                      (c.hi >= 0x1p63 ? std::string("of at least 0") : "in [0, " + formatted(c.hi, "%.0f") + "]"));
  return v.get<int64_t>();
}
} // namespace

const char* cell_status_name(CellStatus s) { return name_of(s, k_statuses); }
CellStatus parse_cell_status(const std::string& name) { return lookup_name("Cell status", name, k_statuses); }

std::string cell_result_json(const SweepCell& cell, const CellResult& r) {
  json j = {{"cell", cell.name}, {"index", cell.index}, {"status", cell_status_name(r.status)}};
  for (const ResultColumn& c : result_columns()) {
    if (c.kind == ResultKind::Text)
      j[c.name] = r.*c.text;
    else if (c.kind == ResultKind::Count)
      j[c.name] = c.get_count(r);
    else
      j[c.name] = json_number(c.get(r));
  }
  return j.dump(1) + "\n";
}

CellResult parse_cell_result(const std::string& text, const std::string& source) {
  const json j = try_parse_json(text, source);
  if (!j.is_object()) throw ConfigError(source + ": not a cell result (JSON object)");
  CellResult r;
  try {
    // Every figure in its range, so a file changed by hand or damaged never reaches a table.
    r.status = parse_cell_status(j.at("status").get<std::string>());
    for (const ResultColumn& c : result_columns()) {
      if (c.optional && !j.contains(c.name)) continue; // written before the column was
      if (c.kind == ResultKind::Text)
        r.*c.text = j.at(c.name).get<std::string>();
      else if (c.kind == ResultKind::Count)
        c.set_count(r, result_count(j, c, source));
      else
        c.set(r, result_field(j, c, source));
    }
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
  h.push_back("seed");
  h.push_back("status");
  for (const ResultColumn& c : result_columns())
    h.push_back(c.name);
  return h;
}
} // namespace

std::string results_csv(const SweepPlan& plan, const std::vector<CellResult>& results) {
  std::string out = csv_row(results_header(plan));
  for (size_t i = 0; i < plan.cells.size() && i < results.size(); ++i) {
    const SweepCell& c = plan.cells[i];
    const CellResult& r = results[i];
    std::vector<std::string> f = {c.name, c.image, c.preset};
    for (const std::string& v : c.values)
      f.push_back(sweep_value_label(v));
    f.push_back(std::to_string(c.seed));
    f.push_back(cell_status_name(r.status));
    for (const ResultColumn& col : result_columns())
      f.push_back(result_cell_text(col, r));
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
    for (const ResultColumn& c : result_columns())
      set_result_from_text(c, r, f[c.name]); // a column absent from an older file reads as ""
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

const Spread& ConfigurationSummary::spread(std::string_view name) const {
  const auto columns = summarized_result_columns();
  for (size_t k = 0; k < columns.size() && k < spreads.size(); ++k)
    if (name == columns[k]->name) return spreads[k];
  throw std::out_of_range("no summarized result column '" + std::string(name) + "'");
}

std::vector<ConfigurationSummary> summarize(const SweepPlan& plan, const std::vector<CellResult>& results) {
  const auto columns = summarized_result_columns();
  std::vector<ConfigurationSummary> rows;
  std::map<std::string, size_t> at;
  std::vector<std::vector<std::vector<double>>> values; // [row][summarized column][done cell]
  for (size_t i = 0; i < plan.cells.size() && i < results.size(); ++i) {
    const SweepCell& c = plan.cells[i];
    const std::string key = c.configuration(plan.grid.axes);
    auto [it, added] = at.emplace(key, rows.size());
    if (added) {
      rows.push_back({.configuration = key, .preset = c.preset, .values = c.values});
      values.emplace_back(columns.size());
    }
    ConfigurationSummary& row = rows[it->second];
    row.cells.push_back(c.index);
    const CellResult& r = results[i];
    if (r.status == CellStatus::Failed) ++row.failed;
    if (r.status != CellStatus::Done) continue;
    ++row.done;
    for (size_t k = 0; k < columns.size(); ++k)
      if (const double v = columns[k]->get(r); !std::isnan(v)) values[it->second][k].push_back(v);
  }
  for (size_t i = 0; i < rows.size(); ++i)
    for (const auto& v : values[i])
      rows[i].spreads.push_back(spread_of(v));
  return rows;
}

std::string summary_csv(const SweepPlan& plan, const std::vector<ConfigurationSummary>& rows) {
  const auto columns = summarized_result_columns();
  std::vector<std::string> h = {"preset"};
  for (const SweepAxis& a : plan.grid.axes)
    h.push_back(a.key);
  for (const char* c : {"cells", "done", "failed"})
    h.push_back(c);
  for (const ResultColumn* m : columns)
    for (const char* s : {"mean", "stddev", "min", "max"})
      h.push_back(std::string(m->name) + "_" + s);
  std::string out = csv_row(h);
  for (const ConfigurationSummary& r : rows) {
    std::vector<std::string> f = {r.preset};
    for (const std::string& v : r.values)
      f.push_back(sweep_value_label(v));
    f.push_back(std::to_string(r.cells.size()));
    f.push_back(std::to_string(r.done));
    f.push_back(std::to_string(r.failed));
    for (size_t k = 0; k < columns.size() && k < r.spreads.size(); ++k)
      for (const double v : {r.spreads[k].mean, r.spreads[k].stddev, r.spreads[k].min, r.spreads[k].max})
        f.push_back(formatted(v, columns[k]->format));
    out += csv_row(f);
  }
  return out;
}

} // namespace redraw
