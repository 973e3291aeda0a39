#include "ui/widgets/plot_widgets.h"

#include "ui/widgets/curve_thinning.h"

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
/// The height of one row of a plot's header, in font sizes.
constexpr float k_header_row = 1.15f;

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

namespace {
/// A plot's area on screen and the data ranges it maps (y in log10 on a log axis).
struct PlotArea {
  ImVec2 a0, a1;
  Range xr, yr;
  bool log_y = false;
  double ty(double v) const { return log_y ? std::log10(v) : v; }
  bool usable(float v) const { return std::isfinite(v) && (!log_y || v > 0); }
  float sx(double x) const { return float(a0.x + (x - xr.lo) / (xr.hi - xr.lo) * (a1.x - a0.x)); }
  float sy(double y) const { return float(a1.y - (y - yr.lo) / (yr.hi - yr.lo) * (a1.y - a0.y)); }
};

/// `text` cut to at most `width` pixels, ending "..." when cut.
std::string fit_text(const char* text, float width) {
  std::string s = text;
  if (ImGui::CalcTextSize(s.c_str()).x <= width) return s;
  while (!s.empty() && ImGui::CalcTextSize((s + "...").c_str()).x > width)
    s.pop_back();
  return s + "...";
}

/// The title, and the legend as layout_plot_header places it, a colour swatch before each name.
/// Returns the rows the header takes.
int draw_title_legend(ImDrawList* dl, ImVec2 p0, ImVec2 p1, float font, std::span<const PlotSeries> series,
                      const char* title) {
  dl->AddText(ImVec2(p0.x + font * 0.5f, p0.y + font * 0.2f), IM_COL32(220, 220, 225, 255), title);
  std::vector<const PlotSeries*> named;
  std::vector<float> widths;
  for (const PlotSeries& s : series)
    if (s.label) {
      named.push_back(&s);
      widths.push_back(ImGui::CalcTextSize(s.label).x);
    }
  const PlotHeader h = layout_plot_header(p1.x - p0.x, ImGui::CalcTextSize(title).x, widths, font);
  for (size_t k = 0; k < named.size(); ++k) {
    const LegendPlace& e = h.entries[k];
    const float y = p0.y + font * (0.2f + k_header_row * float(e.row));
    const float x = p0.x + e.x;
    dl->AddRectFilled(ImVec2(x, y + font * 0.35f), ImVec2(x + font * 0.6f, y + font * 0.75f), named[k]->color);
    const std::string label = fit_text(named[k]->label, e.label_w);
    dl->AddText(ImVec2(x + font * 0.9f, y), IM_COL32(200, 200, 210, 255), label.c_str());
  }
  return h.rows;
}

/// The ranges of every usable sample, widened and padded as the axes show them; false when
/// there is nothing to draw.
bool fit_ranges(PlotArea& A, std::span<const PlotSeries> series, const PlotOptions& opts) {
  for (const auto& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (A.usable(s.y[i])) {
        A.xr.add(s.x[i]);
        A.yr.add(A.ty(s.y[i]));
      }
  for (const PlotTrace& t : opts.traces)
    for (size_t i = 0; i < t.y.size(); ++i)
      if (A.usable(t.y[i])) {
        A.xr.add(t.x0 + double(i));
        A.yr.add(A.ty(t.y[i]));
      }
  if (std::isfinite(opts.y_min)) A.yr.lo = A.ty(opts.y_min);
  if (std::isfinite(opts.y_max)) A.yr.hi = A.ty(opts.y_max);
  if (!A.xr.valid() || !A.yr.valid() || A.a1.x - A.a0.x < 10 || A.a1.y - A.a0.y < 10) return false;
  if (A.xr.hi - A.xr.lo < 1e-9) A.xr.hi = A.xr.lo + 1;
  // A run's curves start at step 1: from 0 the axis reads from its origin, and a short run gets
  // a "0" label beside its first tick.
  if (A.xr.lo > 0 && A.xr.lo <= 0.05 * (A.xr.hi - A.xr.lo)) A.xr.lo = 0;
  const bool fixed_range = std::isfinite(opts.y_min) || std::isfinite(opts.y_max);
  if (!fixed_range) {
    widen_to_min_span(A.yr.lo, A.yr.hi, opts.log_y);
    const double pad = (A.yr.hi - A.yr.lo) * 0.05;
    A.yr.lo -= pad;
    A.yr.hi += pad;
  } else if (A.yr.hi - A.yr.lo < 1e-9) {
    widen_to_min_span(A.yr.lo, A.yr.hi, opts.log_y);
  }
  return true;
}

/// Grid lines and labels: y ticks about one per two lines of text, x ticks that fit their labels.
void draw_axes(ImDrawList* dl, const PlotArea& A, float font, const char* x_label) {
  const ImU32 grid = IM_COL32(60, 63, 70, 255), label = IM_COL32(170, 170, 180, 255);
  char buf[48];
  const int y_target = std::clamp(int((A.a1.y - A.a0.y) / (font * 2.2f)), 2, 6);
  for (const AxisTick& t : axis_ticks(A.yr.lo, A.yr.hi, A.log_y, y_target)) {
    const float py = A.sy(t.pos);
    dl->AddLine(ImVec2(A.a0.x, py), ImVec2(A.a1.x, py), grid);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(A.a0.x - ts.x - 4, py - ts.y * 0.5f), label, t.label.c_str());
  }
  format_number(buf, sizeof buf, "%.0f", A.xr.hi);
  const double xstep = step_axis_tick(A.xr.lo, A.xr.hi, A.a1.x - A.a0.x, ImGui::CalcTextSize(buf).x + font * 0.5f,
                                      int((A.a1.x - A.a0.x) / (font * 6)));
  for (double x = std::ceil(A.xr.lo / xstep) * xstep; x <= A.xr.hi + 1e-9; x += xstep) {
    const float px = A.sx(x);
    dl->AddLine(ImVec2(px, A.a0.y), ImVec2(px, A.a1.y), grid);
    format_number(buf, sizeof buf, "%.0f", x);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddText(ImVec2(std::clamp(px - ts.x * 0.5f, A.a0.x, A.a1.x - ts.x), A.a1.y + 2), label, buf);
  }
  const ImVec2 xs = ImGui::CalcTextSize(x_label);
  dl->AddText(ImVec2((A.a0.x + A.a1.x - xs.x) * 0.5f, A.a1.y + font + 2), label, x_label);
  dl->AddRect(A.a0, A.a1, IM_COL32(90, 92, 100, 255));
}

/// A per-step trace: a line through each step when there are fewer steps than pixel columns,
/// else a stroke from each column's smallest to its largest value, reaching to the previous
/// column's range so the shade has no gaps.
void draw_trace(ImDrawList* dl, const PlotArea& A, const PlotTrace& t, bool log_y) {
  const int32_t columns = std::max(1, int32_t(A.a1.x - A.a0.x));
  const double first = std::max(0.0, std::ceil(A.xr.lo - t.x0));
  const double last = std::min(double(t.y.size()) - 1, std::floor(A.xr.hi - t.x0));
  if (last - first + 1 <= double(columns)) {
    ImVec2 prev;
    bool have = false;
    for (double d = first; d <= last; ++d) {
      const float v = t.y[size_t(d)];
      if (!A.usable(v)) {
        have = false;
        continue;
      }
      const ImVec2 p(A.sx(t.x0 + d), A.sy(A.ty(v)));
      if (have) dl->AddLine(prev, p, t.color, 1.0f);
      prev = p;
      have = true;
    }
    return;
  }
  const std::vector<ColumnRange> cols = thin_min_max(t.y, t.x0, A.xr.lo, A.xr.hi, columns, log_y);
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c].empty()) continue;
    float lo = cols[c].lo, hi = cols[c].hi;
    if (c > 0 && !cols[c - 1].empty()) {
      lo = std::min(lo, cols[c - 1].hi);
      hi = std::max(hi, cols[c - 1].lo);
    }
    const float px = A.a0.x + float(c) + 0.5f, y_lo = A.sy(A.ty(lo)), y_hi = A.sy(A.ty(hi));
    dl->AddLine(ImVec2(px, y_lo + 0.5f), ImVec2(px, y_hi - 0.5f), t.color, 1.0f);
  }
}

/// A series as a line (at most two samples a pixel column), with its marked samples as rings.
void draw_series(ImDrawList* dl, const PlotArea& A, const PlotSeries& s) {
  const size_t n = std::min(s.x.size(), s.y.size());
  const size_t stride = std::max<size_t>(1, n / size_t(std::max(1.0f, (A.a1.x - A.a0.x) * 2)));
  ImVec2 prev;
  bool have = false;
  for (size_t i = 0; i < n; i += stride) {
    if (!A.usable(s.y[i])) {
      have = false;
      continue;
    }
    const ImVec2 p(A.sx(s.x[i]), A.sy(A.ty(s.y[i])));
    if (have) dl->AddLine(prev, p, s.color, 1.5f);
    prev = p;
    have = true;
  }
  if (n == 1 && have) dl->AddCircleFilled(prev, 2.5f, s.color);
  if (s.draw_marks)
    for (size_t i = 0; i < n && i < s.marked.size(); ++i)
      if (s.marked[i] && A.usable(s.y[i])) {
        const ImVec2 p(A.sx(s.x[i]), A.sy(A.ty(s.y[i])));
        dl->AddCircleFilled(p, 3.0f, IM_COL32(255, 255, 255, 230));
        dl->AddCircle(p, 3.0f, s.color);
      }
}

/// The x pixel column of an event mark: the column holding the event's x on screen.
float event_column(const PlotArea& A, double x) { return std::floor(A.sx(x)); }

/// Each event inside the x range as a one-pixel column over the area's height; returns how many.
int32_t draw_events(ImDrawList* dl, const PlotArea& A, std::span<const PlotEvent> events) {
  int32_t drawn = 0;
  for (const PlotEvent& e : events) {
    if (!(e.x >= A.xr.lo && e.x <= A.xr.hi)) continue;
    const float px = std::min(event_column(A, e.x), A.a1.x - 1);
    dl->AddRectFilled(ImVec2(px, A.a0.y), ImVec2(px + 1, A.a1.y), e.color); // a filled rect: no blurred edge
    ++drawn;
  }
  return drawn;
}

/// The notes of the events within a few pixels of the pointer's x (at most four, nearest first),
/// one a line; "" when none is that near.
std::string events_under_pointer(const PlotArea& A, std::span<const PlotEvent> events) {
  const float mx = ImGui::GetIO().MousePos.x, reach = std::max(3.0f, ImGui::GetFontSize() * 0.3f);
  std::vector<std::pair<float, const PlotEvent*>> near;
  for (const PlotEvent& e : events)
    if (e.x >= A.xr.lo && e.x <= A.xr.hi && std::abs(event_column(A, e.x) + 0.5f - mx) <= reach)
      near.emplace_back(std::abs(event_column(A, e.x) + 0.5f - mx), &e);
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (size_t i = 0; i < near.size() && i < 4; ++i)
    out += (i ? "\n" : "") + near[i].second->note;
  if (near.size() > 4) out += "\n(" + std::to_string(near.size() - 4) + " more here)";
  return out;
}

/// Hover read-out: the nearest sample of the series under the pointer's x.
void hover_readout(ImDrawList* dl, const PlotArea& A, const PlotSeries& s, const PlotOptions& opts) {
  const std::string events = events_under_pointer(A, opts.events);
  const float mx = ImGui::GetIO().MousePos.x;
  const double x = A.xr.lo + (mx - A.a0.x) / (A.a1.x - A.a0.x) * (A.xr.hi - A.xr.lo);
  const size_t n = std::min(s.x.size(), s.y.size());
  if (n == 0) {
    if (!events.empty()) ImGui::SetTooltip("%s", events.c_str());
    return;
  }
  const auto it = std::lower_bound(s.x.begin(), s.x.begin() + ptrdiff_t(n), float(x));
  size_t i = size_t(std::min<ptrdiff_t>(it - s.x.begin(), ptrdiff_t(n) - 1));
  if (i > 0 && std::abs(s.x[i - 1] - x) < std::abs(s.x[i] - x)) --i;
  if (!A.usable(s.y[i])) {
    if (!events.empty()) ImGui::SetTooltip("%s", events.c_str());
    return;
  }
  dl->AddCircle(ImVec2(A.sx(s.x[i]), A.sy(A.ty(s.y[i]))), 4.0f, IM_COL32(255, 255, 255, 220));
  char val[48];
  format_number(val, sizeof val, "%.4g", s.y[i]);
  const char* note = i < s.marked.size() ? (s.marked[i] ? opts.marked_note : opts.unmarked_note) : nullptr;
  ImGui::SetTooltip("%s = %.*f\n%s = %s%s%s%s%s", opts.x_label, opts.x_decimals, double(s.x[i]), opts.title, val,
                    note ? ", " : "", note ? note : "", events.empty() ? "" : "\n", events.c_str());
}
} // namespace

PlotHeader layout_plot_header(float frame_w, float title_w, std::span<const float> label_w, float font) {
  const float swatch = font * 0.9f; // the swatch and the gap before its label
  const float gap = font * 0.7f;    // between two entries
  const float right = frame_w - font * 0.6f;
  const float row_left = font * 0.5f;
  const float title_end = row_left + title_w + font;
  PlotHeader h;
  h.entries.resize(label_w.size());
  if (label_w.empty()) return h;
  float all = gap * float(label_w.size() - 1);
  for (float w : label_w) all += swatch + w;
  // Entries [first, last) right-aligned on `row`, each label at most `most` wide.
  const auto place = [&](size_t first, size_t last, int row, float most) {
    float x = right;
    for (size_t k = last; k-- > first;) {
      const float w = std::min(label_w[k], most);
      x -= w + swatch;
      h.entries[k] = LegendPlace{x, row, w};
      x -= gap;
    }
  };
  if (right - title_end >= all) {
    place(0, label_w.size(), 0, all);
    return h;
  }
  const float row_w = std::max(right - row_left, swatch);
  const float most = std::max(row_w - swatch, 0.0f);
  size_t first = 0;
  while (first < label_w.size()) {
    size_t last = first + 1;
    float used = swatch + std::min(label_w[first], most);
    while (last < label_w.size() && used + gap + swatch + std::min(label_w[last], most) <= row_w)
      used += gap + swatch + std::min(label_w[last++], most);
    place(first, last, h.rows, most);
    ++h.rows;
    first = last;
  }
  return h;
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
  const int header_rows = draw_title_legend(dl, p0, p1, font, series, opts.title);
  // Plot area inside the margins for the header, the y labels and the x labels.
  PlotArea A;
  A.a0 = ImVec2(p0.x + font * 4.2f, p0.y + font * (1.4f + k_header_row * float(header_rows - 1)));
  A.a1 = ImVec2(p1.x - font * 0.6f, p1.y - font * 2.3f);
  A.log_y = opts.log_y;
  if (!fit_ranges(A, series, opts)) {
    dl->AddText(ImVec2(A.a0.x + 4, A.a0.y + 4), IM_COL32(130, 130, 140, 255), "no data yet");
    ImGui::PopID();
    return hovered;
  }
  draw_axes(dl, A, font, opts.x_label);
  dl->PushClipRect(A.a0, A.a1, true);
  for (const PlotTrace& t : opts.traces) draw_trace(dl, A, t, opts.log_y);
  const int32_t events_drawn = draw_events(dl, A, opts.events);
  if (opts.frame) *opts.frame = PlotFrame{{A.a0.x, A.a0.y, A.a1.x, A.a1.y}, A.xr.lo, A.xr.hi, events_drawn};
  for (const auto& s : series) draw_series(dl, A, s);
  if (std::isfinite(opts.marker_x) && opts.marker_x >= A.xr.lo && opts.marker_x <= A.xr.hi)
    dl->AddLine(ImVec2(A.sx(opts.marker_x), A.a0.y), ImVec2(A.sx(opts.marker_x), A.a1.y), IM_COL32(255, 210, 80, 200),
                1.0f);
  dl->PopClipRect();
  if (hovered && !series.empty()) hover_readout(dl, A, series[0], opts);
  ImGui::PopID();
  return hovered;
}

} // namespace redraw
