// results.csv, summary.csv and report.html of a sweep: one self-contained page (no network:
// inline CSS and script, thumbnails as PNG data URIs, curves as inline SVG).
#include "app/cli_sweep.h"
#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "engine/sweep/result_columns.h"
#include "engine/images/image.h"
#include "engine/images/resample.h"
#include "engine/path_problem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

namespace redraw::cli {

namespace {
constexpr int32_t k_thumbnail_side = 128;
constexpr size_t k_curve_points = 200;
const char* const k_palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                 "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string html(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string base64(const std::vector<uint8_t>& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t n = uint32_t(bytes[i]) << 16 | (i + 1 < bytes.size() ? uint32_t(bytes[i + 1]) << 8 : 0) |
                       (i + 2 < bytes.size() ? uint32_t(bytes[i + 2]) : 0);
    out += k[n >> 18 & 63];
    out += k[n >> 12 & 63];
    out += i + 1 < bytes.size() ? k[n >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? k[n & 63] : '=';
  }
  return out;
}

/// A picture file as a PNG data URI at most k_thumbnail_side on its longer side; "" when it
/// cannot be read.
std::string thumbnail(const std::filesystem::path& file) {
  try {
    const Image im = load_thumbnail(file, k_thumbnail_side);
    return "data:image/png;base64," + base64(encode_png(im, 8));
  } catch (const Error&) {
    return {};
  }
}

/// (seconds, PSNR dB) of a cell's metrics.csv rows, at most k_curve_points of them; none when it
/// cannot be read (missing, not a regular file, over k_max_metrics_bytes).
std::vector<std::pair<double, double>> psnr_curve(const std::filesystem::path& metrics) {
  std::vector<std::pair<double, double>> points;
  std::string text;
  if (!read_user_text(metrics, k_max_metrics_bytes, "a metrics table", "256 MiB", text).empty()) return {};
  try {
    for (const auto& row : parse_csv(text)) { // step,loss,psnr_db,psnr_from,lr,seconds,event
      if (row.size() < 7 || row[0] == "step" || !row[6].empty() || row[2].empty()) continue;
      const double psnr = std::stod(row[2]), seconds = std::stod(row[5]);
      if (std::isfinite(psnr) && std::isfinite(seconds)) points.emplace_back(seconds, psnr);
    }
  } catch (const std::exception&) {
    return {};
  }
  if (points.size() <= k_curve_points) return points;
  std::vector<std::pair<double, double>> kept;
  for (size_t i = 0; i < k_curve_points; ++i)
    kept.push_back(points[i * (points.size() - 1) / (k_curve_points - 1)]);
  return kept;
}

std::string fixed(double v, int digits) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

/// A cell of a sortable table: its text, and the value it sorts by.
std::string td(const std::string& text, double sort_value) {
  const std::string v = std::isnan(sort_value)   ? ""
                        : std::isinf(sort_value) ? (sort_value > 0 ? "Infinity" : "-Infinity")
                                                 : fixed(sort_value, 6);
  return "<td data-v=\"" + v + "\">" + html(text) + "</td>";
}
std::string td(const std::string& text) { return "<td>" + html(text) + "</td>"; }

const char* const k_style = R"(<style>
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:#555;margin:2px 0}
table{border-collapse:collapse;background:#fff;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:middle}
th{background:#f0f0f0;cursor:pointer;user-select:none;white-space:nowrap}
th.asc::after{content:" \25B2"}th.desc::after{content:" \25BC"}
td.num,th.num{text-align:right}
td.name{font-size:12px;white-space:nowrap}
img.thumb{image-rendering:pixelated;max-width:128px;max-height:128px;display:block}
.done{color:#176317}.failed{color:#b00020;font-weight:600}.pending,.unfinished{color:#8a6d00}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart{background:#fff;border:1px solid #ddd;padding:6px}
.chart h3{font-size:13px;margin:0 0 4px;font-weight:600}
.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:14px;height:3px;vertical-align:middle;margin-right:4px}
.err{max-width:420px;color:#b00020;font-size:12px}
</style>)";

const char* const k_script = R"(<script>
"use strict";
function sortTable(table, col, ascending) {
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var key = function (row) {
    var cell = row.cells[col];
    var v = cell.getAttribute("data-v");
    return v === null ? cell.textContent : v;
  };
  var numeric = rows.every(function (r) { var k = key(r); return k === "" || !isNaN(parseFloat(k)); });
  rows.sort(function (a, b) {
    var x = key(a), y = key(b);
    if (numeric) {
      x = x === "" ? -Infinity : parseFloat(x);
      y = y === "" ? -Infinity : parseFloat(y);
      return ascending ? (x < y ? -1 : x > y ? 1 : 0) : (x > y ? -1 : x < y ? 1 : 0);
    }
    return ascending ? x.localeCompare(y) : y.localeCompare(x);
  });
  rows.forEach(function (r) { body.appendChild(r); });
  var heads = table.tHead.rows[0].cells;
  for (var i = 0; i < heads.length; i++) heads[i].className = heads[i].className.replace(/ ?(asc|desc)/g, "");
  heads[col].className += ascending ? " asc" : " desc";
}
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener("click", function () { sortTable(table, col, !/ asc/.test(th.className)); });
  });
});
(function () { // report.html#sort=psnr_db:desc opens sorted
  var m = /sort=([\w.]+)(:desc)?/.exec(location.hash);
  if (!m) return;
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      if (th.getAttribute("data-key") === m[1]) sortTable(table, col, !m[2]);
    });
  });
})();
</script>)";

std::string axes_text(const SweepPlan& plan) {
  const SweepGrid& g = plan.grid;
  std::string s = std::to_string(plan.cells.size()) + " cells: " + std::to_string(g.images.size()) + " image(s) x " +
                  std::to_string(g.presets.size()) + " preset(s)";
  for (const SweepAxis& a : g.axes)
    s += " x " + std::to_string(a.values.size()) + " " + a.key;
  s += " x " + std::to_string(g.seeds) + " seed(s); ";
  s += g.time_limit > 0 ? fixed(g.time_limit, 1) + " s of training per cell"
       : g.steps > 0    ? std::to_string(g.steps) + " steps per cell"
                        : "each preset's steps";
  return s;
}

std::string summary_section(const std::vector<ConfigurationSummary>& rows) {
  const auto columns = summarized_result_columns();
  std::string s = "<h2>Configurations</h2>\n<table class=\"sortable\" id=\"summary\"><thead><tr>";
  s += "<th data-key=\"configuration\">configuration</th><th class=\"num\">cells</th><th class=\"num\">done</th>"
       "<th class=\"num\">failed</th>";
  for (const ResultColumn* c : columns) // the mean is the column's sort key (report.html#sort=psnr_db:desc)
    s += std::string("<th class=\"num\" data-key=\"") + c->name + "\">" + c->title + " mean</th><th class=\"num\">" +
         c->title + " stddev</th><th class=\"num\">" + c->title + " min..max</th>";
  s += "</tr></thead><tbody>\n";
  for (const ConfigurationSummary& r : rows) {
    s += "<tr>" + td(r.configuration) + td(std::to_string(r.cells.size()), double(r.cells.size())) +
         td(std::to_string(r.done), double(r.done)) + td(std::to_string(r.failed), double(r.failed));
    for (size_t k = 0; k < columns.size() && k < r.spreads.size(); ++k) {
      const Spread& v = r.spreads[k];
      const int digits = columns[k]->report_digits;
      const std::string range = v.count ? fixed(v.min, digits) + ".." + fixed(v.max, digits) : "";
      s += td(fixed(v.mean, digits), v.mean) + td(fixed(v.stddev, digits), v.stddev) + td(range, v.min);
    }
    s += "</tr>\n";
  }
  return s + "</tbody></table>\n";
}

/// A round step (1, 2 or 5 times a power of ten) that splits `span` into at most `parts` parts.
double nice_step(double span, int parts) {
  const double raw = std::max(span, 1e-9) / parts, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

/// Every cell's PSNR curve and the axes all charts share, so charts compare at a glance.
struct Curves {
  std::vector<std::vector<std::pair<double, double>>> cells;
  std::vector<ReportReference> references;
  double x_max = 0, x_step = 1, y_min = INFINITY, y_max = -INFINITY, y_step = 1;
};

Curves read_curves(const SweepSite& site) {
  Curves c;
  for (const SweepCell& cell : site.plan->cells) {
    c.cells.push_back(psnr_curve(cell_folder(site.dir, cell) / "metrics.csv"));
    for (const auto& [x, y] : c.cells.back()) {
      c.x_max = std::max(c.x_max, x);
      c.y_min = std::min(c.y_min, y);
      c.y_max = std::max(c.y_max, y);
    }
  }
  for (const ReportReference& r : site.references)
    if (std::isfinite(r.psnr_db)) {
      c.references.push_back(r);
      c.y_min = std::min(c.y_min, r.psnr_db);
      c.y_max = std::max(c.y_max, r.psnr_db);
    }
  if (!(c.y_min < c.y_max)) {
    c.y_min = std::isfinite(c.y_min) ? c.y_min - 1 : 0;
    c.y_max = c.y_min + 2;
  }
  c.x_step = nice_step(c.x_max, 5);
  c.x_max = std::max(1.0, std::ceil(c.x_max / c.x_step)) * c.x_step;
  c.y_step = nice_step(c.y_max - c.y_min, 5);
  c.y_min = std::floor(c.y_min / c.y_step) * c.y_step;
  c.y_max = std::ceil(c.y_max / c.y_step) * c.y_step;
  return c;
}

/// One configuration's chart: a line per cell, coloured by image.
std::string curve_svg(const ConfigurationSummary& conf, const Curves& c, const SweepPlan& plan,
                      const std::map<std::string, size_t>& image_colour) {
  constexpr double w = 360, h = 210, left = 44, right = 10, top = 10, bottom = 30;
  const auto px = [&](double x) { return left + x / c.x_max * (w - left - right); };
  const auto py = [&](double y) { return top + (c.y_max - y) / (c.y_max - c.y_min) * (h - top - bottom); };
  char b[256];
  std::string s =
      "<div class=\"chart\"><h3>" + html(conf.configuration) +
      "</h3><svg width=\"360\" height=\"210\" "
      "viewBox=\"0 0 360 210\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"10\" font-family=\"sans-serif\">";
  for (double y = c.y_min; y <= c.y_max + c.y_step / 2; y += c.y_step) { // grid lines and labels
    std::snprintf(b, sizeof b,
                  "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>",
                  left, w - right, py(y), py(y), left - 4, py(y) + 3, y);
    s += b;
  }
  for (double x = 0; x <= c.x_max + c.x_step / 2; x += c.x_step) {
    std::snprintf(b, sizeof b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>", px(x), h - bottom + 13,
                  x);
    s += b;
  }
  std::snprintf(b, sizeof b,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">seconds</text>"
                "<text x=\"10\" y=\"%.1f\" transform=\"rotate(-90 10 %.1f)\" text-anchor=\"middle\">PSNR dB</text>"
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#999\"/>",
                (left + w - right) / 2, h - 3, (top + h - bottom) / 2, (top + h - bottom) / 2, left, top,
                w - left - right, h - top - bottom);
  s += b;
  for (const ReportReference& r : c.references) {
    std::snprintf(b, sizeof b,
                  "<g class=\"reference\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" "
                  "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">",
                  left, w - right, py(r.psnr_db), py(r.psnr_db), w - right - 2, py(r.psnr_db) - 2);
    s += b + html(r.label) + "</text><title>" + html(r.label) + "</title></g>";
  }
  for (const int64_t k : conf.cells) {
    const auto& points = c.cells[size_t(k)];
    if (points.empty()) continue;
    const SweepCell& cell = plan.cells[size_t(k)];
    s += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" +
         std::string(k_palette[image_colour.at(cell.image) % std::size(k_palette)]) + "\" points=\"";
    for (const auto& [x, y] : points) {
      std::snprintf(b, sizeof b, "%.1f,%.1f ", px(x), py(y));
      s += b;
    }
    s += "\"><title>" + html(cell.name) + "</title></polyline>";
  }
  return s + "</svg></div>\n";
}

std::string curves_section(const SweepSite& site, const std::vector<ConfigurationSummary>& rows) {
  const Curves curves = read_curves(site);
  std::map<std::string, size_t> colour;
  std::string s = "<h2>PSNR against training time</h2>\n<p class=\"legend\">";
  for (const std::string& image : site.plan->grid.images) {
    colour[image] = colour.size();
    s += "<span><i style=\"background:" + std::string(k_palette[colour[image] % std::size(k_palette)]) + "\"></i>" +
         html(std::filesystem::path(image).filename().string()) + "</span>";
  }
  s += "</p>\n<div class=\"charts\">\n";
  for (const ConfigurationSummary& r : rows)
    s += curve_svg(r, curves, *site.plan, colour);
  return s + "</div>\n";
}

/// A result column's cell of the Cells table: its figure with the column's decimals, sorted by value;
/// a done_only figure only for a cell that ran (done or failed), a zero_empty count of 0 empty.
std::string report_cell(const ResultColumn& c, const CellResult& r, bool ran) {
  if (c.kind == ResultKind::Text) return td(r.*c.text);
  if (c.done_only && !ran) return td("", NAN);
  const double v = c.get(r);
  if (c.kind == ResultKind::Count)
    return c.zero_empty && v == 0 ? td("", NAN) : td(std::to_string(c.get_count(r)), v);
  return td(fixed(v, c.report_digits), v);
}

std::string results_section(const SweepSite& site, const std::vector<CellResult>& results) {
  const SweepPlan& plan = *site.plan;
  std::string s = "<h2>Cells</h2>\n<table class=\"sortable\" id=\"results\"><thead><tr><th>picture</th>"
                  "<th data-key=\"cell\">cell</th><th data-key=\"image\">image</th><th data-key=\"preset\">preset</th>";
  for (const SweepAxis& a : plan.grid.axes)
    s += "<th data-key=\"" + html(a.key) + "\">" + html(a.key) + "</th>";
  for (const char* c : {"seed", "status"})
    s += std::string("<th data-key=\"") + c + "\">" + c + "</th>";
  for (const ResultColumn& c : result_columns())
    if (c.report_digits >= 0) s += std::string("<th data-key=\"") + c.name + "\">" + c.name + "</th>";
  s += "<th>error</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < plan.cells.size(); ++i) {
    const SweepCell& cell = plan.cells[i];
    const CellResult& r = results[i];
    const std::string thumb = thumbnail(cell_folder(site.dir, cell) / "final.png");
    s += "<tr><td>" +
         (thumb.empty() ? std::string()
                        : "<img class=\"thumb\" alt=\"" + html(cell.name) + "\" src=\"" + thumb + "\">") +
         "</td>";
    s += "<td class=\"name\">" + html(cell.name) + "</td>" + td(std::filesystem::path(cell.image).filename().string()) +
         td(cell.preset);
    for (const std::string& v : cell.values) {
      const std::string label = sweep_value_label(v);
      char* end = nullptr;
      const double n = std::strtod(label.c_str(), &end);
      s += end && *end == '\0' && !label.empty() ? td(label, n) : td(label);
    }
    const bool ran = r.status == CellStatus::Done || r.status == CellStatus::Failed;
    s += td(std::to_string(cell.seed), double(cell.seed));
    s += std::string("<td class=\"") + cell_status_name(r.status) + "\">" + cell_status_name(r.status) + "</td>";
    for (const ResultColumn& c : result_columns())
      s += c.report_digits >= 0 ? report_cell(c, r, ran) : "";
    s += "<td class=\"err\">" + html(r.error) + "</td></tr>\n";
  }
  return s + "</tbody></table>\n";
}
} // namespace

std::string sweep_report_html(const SweepSite& site, const std::vector<CellResult>& results) {
  const auto rows = summarize(*site.plan, results);
  int64_t done = 0, failed = 0;
  for (const CellResult& r : results) {
    done += r.status == CellStatus::Done;
    failed += r.status == CellStatus::Failed;
  }
  char when[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", std::localtime(&now));
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html(site.title) +
                  ": " + html(site.dir.filename().string()) + "</title>\n" + k_style + "</head><body>\n";
  s += "<h1>" + html(site.title) + ": " + html(site.dir.filename().string()) + "</h1>\n";
  s += "<p class=\"meta\">" + html(axes_text(*site.plan)) + "</p>\n";
  s += "<p class=\"meta\">" + std::to_string(done) + " done, " + std::to_string(failed) + " failed, " +
       std::to_string(int64_t(results.size()) - done - failed) + " not ended; written " + when +
       ". Click a column's header to sort by it.</p>\n";
  s += summary_section(rows) + curves_section(site, rows) + results_section(site, results);
  return s + k_script + "\n</body></html>\n";
}

void write_results_csv(const SweepSite& site) {
  const std::vector<CellResult> results = read_sweep_results(site.dir, *site.plan);
  write_text_atomic(site.dir / "results.csv", results_csv(*site.plan, results));
}

std::vector<CellResult> collect_sweep(const SweepSite& site) {
  const std::vector<CellResult> results = read_sweep_results(site.dir, *site.plan);
  const std::string csv = results_csv(*site.plan, results);
  const std::string summary = summary_csv(*site.plan, summarize(*site.plan, results));
  const std::string page = sweep_report_html(site, results);
  AtomicFileWriter a(site.dir / "results.csv"), b(site.dir / "summary.csv"), c(site.dir / "report.html");
  a.write(csv.data(), csv.size());
  b.write(summary.data(), summary.size());
  c.write(page.data(), page.size());
  AtomicFileWriter* set[] = {&b, &c, &a};
  commit_together(set);
  return results;
}

} // namespace redraw::cli
