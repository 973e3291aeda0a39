// Files read by name from folders others can write into (engine/path_problem.h): only regular
// files are read, checked on the open descriptor, so a FIFO waits for no writer and /dev/zero is
// never read; each of the sweep's and the config's readers goes through it.
#include "engine/errors.h"
#include "engine/path_problem.h"
#include "engine/run_config.h"
#include "engine/sweep/sweep_plan.h"
#include "engine/sweep/sweep_table.h"
#include "test_support.h"

#include <doctest/doctest.h>

#include <sys/stat.h>

namespace redraw {
namespace fs = std::filesystem;

TEST_CASE("user files: a FIFO, a device or a link to one is refused before a byte is read") {
  test::TempDir dir;
  REQUIRE(::mkfifo((dir.path / "fifo").c_str(), 0600) == 0); // no writer: a blocking open would wait forever
  fs::create_symlink("/dev/zero", dir.path / "zero");
  std::string text;
  CHECK(read_user_text(dir.path / "fifo", 1 << 20, "a sweep file", "1 MiB", text) ==
        (dir.path / "fifo").string() + ": is a FIFO (named pipe), not a sweep file (only regular files are read)");
  std::vector<uint8_t> bytes;
  CHECK(read_user_file(dir.path / "zero", 1 << 20, "a model file", "1 MiB", bytes) ==
        (dir.path / "zero").string() + ": is a character device, not a model file (only regular files are read)");
  CHECK(bytes.empty());
  CHECK(read_user_text(dir.path, 1 << 20, "a config file", "1 MiB", text).find("is a directory, not a config file") !=
        std::string::npos);
  CHECK(read_user_text(dir.path / "gone", 1 << 20, "a config file", "1 MiB", text) ==
        (dir.path / "gone").string() + ": no such file");
  // A regular file is read whole, up to the cap.
  test::write_bytes(dir.path / "a.json", {'{', '}', '\n'});
  CHECK(read_user_text(dir.path / "a.json", 3, "a config file", "3 B", text).empty());
  CHECK(text == "{}\n");
  test::write_bytes(dir.path / "big", std::vector<uint8_t>(3 << 20, 'x'));
  CHECK(read_user_text(dir.path / "big", 1 << 20, "a config file", "1 MiB", text) ==
        (dir.path / "big").string() + ": the file is 3 MiB, over the 1 MiB limit");
}

TEST_CASE("user files: a FIFO or /dev/zero at sweep.json, a cell's result.json or a config is refused, naming it") {
  test::TempDir dir;
  REQUIRE(::mkfifo((dir.path / "sweep.json").c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(load_sweep_plan(dir.path), doctest::Contains("sweep.json: is a FIFO (named pipe)"), ConfigError);
  SweepCell cell;
  cell.name = "000-a";
  fs::create_directories(cell_folder(dir.path, cell));
  REQUIRE(::mkfifo((cell_folder(dir.path, cell) / "result.json").c_str(), 0600) == 0);
  const CellResult r = read_cell_result(dir.path, cell);
  CHECK(r.status == CellStatus::Failed);
  CHECK(r.error == (cell_folder(dir.path, cell) / "result.json").string() +
                       ": is a FIFO (named pipe), not a cell's result (only regular files are read)");
  fs::create_symlink("/dev/zero", dir.path / "run.json");
  CHECK_THROWS_WITH_AS(load_run_config(dir.path / "run.json"), doctest::Contains("run.json: is a character device"),
                       ConfigError);
}

} // namespace redraw
