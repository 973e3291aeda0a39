#include "engine/display_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace redraw {

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    uint32_t cp = 0;
    if ((b & 0xE0) == 0xC0) len = 2, cp = b & 0x1F;
    else if ((b & 0xF0) == 0xE0) len = 3, cp = b & 0x0F;
    else if ((b & 0xF8) == 0xF0) len = 4, cp = b & 0x07;
    else return false;
    if (i + size_t(len) > n) return false;
    for (int k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + size_t(k)]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const uint32_t min_cp = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += size_t(len);
  }
  return true;
}

namespace {
/// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  return is_valid_utf8(s.substr(i, len)) ? len : 0;
}
} // namespace

std::string utf8_within(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes && is_valid_utf8(s)) return std::string(s);
  std::string valid;
  valid.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_length(s, i);
    if (len == 0) {
      valid += "\xEF\xBF\xBD"; // U+FFFD
      ++i;
    } else {
      valid.append(s.substr(i, len));
      i += len;
    }
  }
  if (valid.size() <= max_bytes) return valid;
  const std::string_view dots = "...";
  size_t from = valid.size() - (max_bytes - dots.size());
  while (from < valid.size() && (static_cast<unsigned char>(valid[from]) & 0xC0) == 0x80) ++from; // a character's start
  return std::string(dots) + valid.substr(from);
}

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

std::string trim_blanks(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t\r") - b + 1));
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace redraw
