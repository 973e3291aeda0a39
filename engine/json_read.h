#pragma once
/// JSON from files and text that others may have written (configs, sweep files, a model's
/// metadata, command-line values), parsed with a bound on its nesting.
/// - nlohmann::json copies, compares, dumps and destroys a value recursively, one stack frame per
///   level: a value nested 100,000 deep (200 KB of brackets) overflows the stack wherever it
///   goes. Every JSON Redraw reads is parsed here, and a value deeper than k_max_json_depth is
///   refused while it is parsed, before a deeper level is built.
/// - Errors are ConfigError "<source>: ..." naming the field the deep value is under (its first
///   keys, escaped and shortened) or where the text stops being JSON; they never hold the value.
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace redraw {

/// The deepest nesting of arrays and objects accepted; Redraw's own files use four levels.
inline constexpr int k_max_json_depth = 64;

/// Parses `text`. ConfigError naming `source` when it is not JSON or nests deeper than
/// k_max_json_depth.
nlohmann::json parse_json(std::string_view text, const std::string& source);
/// As parse_json, but text that is not JSON gives a discarded value (is_discarded()) instead of
/// an error; a value nested too deep is still refused.
nlohmann::json try_parse_json(std::string_view text, const std::string& source);

/// At most 40 characters of `v`'s JSON text, escaped, for an error message about a value read
/// from a file (never the whole of it).
std::string json_excerpt(const nlohmann::json& v);

} // namespace redraw
