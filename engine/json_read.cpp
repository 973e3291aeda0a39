#include "engine/json_read.h"

#include "engine/display_text.h"
#include "engine/errors.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace redraw {
using nlohmann::json;

namespace {
/// Thrown out of the parser's callback at the first level past the limit (the value built so far
/// is at most k_max_json_depth deep, so unwinding it is safe).
struct TooDeep {
  std::string field;
};

/// Follows the keys on the way down, for the error: "config.model.hidden[][]...".
class DepthGuard {
public:
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    const size_t d = size_t(depth);
    if (event == json::parse_event_t::key) {
      m_labels.resize(d - 1);
      m_labels.push_back({elide(parsed.get<std::string>(), 32), false});
    } else if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) {
      if (d > 0 && m_arrays.size() >= d && m_arrays[d - 1]) {
        m_labels.resize(d - 1);
        m_labels.push_back({std::string(), true});
      }
      m_arrays.resize(d);
      m_arrays.push_back(event == json::parse_event_t::array_start);
      if (depth >= k_max_json_depth) throw TooDeep{field(d)};
    }
    return true;
  }

private:
  struct Label {
    std::string key;
    bool element = false; ///< an array's element: "[]"
  };
  std::string field(size_t depth) const {
    constexpr size_t shown = 6;
    std::string s;
    for (size_t i = 0; i < depth && i < m_labels.size() && i < shown; ++i) {
      if (m_labels[i].element) {
        s += "[]";
      } else {
        if (!s.empty()) s += '.';
        s += m_labels[i].key;
      }
    }
    if (depth > shown) s += "...";
    return s;
  }
  std::vector<Label> m_labels; ///< [i]: how the container at level i + 1 holds the one below it
  std::vector<bool> m_arrays;  ///< [i]: whether the container at level i + 1 is an array
};

json parse(std::string_view text, const std::string& source, bool lenient) {
  DepthGuard guard;
  try {
    return json::parse(text.begin(), text.end(), std::ref(guard), true);
  } catch (const TooDeep& e) {
    throw ConfigError(source + ": " + e.field + ": nested deeper than " + std::to_string(k_max_json_depth) +
                      " levels of arrays and objects");
  } catch (const json::parse_error& e) {
    if (lenient) return json(json::value_t::discarded);
    throw ConfigError(source + ": not valid JSON (at byte " + std::to_string(e.byte) + ")");
  }
}
} // namespace

json parse_json(std::string_view text, const std::string& source) { return parse(text, source, false); }
json try_parse_json(std::string_view text, const std::string& source) { return parse(text, source, true); }

std::string json_excerpt(const json& v) { return elide(v.dump(-1, ' ', false, json::error_handler_t::replace), 40); }

} // namespace redraw
