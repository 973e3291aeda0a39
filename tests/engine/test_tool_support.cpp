// The option table the benchmarks and the interop check parse their command lines with, and the
// options the training benchmarks share (tests/tool_support.h): values, lists, flags, and the
// errors for a missing value, an unknown argument and a number out of range.
#include "tool_support.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace redraw;

namespace {

struct Parsed : test::BenchOptions {
  int32_t count = 1;
  std::vector<int32_t> sizes = {7};
  bool quiet = false;
};

Parsed parse(std::vector<std::string> args) {
  std::vector<char*> argv = {const_cast<char*>("tool")};
  for (auto& a : args) argv.push_back(a.data());
  Parsed p;
  p.time_limit = 0.5;
  p.table()
      .value("--count", p.count)
      .list("--sizes", p.sizes)
      .set("--quiet", p.quiet)
      .parse(int(argv.size()), argv.data(), " (a note)");
  return p;
}

} // namespace

TEST_CASE("tool support: the option table sets what the command line names and leaves the rest") {
  const Parsed none = parse({});
  CHECK(none.presets.empty());
  CHECK(none.time_limit == 0.5);
  CHECK(none.sizes == std::vector<int32_t>{7});
  CHECK_FALSE(none.quiet);
  const Parsed p = parse({"--time-limit", "0.25", "--sizes", "3,,5", "--quiet", "--json", "x", "--count", "12",
                          "--presets", "a,b", "--precision", "fp32"});
  CHECK(p.json_file == "x");
  CHECK(p.count == 12);
  CHECK(p.time_limit == 0.25);
  CHECK(p.presets == std::vector<std::string>{"a", "b"});
  CHECK(p.precision == "fp32");
  CHECK(p.sizes == std::vector<int32_t>{3, 5});
  CHECK(p.quiet);
  CHECK(test::split_list(",a,,b,") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("tool support: a missing value, an unknown argument or a number out of range is an error") {
  CHECK_THROWS_WITH_AS(parse({"--count"}), "--count: needs a value", ConfigError);
  CHECK_THROWS_WITH_AS(parse({"--what"}), "unknown argument '--what' (a note)", ConfigError);
  CHECK_THROWS_WITH_AS(parse({"--count", "4294967312"}), "'4294967312' is out of range", ConfigError);
  CHECK_THROWS(parse({"--time-limit", "fast"}));
}
