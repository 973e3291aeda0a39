#pragma once
/// Text from files, paths and messages made safe to print or draw.
/// - escape_control(): control characters (C0, DEL, C1) and bytes that are not UTF-8 become
///   visible escapes (\n, \t, \x1b, ...), so a crafted name cannot drive a terminal.
/// - elide(): at most `max_chars` code points, cut at a code point boundary, "..." in the middle
///   or at the end; a widget drawing it stays within a few hundred vertices per line.
/// - is_valid_utf8(): the check both use, and the model file's check of its strings.
/// - utf8_within(): a string a model file may hold (a path at most so many bytes of UTF-8).
/// - trim_blanks(): a line without its leading and trailing spaces, tabs and carriage returns.
/// - csv_field(): a value as one CSV field (RFC 4180): the sweep's and the benchmark's tables quote with it.
#include <cstddef>
#include <string>
#include <string_view>

namespace redraw {

/// True when `s` is valid UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool is_valid_utf8(std::string_view s);
/// `s` with every control character and invalid byte written as an escape.
std::string escape_control(std::string_view s);
/// escape_control(s) shortened to at most `max_chars` code points (>= 8), the middle replaced by
/// "..." when `keep_end` (paths: the file name stays readable), else the end.
std::string elide(std::string_view s, size_t max_chars, bool keep_end = false);
/// `s` as valid UTF-8 of at most `max_bytes` bytes (>= 16): unchanged when it is so already; else
/// each byte that is not UTF-8 becomes U+FFFD and, when that is still too long, "..." and the
/// longest tail that fits, cut at a character (a path keeps its file name).
std::string utf8_within(std::string_view s, size_t max_bytes);
/// `s` without leading and trailing spaces, tabs and carriage returns (a CRLF file's lines too).
std::string trim_blanks(std::string_view s);
/// `s` as one CSV field: unchanged, or quoted (quotes doubled) when it holds a comma, a quote or a
/// line break (RFC 4180).
std::string csv_field(std::string_view s);

} // namespace redraw
