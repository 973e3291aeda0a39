#include "engine/json_read.h"

#include "engine/display_text.h"
#include "engine/errors.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace redraw {
using nlohmann::json;

namespace {
/// Follows the keys on the way down, for the error: "config.model.hidden[][]...". Past the limit it
/// never throws (the parser may call it where an exception ends the program): it notes the field
/// and discards everything from there on, so no value deeper than the limit is ever built.
class DepthGuard {
public:
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    if (m_too_deep) return false;
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
      if (depth >= k_max_json_depth) {
        m_too_deep = true;
        m_field = field(d);
        return false;
      }
    }
    return true;
  }

  bool too_deep() const { return m_too_deep; }
  const std::string& deep_field() const { return m_field; }

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
  bool m_too_deep = false;
  std::string m_field; ///< where the limit was passed
};

json parse(std::string_view text, const std::string& source, bool lenient) {
  DepthGuard guard;
  const auto too_deep = [&] {
    return ConfigError(source + ": " + guard.deep_field() + ": nested deeper than " +
                       std::to_string(k_max_json_depth) + " levels of arrays and objects");
  };
  try {
    json j = json::parse(text.begin(), text.end(), std::ref(guard), true);
    if (guard.too_deep()) throw too_deep();
    return j;
  } catch (const json::parse_error& e) {
    if (guard.too_deep()) throw too_deep();
    if (lenient) return json(json::value_t::discarded);
    throw ConfigError(source + ": not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception&) { // a number past double's range (out_of_range 406), say
    if (guard.too_deep()) throw too_deep();
    if (lenient) return json(json::value_t::discarded);
    throw ConfigError(source + ": not valid JSON (a number out of range)");
  }
}
} // namespace

json parse_json(std::string_view text, const std::string& source) { return parse(text, source, false); }
json try_parse_json(std::string_view text, const std::string& source) { return parse(text, source, true); }

std::string json_excerpt(const json& v) { return elide(v.dump(-1, ' ', false, json::error_handler_t::replace), 40); }

} // namespace redraw
