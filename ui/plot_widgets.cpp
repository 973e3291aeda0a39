#include "ui/plot_widgets.h"

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
} // namespace

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

  auto ty = [&](double v) { return opts.log_y ? std::log10(v) : v; };
  auto usable = [&](float v) { return std::isfinite(v) && (!opts.log_y || v > 0); };
  Range xr, yr;
  for (const auto& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (usable(s.y[i])) {
        xr.add(s.x[i]);
        yr.add(ty(s.y[i]));
      }
  if (std::isfinite(opts.y_min)) yr.lo = ty(opts.y_min);
  if (std::isfinite(opts.y_max)) yr.hi = ty(opts.y_max);
  if (!xr.valid() || !yr.valid() || a1.x - a0.x < 10 || a1.y - a0.y < 10) {
    dl->AddText(ImVec2(a0.x + 4, a0.y + 4), IM_COL32(130, 130, 140, 255), "no data yet");
    ImGui::PopID();
    return hovered;
  }
  if (xr.hi - xr.lo < 1e-9) xr.hi = xr.lo + 1;
  if (yr.hi - yr.lo < 1e-9) {
    const double pad = opts.log_y ? 0.5 : std::max(1e-6, std::abs(yr.hi) * 0.05);
    yr.lo -= pad;
    yr.hi += pad;
  } else if (!std::isfinite(opts.y_min) && !std::isfinite(opts.y_max)) {
    const double pad = (yr.hi - yr.lo) * 0.05;
    yr.lo -= pad;
    yr.hi += pad;
  }
  auto sx = [&](double x) { return float(a0.x + (x - xr.lo) / (xr.hi - xr.lo) * (a1.x - a0.x)); };
  auto sy = [&](double y) { return float(a1.y - (y - yr.lo) / (yr.hi - yr.lo) * (a1.y - a0.y)); };

  const ImU32 grid = IM_COL32(60, 63, 70, 255), label = IM_COL32(170, 170, 180, 255);
  char buf[48];
  // y ticks: decades on a log axis (or nice steps in log space when the range is small).
  double ystep =
      opts.log_y ? std::max(1.0, std::round(nice_tick_step(yr.hi - yr.lo, 4))) : nice_tick_step(yr.hi - yr.lo, 4);
  if (opts.log_y && yr.hi - yr.lo < 1.5) ystep = nice_tick_step(yr.hi - yr.lo, 3);
  for (double y = std::ceil(yr.lo / ystep) * ystep; y <= yr.hi + 1e-9; y += ystep) {
    const float py = sy(y);
    dl->AddLine(ImVec2(a0.x, py), ImVec2(a1.x, py), grid);
    // Sub-decade ticks on a log axis need more digits than the decade format gives.
    const char* fmt = opts.log_y && ystep < 1.0 ? "%.2g" : opts.y_format;
    format_number(buf, sizeof buf, fmt, opts.log_y ? std::pow(10.0, y) : y);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddText(ImVec2(a0.x - ts.x - 4, py - ts.y * 0.5f), label, buf);
  }
  const double xstep = std::max(1.0, nice_tick_step(xr.hi - xr.lo, std::max(2, int((a1.x - a0.x) / (font * 6)))));
  for (double x = std::ceil(xr.lo / xstep) * xstep; x <= xr.hi + 1e-9; x += xstep) {
    const float px = sx(x);
    dl->AddLine(ImVec2(px, a0.y), ImVec2(px, a1.y), grid);
    format_number(buf, sizeof buf, "%.0f", x);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddText(ImVec2(std::min(px - ts.x * 0.5f, a1.x - ts.x), a1.y + 2), label, buf);
  }
  const ImVec2 xs = ImGui::CalcTextSize(opts.x_label);
  dl->AddText(ImVec2((a0.x + a1.x - xs.x) * 0.5f, a1.y + font + 2), label, opts.x_label);
  dl->AddRect(a0, a1, IM_COL32(90, 92, 100, 255));

  dl->PushClipRect(a0, a1, true);
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
        ImGui::SetTooltip("%s = %.0f\n%s = %s", opts.x_label, double(s.x[i]), opts.title, val);
      }
    }
  }
  ImGui::PopID();
  return hovered;
}

} // namespace redraw
