#include "engine/model_files/curves_chunk.h"

#include "engine/errors.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>

namespace redraw {

namespace {
template <class T> void put(std::vector<uint8_t>& out, const T& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

class BodyReader {
public:
  BodyReader(const uint8_t* p, size_t n, const std::string& name, const char* tag = "CURV")
      : m_p(p), m_n(n), m_name(name), m_tag(tag) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw CheckpointError(m_name + ": chunk " + m_tag + ": " + what);
  }
  template <class T> T get() {
    if (m_n - m_off < sizeof(T)) fail("unexpected end of data");
    T v;
    std::memcpy(&v, m_p + m_off, sizeof(T));
    m_off += sizeof(T);
    return v;
  }
  void skip(uint64_t n) {
    if (n > m_n - m_off) fail("unexpected end of data");
    m_off += size_t(n);
  }
  const uint8_t* here() const { return m_p + m_off; }
  uint64_t count(size_t item_bytes, const char* what) {
    const uint64_t c = get<uint64_t>();
    if (c > (m_n - m_off) / item_bytes) fail(std::string(what) + " count " + std::to_string(c) + " runs past the end");
    return c;
  }

private:
  const uint8_t* m_p;
  size_t m_n, m_off = 0;
  const std::string& m_name;
  const char* m_tag;
};
} // namespace

std::vector<uint8_t> encode_curves_chunk(const std::vector<MetricsRow>& history, const LossTrace& trace) {
  std::vector<uint8_t> out;
  const auto exact = std::count_if(history.begin(), history.end(), [](const MetricsRow& r) { return r.psnr_exact; });
  put<uint64_t>(out, uint64_t(exact));
  for (const MetricsRow& r : history)
    if (r.psnr_exact) put<int64_t>(out, r.step);
  put<int64_t>(out, trace.first_count);
  put<uint64_t>(out, trace.loss.size());
  for (const float v : trace.loss) put<float>(out, v);
  return out;
}

void decode_curves_chunk(const uint8_t* body, size_t size, const std::string& name, std::vector<MetricsRow>& history,
                         LossTrace& trace) {
  BodyReader r(body, size, name);
  const uint64_t exact = r.count(8, "exact row");
  // Sorted, then looked up row by row: a million rows and steps cost a sort, not their product.
  std::vector<int64_t> steps(static_cast<size_t>(exact));
  for (int64_t& step : steps) step = r.get<int64_t>();
  std::sort(steps.begin(), steps.end());
  for (MetricsRow& row : history)
    if (std::binary_search(steps.begin(), steps.end(), row.step)) row.psnr_exact = true;
  trace.first_count = r.get<int64_t>();
  if (trace.first_count < 1) r.fail("loss trace starts at step count " + std::to_string(trace.first_count));
  const uint64_t n = r.count(4, "loss");
  trace.loss.resize(size_t(n));
  for (float& v : trace.loss) v = r.get<float>();
}

void clear_extra_metric_columns(std::vector<MetricsRow>& history) {
  for (const MetricColumn& c : k_metric_columns)
    if (c.coding == MetricCoding::Extra)
      for (MetricsRow& row : history) c.set(row, std::numeric_limits<double>::quiet_NaN());
}

std::vector<uint8_t> encode_metric_columns_chunk(const std::vector<MetricsRow>& history) {
  std::vector<uint8_t> out;
  if (metric_extra_count() == 0) return out;
  put<uint64_t>(out, metric_extra_count());
  for (const MetricColumn& c : k_metric_columns) {
    if (c.coding != MetricCoding::Extra) continue;
    const std::string_view name = c.name;
    put<uint16_t>(out, uint16_t(name.size()));
    out.insert(out.end(), name.begin(), name.end());
    for (const MetricsRow& r : history) put<double>(out, c.get(r));
  }
  return out;
}

void decode_metric_columns_chunk(const uint8_t* body, size_t size, const std::string& name,
                                 std::vector<MetricsRow>& history) {
  clear_extra_metric_columns(history);
  BodyReader r(body, size, name, "MCOL");
  const uint64_t columns = r.count(2, "column");
  for (uint64_t k = 0; k < columns; ++k) {
    const uint16_t length = r.get<uint16_t>();
    const uint8_t* start = r.here();
    r.skip(length);
    const std::string_view column(reinterpret_cast<const char*>(start), length);
    const size_t i = metric_index(column);
    const bool known = i < k_metric_column_count && k_metric_columns[i].coding == MetricCoding::Extra;
    if (!known) {
      r.skip(uint64_t(history.size()) * 8); // a newer writer's column
      continue;
    }
    for (MetricsRow& row : history) k_metric_columns[i].set(row, r.get<double>());
  }
}

} // namespace redraw
