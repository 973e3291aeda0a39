#include "engine/bench/bench_table.h"

#include "engine/bench/bench_columns.h"

#include "engine/display_text.h"
#include "engine/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace redraw {

namespace {
using json = nlohmann::json;

double optional_number(const json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || row[key].is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!row[key].is_number() || !(row[key].get<double>() > 0))
    throw ConfigError(where + ": '" + key + "' must be a positive number or null");
  return row[key].get<double>();
}

std::string required_text(const json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || !row[key].is_string() || row[key].get<std::string>().empty())
    throw ConfigError(where + ": '" + key + "' must be a non-empty string");
  return row[key].get<std::string>();
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return std::isinf(v) && v > 0 ? "inf" : "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

/// 300000 -> "300K", 273456 -> "273,456".
std::string count_text(int64_t n) {
  if (n <= 0) return "-";
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string budget_text(int64_t n) {
  if (n <= 0) return "-";
  if (n % 1000 == 0) return std::to_string(n / 1000) + "K";
  return count_text(n);
}

std::string cell_text(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\n' || c == '\r') c = ' ';
  return s;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  double s = 0;
  for (const double x : v)
    s += x;
  return s / double(v.size());
}
} // namespace

std::vector<PublishedRow> parse_published_rows(const json& j, const std::string& source) {
  if (!j.is_object() || j.value("format", "") != "redraw-published" || !j.contains("version") ||
      !j["version"].is_number_integer() || j["version"].get<int>() != 1)
    throw ConfigError(source + ": not a table of published rows (\"format\": \"redraw-published\", \"version\": 1)");
  if (!j.contains("rows") || !j["rows"].is_array()) throw ConfigError(source + ": 'rows' must be a list");
  std::vector<PublishedRow> rows;
  for (size_t i = 0; i < j["rows"].size(); ++i) {
    const json& r = j["rows"][i];
    const std::string where = source + ", rows[" + std::to_string(i) + "]";
    if (!r.is_object()) throw ConfigError(where + ": must be an object");
    PublishedRow p;
    p.method = required_text(r, "method", where);
    p.citation = required_text(r, "citation", where);
    p.hardware = required_text(r, "hardware", where);
    p.checked = required_text(r, "checked", where);
    if (!r.contains("parameters") ||
        (!r["parameters"].is_null() && (!r["parameters"].is_number_integer() || r["parameters"].get<int64_t>() <= 0)))
      throw ConfigError(where + ": 'parameters' must be a positive whole number, or null when the paper gives none");
    p.parameters = r["parameters"].is_null() ? 0 : r["parameters"].get<int64_t>();
    p.psnr_db = optional_number(r, "psnr_db", where);
    p.ms_ssim = optional_number(r, "ms_ssim", where);
    p.train_seconds = optional_number(r, "train_seconds", where);
    p.decode_fps = optional_number(r, "decode_fps", where);
    if (std::isnan(p.psnr_db)) throw ConfigError(where + ": 'psnr_db' is required");
    rows.push_back(std::move(p));
  }
  return rows;
}

std::string bench_table_md(const BenchHeader& h, const std::vector<std::string>& methods,
                           const std::vector<BenchCell>& cells, const std::vector<PublishedRow>& published) {
  std::string s = "# Redraw bench: " + h.protocol + "\n\n";
  s += "- protocol: " + h.protocol + " (" + h.summary + ")\n";
  s += "- images: " + std::to_string(h.image_count) + " from " + h.images_folder + "\n";
  s += "- device: " + h.device + "\n- driver: " + h.driver + "\n";
  s += "- threads: " + std::to_string(h.threads) + "\n- commit: " + h.commit + "\n";
  s += "- seeds: 1.." + std::to_string(h.seeds) + "\n";
  if (!h.note.empty()) s += "- note: " + h.note + "\n";
  s += "\nPSNR is the mean over images of each image's PSNR. *PSNR float* is the float render's (the form "
       "the published rows use: GaussianImage's train.py, 10 log10(1/MSE) on float renders); *PSNR 8-bit* is "
       "the saved PNG's, which ImageMagick's `compare -metric PSNR` gives. MS-SSIM is the 5-scale form "
       "(pytorch_msssim, data range 1) on the 8-bit PNG. Published rows are the papers' figures on their "
       "hardware, never averaged with ours.\n\n";
  s += "| method | source | budget | parameters | PSNR float dB | PSNR 8-bit dB | MS-SSIM | train s | decode FPS | "
       "model bytes | peak host MiB | peak device MiB | images |\n";
  s += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const std::string& m : methods) {
    std::vector<double> psnr, psnr8, msssim, secs, fps, bytes;
    int64_t pmin = 0, pmax = 0, budget = 0, peak_host = 0, peak_dev = 0, total = 0;
    for (const BenchCell& c : cells) {
      if (c.method != m) continue;
      ++total;
      budget = c.budget;
      if (c.result.status != CellStatus::Done) continue;
      const CellResult& r = c.result;
      psnr.push_back(r.psnr_db);
      if (!std::isnan(c.measured.psnr8_db)) psnr8.push_back(c.measured.psnr8_db);
      if (!std::isnan(c.measured.ms_ssim)) msssim.push_back(c.measured.ms_ssim);
      secs.push_back(r.seconds);
      if (!std::isnan(c.measured.decode_fps)) fps.push_back(c.measured.decode_fps);
      bytes.push_back(double(r.model_bytes));
      pmin = pmin ? std::min(pmin, r.parameters) : r.parameters;
      pmax = std::max(pmax, r.parameters);
      peak_host = std::max(peak_host, r.peak_host_bytes);
      peak_dev = std::max(peak_dev, c.measured.peak_device_bytes);
    }
    const std::string params = pmin == pmax ? count_text(pmax) : count_text(pmin) + ".." + count_text(pmax);
    s += "| " + cell_text(m) + " | Redraw (this run) | " + budget_text(budget) + " | " + params + " | " +
         fixed(mean_of(psnr), 2) + " | " + fixed(mean_of(psnr8), 2) + " | " + fixed(mean_of(msssim), 4) + " | " +
         fixed(mean_of(secs), 1) + " | " + fixed(mean_of(fps), mean_of(fps) < 10 ? 2 : 1) + " | " +
         fixed(mean_of(bytes), 0) + " | " + (peak_host ? fixed(double(peak_host) / 1048576.0, 0) : "-") + " | " +
         (peak_dev ? fixed(double(peak_dev) / 1048576.0, 0) : "-") + " | " + std::to_string(psnr.size()) + "/" +
         std::to_string(total) + " |\n";
  }
  for (const PublishedRow& p : published)
    s += "| " + cell_text(p.method) + " | published: " + cell_text(p.citation) + "; " + cell_text(p.hardware) + " | " +
         budget_text(p.parameters) + " | " + count_text(p.parameters) + " | " + fixed(p.psnr_db, 2) + " | - | " +
         fixed(p.ms_ssim, 4) + " | " + fixed(p.train_seconds, 0) + " | " + fixed(p.decode_fps, 0) +
         " | - | - | - | 24 |\n";
  return s;
}

std::string bench_results_csv(const std::vector<BenchCell>& cells) {
  std::string s;
  for (const BenchColumn& col : bench_columns())
    if (col.in_csv) s += (s.empty() ? "" : ",") + std::string(col.name);
  s += "\n";
  for (const BenchCell& c : cells) {
    bool first = true;
    for (const BenchColumn& col : bench_columns())
      if (col.in_csv) s += (std::exchange(first, false) ? "" : ",") + bench_cell_text(col, c);
    s += "\n";
  }
  return s;
}

} // namespace redraw
