#include "engine/metric_columns.h"

#include <cstdio>
#include <limits>
#include <sstream>

namespace redraw {

namespace {
constexpr size_t k_line_max = 319; ///< a recovery row's longest line (metrics.csv's bytes since it had one)
} // namespace

static_assert(metric_index("step") == 0, "HIST rows and metrics.csv start with the step");

std::string metric_cell(const MetricColumn& c, const MetricsRow& row) {
  char b[64];
  switch (c.kind) {
  case MetricKind::Integer:
    std::snprintf(b, sizeof b, "%lld", static_cast<long long>(c.get_i64(row)));
    return b;
  case MetricKind::Real:
    std::snprintf(b, sizeof b, c.format, c.get(row));
    return b;
  case MetricKind::Text:
    return c.text(row);
  }
  return {};
}

std::string metrics_csv(const std::vector<MetricsRow>& rows, const std::vector<RecoveryEvent>& events) {
  std::ostringstream s;
  for (const MetricColumn& c : k_metric_columns) s << c.name << ',';
  s << "event\n";
  char b[320];
  size_t next_event = 0;
  const auto flush_events = [&](int64_t before_step) {
    for (; next_event < events.size() && events[next_event].rolled_back_to < before_step; ++next_event) {
      const RecoveryEvent& e = events[next_event];
      MetricsRow at;
      at.step = e.step;
      at.seconds = e.seconds;
      std::string line;
      for (const MetricColumn& c : k_metric_columns) line += (c.in_event_rows ? metric_cell(c, at) : std::string()) + ',';
      std::snprintf(b, sizeof b, "\"diverged (%s); back to step %lld; lr x%g from now on; recovery %d\"\n",
                    e.reason.c_str(), static_cast<long long>(e.rolled_back_to), e.lr_scale, e.attempt);
      line += b;
      if (line.size() > k_line_max) line.resize(k_line_max); // a very long reason is cut, as it always was
      s << line;
    }
  };
  for (const MetricsRow& r : rows) {
    flush_events(r.step);
    for (const MetricColumn& c : k_metric_columns) s << metric_cell(c, r) << ',';
    s << '\n';
  }
  flush_events(std::numeric_limits<int64_t>::max());
  return s.str();
}

} // namespace redraw
