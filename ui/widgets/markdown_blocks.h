#pragma once
/// The little Markdown the About box shows (assets/ATTRIBUTION.md): headings, bullets and
/// paragraphs, with continuation lines joined and `code` marks dropped. Pure logic, no ImGui.
#include <string>
#include <vector>

namespace redraw {

enum class MarkdownBlockKind { Heading, Subheading, Bullet, Paragraph };

struct MarkdownBlock {
  MarkdownBlockKind kind;
  std::string text; ///< one line of text (the renderer wraps it); no leading '#' or '- '
};

/// Splits `md` into blocks: "# " heading, "## " (or deeper) subheading, "- " / "* " bullet, other
/// text a paragraph. A blank line ends a block; an indented or plain line continues it.
std::vector<MarkdownBlock> parse_markdown_blocks(const std::string& md);

} // namespace redraw
