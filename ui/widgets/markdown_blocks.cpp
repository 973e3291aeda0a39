#include "ui/widgets/markdown_blocks.h"

#include "engine/display_text.h"

#include <sstream>

namespace redraw {

namespace {

std::string drop_code_marks(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (c != '`') out += c;
  return out;
}

} // namespace

std::vector<MarkdownBlock> parse_markdown_blocks(const std::string& md) {
  std::vector<MarkdownBlock> blocks;
  bool open = false; // the last block takes continuation lines
  std::istringstream in(md);
  std::string raw;
  while (std::getline(in, raw)) {
    const std::string line = trim_blanks(raw);
    if (line.empty()) {
      open = false;
      continue;
    }
    if (line[0] == '#') {
      const auto level = line.find_first_not_of('#');
      const auto kind = level == 1 ? MarkdownBlockKind::Heading : MarkdownBlockKind::Subheading;
      std::string text = drop_code_marks(trim_blanks(line.substr(level == std::string::npos ? line.size() : level)));
      if (!text.empty()) blocks.push_back({kind, std::move(text)});
      open = false;
      continue;
    }
    if (line.size() > 1 && (line[0] == '-' || line[0] == '*') && line[1] == ' ') {
      blocks.push_back({MarkdownBlockKind::Bullet, drop_code_marks(trim_blanks(line.substr(2)))});
      open = true;
      continue;
    }
    if (open) {
      blocks.back().text += ' ';
      blocks.back().text += drop_code_marks(line);
      continue;
    }
    std::string text = drop_code_marks(line);
    if (text.empty()) continue;
    blocks.push_back({MarkdownBlockKind::Paragraph, std::move(text)});
    open = true;
  }
  return blocks;
}

} // namespace redraw
