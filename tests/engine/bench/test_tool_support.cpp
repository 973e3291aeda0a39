// The options the training benchmarks share (tests/cli_options.h, on CLI11): the command line sets
// what it names and leaves the rest; a bad value or an unknown argument is an error.
#include "cli_options.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace redraw;

namespace {

struct Parsed : test::BenchOptions {
  int32_t count = 1;
};

Parsed parse(std::vector<std::string> args) {
  std::vector<char*> argv = {const_cast<char*>("tool")};
  for (auto& a : args) argv.push_back(a.data());
  Parsed p;
  p.presets = {"instant"};
  p.time_limit = 0.5;
  CLI::App app{"test", "tool"};
  p.add_to(app);
  app.add_option("--count", p.count)->check(CLI::PositiveNumber);
  app.parse(int(argv.size()), argv.data());
  return p;
}

} // namespace

TEST_CASE("tool support: the shared benchmark options set what the command line names and leave the rest") {
  const Parsed none = parse({});
  CHECK(none.presets == std::vector<std::string>{"instant"});
  CHECK(none.time_limit == 0.5);
  CHECK(none.precision.empty());
  CHECK(none.count == 1);
  const Parsed p =
      parse({"--time-limit", "0.25", "--json", "x", "--count", "12", "--presets", "a,b", "--precision", "fp32"});
  CHECK(p.json_file == "x");
  CHECK(p.count == 12);
  CHECK(p.time_limit == 0.25);
  CHECK(p.presets == std::vector<std::string>{"a", "b"});
  CHECK(p.precision == "fp32");
}

TEST_CASE("tool support: a missing value, an unknown argument or a bad number is an error") {
  CHECK_THROWS_AS(parse({"--count"}), CLI::ParseError);
  CHECK_THROWS_AS(parse({"--what"}), CLI::ParseError);
  CHECK_THROWS_AS(parse({"--count", "4294967312"}), CLI::ParseError);
  CHECK_THROWS_AS(parse({"--time-limit", "fast"}), CLI::ParseError);
  CHECK_THROWS_AS(parse({"--time-limit", "-1"}), CLI::ParseError);
}
