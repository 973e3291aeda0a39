// Where the GUI keeps settings and autosaves when HOME is missing: never the shared /tmp itself,
// a private folder (mode 0700, owned by us, not a link) or nowhere.
#include "test_support.h"

#include <doctest/doctest.h>

#if REDRAW_TEST_UI
#include "ui/session/autosave.h"
#include "ui/session/user_folders.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace redraw;
namespace fs = std::filesystem;

TEST_CASE("user folders: XDG, then HOME, then the user database, then a private 0700 folder, else none") {
  test::TempDir tmp;
  CHECK(user_folder("/x/data", "/home/me", "/pw", tmp.path, ".local/share", "data") == fs::path("/x/data/redraw"));
  CHECK(user_folder("relative", "/home/me", "/pw", tmp.path, ".local/share", "data") == fs::path("/home/me/.local/share/redraw"));
  CHECK(user_folder(nullptr, nullptr, "/pw", tmp.path, ".config", "config") == fs::path("/pw/.config/redraw"));
  // No HOME, no home in the user database: a private folder, never tmp itself.
  const fs::path mine = tmp.path / ("redraw-" + std::to_string(::getuid()));
  const fs::path got = user_folder(nullptr, nullptr, nullptr, tmp.path, ".config", "config");
  CHECK(got == mine / "config");
  struct stat st {};
  REQUIRE(::lstat(mine.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  CHECK(got.parent_path() != tmp.path);
  CHECK(user_folder(nullptr, "", nullptr, tmp.path, ".local/share", "data") == mine / "data");
  // A folder another user could enter (or made first, open to all) is refused: nowhere.
  REQUIRE(::chmod(mine.c_str(), 0777) == 0);
  CHECK(private_temp_folder(tmp.path).empty());
  CHECK(user_folder(nullptr, nullptr, nullptr, tmp.path, ".config", "config").empty());
  fs::remove_all(mine);
  // A link planted in its place (pointing somewhere we own) is refused too.
  fs::create_directory(tmp.path / "elsewhere");
  ::chmod((tmp.path / "elsewhere").c_str(), 0700);
  fs::create_directory_symlink(tmp.path / "elsewhere", mine);
  CHECK(private_temp_folder(tmp.path).empty());
}

TEST_CASE("user folders: with nowhere to write, autosave is off and no file lands in the working folder") {
  test::TempDir dir;
  const fs::path cwd = fs::current_path();
  fs::current_path(dir.path);
  {
    AutosaveSession none{fs::path()};
    CHECK_FALSE(none.ok());
  }
  CHECK(fs::is_empty(dir.path));
  fs::current_path(cwd);
}
#endif
