#include "engine/display_text.h"

#include "engine/model_files/model_check.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace redraw {

namespace {
/// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  return is_valid_utf8(s.substr(i, len)) ? len : 0;
}
} // namespace

std::string escape_control(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const size_t len = utf8_length(s, i);
    // C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8.
    const bool c1 = len == 2 && b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
    if (len == 1 && b >= 0x20 && b != 0x7F) {
      out += char(b);
    } else if (len > 1 && !c1) {
      out.append(s.substr(i, len));
    } else {
      const unsigned code = c1 ? static_cast<unsigned char>(s[i + 1]) : b;
      char buf[8];
      if (code == '\n') out += "\\n";
      else if (code == '\t') out += "\\t";
      else if (code == '\r') out += "\\r";
      else {
        std::snprintf(buf, sizeof buf, c1 ? "\\u%04x" : "\\x%02x", code);
        out += buf;
      }
      i += c1 ? 2 : 1;
      continue;
    }
    i += len;
  }
  return out;
}

std::string elide(std::string_view s, size_t max_chars, bool keep_end) {
  const std::string safe = escape_control(s);
  max_chars = std::max<size_t>(max_chars, 8);
  std::vector<size_t> starts; // byte offset of each code point (safe is valid UTF-8)
  for (size_t i = 0; i < safe.size();) {
    starts.push_back(i);
    const auto b = static_cast<unsigned char>(safe[i]);
    i += b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
  }
  if (starts.size() <= max_chars) return safe;
  const size_t keep = max_chars - 3;
  if (!keep_end) return safe.substr(0, starts[keep]) + "...";
  const size_t head = keep / 2, tail = keep - head;
  return safe.substr(0, starts[head]) + "..." + safe.substr(starts[starts.size() - tail]);
}

} // namespace redraw
