#include "ui/plot_widgets.h"

#include "ui/curve_thinning.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>

namespace redraw {

double nice_tick_step(double range, int target_ticks) {
  if (!(range > 0) || target_ticks < 1) return 1;
  const double raw = range / target_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

namespace {
struct Range {
  double lo = DBL_MAX, hi = -DBL_MAX;
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool valid() const { return lo <= hi; }
};

void format_number(char* buf, size_t n, const char* fmt, double v) { std::snprintf(buf, n, fmt, v); }

int exponent_of(double v) { return int(std::floor(std::log10(std::abs(v)) + 1e-9)); }
/// Decimals that resolve a step (1, 2 or 5 times a power of ten) in fixed-point.
int decimals_for(double step) { return std::max(0, -exponent_of(step)); }
bool use_scientific(double max_abs, double finest_step) { return decimals_for(finest_step) > 4 || max_abs >= 1e6; }

/// `v`, a multiple of `step`, with just the digits that tell it from its neighbours.
std::string tick_label(double v, double step, bool scientific) {
  if (std::abs(v) < step * 1e-6) return "0"; // and no "-0.0" from rounding
  char buf[48];
  if (scientific)
    std::snprintf(buf, sizeof buf, "%.*e", std::max(0, exponent_of(v) - exponent_of(step)), v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", decimals_for(step), v);
  return buf;
}

/// Multiples of a nice step within [vlo, vhi] (values); at `pos` = log10(v) when `log_axis`.
std::vector<AxisTick> linear_ticks(double vlo, double vhi, bool log_axis, int target) {
  std::vector<AxisTick> ticks;
  for (int t = std::max(2, target); t <= 64 && ticks.size() < 2; t *= 2) {
    ticks.clear();
    const double step = nice_tick_step(vhi - vlo, t);
    const bool sci = use_scientific(std::max(std::abs(vlo), std::abs(vhi)), step);
    for (double k = std::ceil(vlo / step - 1e-9); k * step <= vhi + step * 1e-9; k += 1) {
      const double v = k * step;
      if (log_axis && !(v > 0)) continue;
      ticks.push_back(AxisTick{log_axis ? std::log10(v) : v, tick_label(v, step, sci)});
    }
  }
  return ticks;
}
} // namespace

double step_axis_tick(double lo, double hi, float axis_px, float min_gap_px, int target) {
  if (!(hi > lo) || !(axis_px > 0)) return 1;
  const double range = hi - lo;
  auto labels = [&](double step) { return std::floor(hi / step + 1e-9) - std::ceil(lo / step - 1e-9) + 1; };
  double step = std::max(1.0, nice_tick_step(range, std::max(2, target)));
  for (int t = std::max(2, target) + 1; t <= 64 && labels(step) < 2; ++t) {
    const double finer = std::max(1.0, nice_tick_step(range, t));
    if (finer >= step) continue;
    if (finer / range * axis_px < min_gap_px) break;
    step = finer;
  }
  return step;
}

void widen_to_min_span(double& lo, double& hi, bool log_axis) {
  const double min_span = log_axis ? std::log10(2.0) : std::max(1e-6, 0.02 * std::max(std::abs(lo), std::abs(hi)));
  if (hi - lo >= min_span) return;
  const double mid = 0.5 * (lo + hi);
  lo = mid - 0.5 * min_span;
  hi = mid + 0.5 * min_span;
}

std::vector<AxisTick> axis_ticks(double lo, double hi, bool log_axis, int target) {
  target = std::max(2, target);
  if (!(hi > lo)) return {};
  if (!log_axis) return linear_ticks(lo, hi, false, target);
  // Decades, when there are enough of them.
  std::vector<AxisTick> ticks;
  const double span = hi - lo;
  const double dstep = std::max(1.0, std::round(nice_tick_step(span, target)));
  char buf[48];
  for (double p = std::ceil(lo / dstep - 1e-9) * dstep; p <= hi + 1e-9; p += dstep) {
    format_number(buf, sizeof buf, "%.0e", std::pow(10.0, p));
    ticks.push_back(AxisTick{p, buf});
  }
  if (ticks.size() >= 3 || (ticks.size() >= 2 && span >= 2)) return ticks;
  // 1, 2 and 5 times each power of ten.
  ticks.clear();
  std::vector<std::pair<double, double>> values; // (value, its power of ten)
  for (int e = int(std::floor(lo)); e <= int(std::ceil(hi)); ++e)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e), p = std::log10(v);
      if (p >= lo - 1e-9 && p <= hi + 1e-9) values.emplace_back(v, std::pow(10.0, e));
    }
  if (values.size() >= 3) {
    const bool sci = use_scientific(values.back().first, values.front().second);
    for (const auto& [v, unit] : values)
      ticks.push_back(AxisTick{std::log10(v), tick_label(v, unit, sci)});
    return ticks;
  }
  // Within a factor of a few: evenly spaced values read best.
  return linear_ticks(std::pow(10.0, lo), std::pow(10.0, hi), true, target);
}

bool draw_line_plot(const char* id, ImVec2 size, std::span<const PlotSeries> series, const PlotOptions& opts) {
  ImGui::PushID(id);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  size.x = std::max(size.x, 80.0f);
  size.y = std::max(size.y, 60.0f);
  ImGui::InvisibleButton("plot", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float font = ImGui::GetFontSize();
  const ImVec2 p1(p0.x + size.x, p0.y + size.y);
  dl->AddRect(p0, p1, IM_COL32(48, 50, 56, 255), 3.0f);

  // Plot area inside the margins for the title, the y labels and the x labels.
  const ImVec2 a0(p0.x + font * 4.2f, p0.y + font * 1.4f);
  const ImVec2 a1(p1.x - font * 0.6f, p1.y - font * 2.3f);
  dl->AddText(ImVec2(p0.x + font * 0.5f, p0.y + font * 0.2f), IM_COL32(220, 220, 225, 255), opts.title);
  // Legend: right to left along the title row, a colour swatch before each name.
  float lx = p1.x - font * 0.6f;
  for (size_t k = series.size(); k-- > 0;) {
    if (!series[k].label) continue;
    lx -= ImGui::CalcTextSize(series[k].label).x;
    dl->AddText(ImVec2(lx, p0.y + font * 0.2f), IM_COL32(200, 200, 210, 255), series[k].label);
    lx -= font * 0.9f;
    dl->AddRectFilled(ImVec2(lx, p0.y + font * 0.55f), ImVec2(lx + font * 0.6f, p0.y + font * 0.95f), series[k].color);
    lx -= font * 0.7f;
  }

  auto ty = [&](double v) { return opts.log_y ? std::log10(v) : v; };
  auto usable = [&](float v) { return std::isfinite(v) && (!opts.log_y || v > 0); };
  Range xr, yr;
  for (const auto& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (usable(s.y[i])) {
        xr.add(s.x[i]);
        yr.add(ty(s.y[i]));
      }
  for (const PlotTrace& t : opts.traces)
    for (size_t i = 0; i < t.y.size(); ++i)
      if (usable(t.y[i])) {
        xr.add(t.x0 + double(i));
        yr.add(ty(t.y[i]));
      }
  if (std::isfinite(opts.y_min)) yr.lo = ty(opts.y_min);
  if (std::isfinite(opts.y_max)) yr.hi = ty(opts.y_max);
  if (!xr.valid() || !yr.valid() || a1.x - a0.x < 10 || a1.y - a0.y < 10) {
    dl->AddText(ImVec2(a0.x + 4, a0.y + 4), IM_COL32(130, 130, 140, 255), "no data yet");
    ImGui::PopID();
    return hovered;
  }
  if (xr.hi - xr.lo < 1e-9) xr.hi = xr.lo + 1;
  // A run's curves start at step 1: from 0 the axis reads from its origin, and a short run gets
  // a "0" label beside its first tick.
  if (xr.lo > 0 && xr.lo <= 0.05 * (xr.hi - xr.lo)) xr.lo = 0;
  const bool fixed_range = std::isfinite(opts.y_min) || std::isfinite(opts.y_max);
  if (!fixed_range) {
    widen_to_min_span(yr.lo, yr.hi, opts.log_y);
    const double pad = (yr.hi - yr.lo) * 0.05;
    yr.lo -= pad;
    yr.hi += pad;
  } else if (yr.hi - yr.lo < 1e-9) {
    widen_to_min_span(yr.lo, yr.hi, opts.log_y);
  }
  auto sx = [&](double x) { return float(a0.x + (x - xr.lo) / (xr.hi - xr.lo) * (a1.x - a0.x)); };
  auto sy = [&](double y) { return float(a1.y - (y - yr.lo) / (yr.hi - yr.lo) * (a1.y - a0.y)); };

  const ImU32 grid = IM_COL32(60, 63, 70, 255), label = IM_COL32(170, 170, 180, 255);
  char buf[48];
  // y ticks: about one per two lines of text, labels that differ from their neighbours.
  const int y_target = std::clamp(int((a1.y - a0.y) / (font * 2.2f)), 2, 6);
  for (const AxisTick& t : axis_ticks(yr.lo, yr.hi, opts.log_y, y_target)) {
    const float py = sy(t.pos);
    dl->AddLine(ImVec2(a0.x, py), ImVec2(a1.x, py), grid);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(a0.x - ts.x - 4, py - ts.y * 0.5f), label, t.label.c_str());
  }
  format_number(buf, sizeof buf, "%.0f", xr.hi);
  const double xstep = step_axis_tick(xr.lo, xr.hi, a1.x - a0.x, ImGui::CalcTextSize(buf).x + font * 0.5f,
                                      int((a1.x - a0.x) / (font * 6)));
  for (double x = std::ceil(xr.lo / xstep) * xstep; x <= xr.hi + 1e-9; x += xstep) {
    const float px = sx(x);
    dl->AddLine(ImVec2(px, a0.y), ImVec2(px, a1.y), grid);
    format_number(buf, sizeof buf, "%.0f", x);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddText(ImVec2(std::clamp(px - ts.x * 0.5f, a0.x, a1.x - ts.x), a1.y + 2), label, buf);
  }
  const ImVec2 xs = ImGui::CalcTextSize(opts.x_label);
  dl->AddText(ImVec2((a0.x + a1.x - xs.x) * 0.5f, a1.y + font + 2), label, opts.x_label);
  dl->AddRect(a0, a1, IM_COL32(90, 92, 100, 255));

  dl->PushClipRect(a0, a1, true);
  const int32_t columns = std::max(1, int32_t(a1.x - a0.x));
  for (const PlotTrace& t : opts.traces) {
    const double first = std::max(0.0, std::ceil(xr.lo - t.x0)), last = std::min(double(t.y.size()) - 1, std::floor(xr.hi - t.x0));
    if (last - first + 1 <= double(columns)) { // fewer steps than pixel columns: a line through each
      ImVec2 prev;
      bool have = false;
      for (double d = first; d <= last; ++d) {
        const float v = t.y[size_t(d)];
        if (!usable(v)) {
          have = false;
          continue;
        }
        const ImVec2 p(sx(t.x0 + d), sy(ty(v)));
        if (have) dl->AddLine(prev, p, t.color, 1.0f);
        prev = p;
        have = true;
      }
      continue;
    }
    // Many steps a column: a stroke from each column's smallest to its largest loss, reaching to
    // the previous column's range so the shade has no gaps.
    const std::vector<ColumnRange> cols = thin_min_max(t.y, t.x0, xr.lo, xr.hi, columns, opts.log_y);
    for (size_t c = 0; c < cols.size(); ++c) {
      if (cols[c].empty()) continue;
      float lo = cols[c].lo, hi = cols[c].hi;
      if (c > 0 && !cols[c - 1].empty()) {
        lo = std::min(lo, cols[c - 1].hi);
        hi = std::max(hi, cols[c - 1].lo);
      }
      const float px = a0.x + float(c) + 0.5f, y_lo = sy(ty(lo)), y_hi = sy(ty(hi));
      dl->AddLine(ImVec2(px, y_lo + 0.5f), ImVec2(px, y_hi - 0.5f), t.color, 1.0f);
    }
  }
  for (const auto& s : series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    const size_t stride = std::max<size_t>(1, n / size_t(std::max(1.0f, (a1.x - a0.x) * 2)));
    ImVec2 prev;
    bool have = false;
    for (size_t i = 0; i < n; i += stride) {
      if (!usable(s.y[i])) {
        have = false;
        continue;
      }
      const ImVec2 p(sx(s.x[i]), sy(ty(s.y[i])));
      if (have) dl->AddLine(prev, p, s.color, 1.5f);
      prev = p;
      have = true;
    }
    if (n == 1 && have) dl->AddCircleFilled(prev, 2.5f, s.color);
    if (s.draw_marks)
      for (size_t i = 0; i < n && i < s.marked.size(); ++i)
        if (s.marked[i] && usable(s.y[i])) {
          const ImVec2 p(sx(s.x[i]), sy(ty(s.y[i])));
          dl->AddCircleFilled(p, 3.0f, IM_COL32(255, 255, 255, 230));
          dl->AddCircle(p, 3.0f, s.color);
        }
  }
  if (std::isfinite(opts.marker_x) && opts.marker_x >= xr.lo && opts.marker_x <= xr.hi)
    dl->AddLine(ImVec2(sx(opts.marker_x), a0.y), ImVec2(sx(opts.marker_x), a1.y), IM_COL32(255, 210, 80, 200), 1.0f);
  dl->PopClipRect();

  // Hover read-out: the nearest sample of the first series.
  if (hovered && !series.empty()) {
    const float mx = ImGui::GetIO().MousePos.x;
    const double x = xr.lo + (mx - a0.x) / (a1.x - a0.x) * (xr.hi - xr.lo);
    const auto& s = series[0];
    const size_t n = std::min(s.x.size(), s.y.size());
    if (n > 0) {
      const auto it = std::lower_bound(s.x.begin(), s.x.begin() + ptrdiff_t(n), float(x));
      size_t i = size_t(std::min<ptrdiff_t>(it - s.x.begin(), ptrdiff_t(n) - 1));
      if (i > 0 && std::abs(s.x[i - 1] - x) < std::abs(s.x[i] - x)) --i;
      if (usable(s.y[i])) {
        dl->AddCircle(ImVec2(sx(s.x[i]), sy(ty(s.y[i]))), 4.0f, IM_COL32(255, 255, 255, 220));
        char val[48];
        format_number(val, sizeof val, "%.4g", s.y[i]);
        const char* note = i < s.marked.size() ? (s.marked[i] ? opts.marked_note : opts.unmarked_note) : nullptr;
        ImGui::SetTooltip("%s = %.*f\n%s = %s%s%s", opts.x_label, opts.x_decimals, double(s.x[i]), opts.title, val,
                          note ? ", " : "", note ? note : "");
      }
    }
  }
  ImGui::PopID();
  return hovered;
}

} // namespace redraw
