// trim_blanks(): the line trimming that the GUI's script reader and its Markdown help share.
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
