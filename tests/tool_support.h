#pragma once
/// Helpers shared by the tests and the benchmarks (bench/, which include it as
/// "tests/tool_support.h"): command-line options, comma-separated lists, synthetic pictures and a
/// stopwatch. Only the engine's headers: no doctest, no build-tree paths.
#include "engine/errors.h"
#include "engine/image.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace redraw::test {

/// Seconds of wall-clock time since `t0` (steady clock).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The non-empty items of a comma-separated list.
inline std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// One option's value as a T (std::sto* rules: a number that does not parse throws, and so does
/// an integer that T cannot hold).
template <class T> T parse_value(const std::string& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    return T(std::stod(v));
  } else {
    const long long n = std::stoll(v);
    if (n < std::numeric_limits<T>::min() || n > std::numeric_limits<T>::max())
      throw ConfigError("'" + v + "' is out of range");
    return T(n);
  }
}

/// A table of command-line options: each name with what it does, then parse(argc, argv).
/// A missing value or an unknown argument throws ConfigError.
class ArgTable {
public:
  using Take = std::function<void(const std::string&)>;

  /// An option that takes the next argument as its value.
  ArgTable& option(const std::string& name, Take take) {
    m_rows.push_back({name, true, std::move(take)});
    return *this;
  }
  /// An option without a value.
  ArgTable& flag(const std::string& name, std::function<void()> act) {
    m_rows.push_back({name, false, [act = std::move(act)](const std::string&) { act(); }});
    return *this;
  }
  /// `--name V` stores V (a string or a number) in `out`.
  template <class T> ArgTable& value(const std::string& name, T& out) {
    return option(name, [&out](const std::string& v) { out = parse_value<T>(v); });
  }
  /// `--name a,b,c` replaces `out` with the list's items.
  template <class T> ArgTable& list(const std::string& name, std::vector<T>& out) {
    return option(name, [&out](const std::string& v) {
      out.clear();
      for (const auto& item : split_list(v)) out.push_back(parse_value<T>(item));
    });
  }
  /// `--name` sets `out`.
  ArgTable& set(const std::string& name, bool& out) {
    return flag(name, [&out] { out = true; });
  }

  /// Applies argv[1..] in order. `unknown_note` follows the unknown-argument message.
  void parse(int argc, char** argv, const std::string& unknown_note = "") const {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const Row* row = find(a);
      if (!row) throw ConfigError("unknown argument '" + a + "'" + unknown_note);
      if (row->takes_value && i + 1 >= argc) throw ConfigError(a + ": needs a value");
      row->take(row->takes_value ? std::string(argv[++i]) : std::string());
    }
  }

private:
  struct Row {
    std::string name;
    bool takes_value;
    Take take;
  };
  const Row* find(const std::string& name) const {
    for (const Row& r : m_rows)
      if (r.name == name) return &r;
    return nullptr;
  }
  std::vector<Row> m_rows;
};

/// The options the training benchmarks share: the presets to run, the CUDA precision, a JSON
/// report and the training time limit per preset. Each benchmark derives its Options from it, sets
/// its own defaults and adds its other options to table().
struct BenchOptions {
  std::vector<std::string> presets;
  std::string precision;
  std::string json_file;
  double time_limit = 0;

  ArgTable table() {
    return ArgTable()
        .list("--presets", presets)
        .value("--precision", precision)
        .value("--json", json_file)
        .value("--time-limit", time_limit);
  }
};

/// A w x h picture whose sample (x, y, c) is `value(x, y, c)`.
template <class F> Image image_of(int32_t w, int32_t h, int32_t channels, F&& value) {
  Image img;
  img.width = w;
  img.height = h;
  img.channels = channels;
  img.pixels.resize(size_t(w) * size_t(h) * size_t(channels));
  for (int32_t y = 0; y < h; ++y)
    for (int32_t x = 0; x < w; ++x)
      for (int32_t c = 0; c < channels; ++c) img.at(x, y, c) = float(value(x, y, c));
  return img;
}

/// A smooth test image: a diagonal gradient with a bump.
inline Image gradient_image(int32_t w, int32_t h, int32_t channels) {
  return image_of(w, h, channels,
                  [&](int32_t x, int32_t y, int32_t c) { return 0.5 + 0.4 * std::sin(3.0 * x / w + 2.0 * y / h + c); });
}

/// A busier deterministic pattern for timing (the time does not depend on the picture).
inline Image busy_pattern(int32_t w, int32_t h, int32_t channels) {
  return image_of(w, h, channels, [&](int32_t x, int32_t y, int32_t c) {
    return 0.5 + 0.45 * std::sin(17.0 * x / w + 11.0 * y / h + c) * std::cos(5.0 * x * y / (w * h));
  });
}

} // namespace redraw::test
