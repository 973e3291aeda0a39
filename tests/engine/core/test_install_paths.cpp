// Where Redraw finds its data and module: REDRAW_ASSETS first, then the installed folders
// relative to the executable, then the source tree (tests/project/install_check.sh covers a real install).
#include "engine/install_paths.h"
#include "engine/run_config.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <filesystem>

using namespace redraw;
using redraw::test::ScopedEnv;

TEST_CASE("install paths: the executable's folder is where this test binary is") {
  const auto dir = executable_dir();
  REQUIRE(!dir.empty());
  CHECK(std::filesystem::exists(dir / "redraw_tests"));
}

TEST_CASE("install paths: REDRAW_ASSETS wins, and names itself as the source") {
  ScopedEnv env("REDRAW_ASSETS", "/some/where/assets");
  AssetSource source{};
  CHECK(find_asset_dir(&source) == "/some/where/assets");
  CHECK(source == AssetSource::Environment);
  CHECK(asset_dir() == "/some/where/assets");
  CHECK(std::string(asset_source_name(source)) == "REDRAW_ASSETS");
}

TEST_CASE("install paths: in the build tree (no share/redraw beside bin/) the source tree's assets") {
  ScopedEnv env("REDRAW_ASSETS", nullptr);
  AssetSource source{};
  const auto dir = find_asset_dir(&source);
  CHECK(source == AssetSource::SourceTree);
  CHECK(std::string(asset_source_name(source)) == "source tree");
  CHECK(dir == std::filesystem::path(REDRAW_ASSET_DIR));
}

TEST_CASE("install paths: the module's installed folder is relative and ends in redraw") {
  const std::string rel = installed_module_reldir();
  CHECK(!rel.empty());
  CHECK(rel.front() != '/');
  CHECK(std::filesystem::path(rel).filename() == "redraw");
}
