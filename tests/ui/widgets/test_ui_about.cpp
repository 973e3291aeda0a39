/// Help > About: the Markdown of assets/ATTRIBUTION.md as blocks the dialog draws. Built when the
/// GUI is (REDRAW_TEST_UI).
#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/widgets/markdown_blocks.h"

#include "test_support.h"

#include <fstream>
#include <sstream>

using namespace redraw;

TEST_CASE("ui about: headings, bullets with their continuation lines, paragraphs; code marks dropped") {
  const std::string md = "# Title\n\nIntro line one\nline two.\n\n## Libraries\n\n"
                         "- `a.png`: first,\n  continued\n- second\n\nAfter.\n";
  const auto blocks = parse_markdown_blocks(md);
  REQUIRE(blocks.size() == 6);
  CHECK(blocks[0].kind == MarkdownBlockKind::Heading);
  CHECK(blocks[0].text == "Title");
  CHECK(blocks[1].kind == MarkdownBlockKind::Paragraph);
  CHECK(blocks[1].text == "Intro line one line two.");
  CHECK(blocks[2].kind == MarkdownBlockKind::Subheading);
  CHECK(blocks[2].text == "Libraries");
  CHECK(blocks[3].kind == MarkdownBlockKind::Bullet);
  CHECK(blocks[3].text == "a.png: first, continued");
  CHECK(blocks[4].text == "second");
  CHECK(blocks[5].kind == MarkdownBlockKind::Paragraph);
  CHECK(blocks[5].text == "After.");
}

TEST_CASE("ui about: empty input and stray marks give no crash and no empty blocks") {
  CHECK(parse_markdown_blocks("").empty());
  CHECK(parse_markdown_blocks("\n\n  \n").empty());
  for (const auto& b : parse_markdown_blocks("#\n##  \n``\n\n-\n- \n``\n")) {
    CHECK(!b.text.empty());
    CHECK(b.text.find('`') == std::string::npos);
  }
}

TEST_CASE("ui about: ATTRIBUTION.md names the default image's licence and every library's") {
  std::ifstream in(test::test_assets() / "ATTRIBUTION.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  std::string all;
  for (const auto& b : parse_markdown_blocks(text.str()))
    all += b.text + "\n";
  for (const char* needle :
       {"default.png", "CC0", "Dear ImGui", "GLFW", "glad", "stb_image", "OpenBLAS", "nlohmann/json", "CLI11",
        "doctest", "libpng", "giflib", "KISS FFT", "libvips", "OpenEXR", "zlib", "cuBLAS", "NVIDIA CUDA Toolkit End User License Agreement"}) {
    CAPTURE(needle);
    CHECK(all.find(needle) != std::string::npos);
  }
}
#endif
