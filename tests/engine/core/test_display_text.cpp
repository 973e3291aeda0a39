// trim_blanks(): the line trimming that the GUI's script reader and its Markdown help share;
// csv_field(): the quoting of the sweep's and the benchmark's CSV tables.
#include "engine/display_text.h"

#include <doctest/doctest.h>

using namespace redraw;

TEST_CASE("trim_blanks drops the blanks at both ends, and only there") {
  CHECK(trim_blanks("  step 10\t") == "step 10");
  CHECK(trim_blanks("wait trained 5\r") == "wait trained 5"); // a CRLF file's line
  CHECK(trim_blanks("a \t b") == "a \t b");
  CHECK(trim_blanks(" \t\r ").empty());
  CHECK(trim_blanks("").empty());
  CHECK(trim_blanks("\n x \n") == "\n x \n"); // a newline is not one of the blanks
}

TEST_CASE("csv_field quotes only what RFC 4180 needs quoted, and doubles quotes") {
  CHECK(csv_field("kodim01.png") == "kodim01.png");
  CHECK(csv_field("") == "");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("line\nbreak") == "\"line\nbreak\"");
  CHECK(csv_field("cr\r") == "\"cr\r\"");
  CHECK(csv_field("tab\there") == "tab\there"); // a tab needs no quotes
  CHECK(csv_field(std::string_view("nul\0x", 5)) == std::string("nul\0x", 5));
}
