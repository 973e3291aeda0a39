// What a neighbour who can write into an output folder can do: nothing. The folder lock is never
// opened through a symbolic link or anything but a plain file; every writer's temp file is created
// exclusively under a name no one can guess, so links planted at the names temp files once had
// (".redraw-<pid>-<n>.tmp") redirect no write; a full disk leaves no empty lock; a PNG-frames
// export removes only the frames an earlier export wrote.
#include "test_support.h"

#include "engine/atomic_file.h"
#include "engine/model_files/checkpoint.h"
#include "engine/errors.h"
#include "engine/export/export_writers.h"
#include "engine/folder_lock.h"
#include "engine/export/gif_writer.h"
#include "engine/images/image.h"
#include "engine/export/timelapse_export.h"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace redraw;
namespace fs = std::filesystem;

namespace {
const std::vector<uint8_t> k_victim_bytes = {'v', 'i', 'c', 't', 'i', 'm'};

/// Links at every temp name this process would have used under the old, counted scheme, all
/// pointing at `victim`.
void plant_links(const fs::path& folder, const fs::path& victim, const std::string& suffix = {}) {
  for (int n = 0; n < 64; ++n)
    fs::create_symlink(victim, folder / (".redraw-" + std::to_string(::getpid()) + "-" + std::to_string(n) + ".tmp" + suffix));
}

bool plain_file(const fs::path& p) { return fs::is_regular_file(fs::symlink_status(p)); }
} // namespace

TEST_CASE("planted links: the folder lock is never written through a link, and names it") {
  test::TempDir dir;
  const fs::path victim = dir.path / "victim.txt";
  test::write_bytes(victim, k_victim_bytes);
  fs::create_directory(dir.path / "out");
  fs::create_symlink(victim, dir.path / "out" / k_folder_lock_name);
  try {
    FolderLock lock(dir.path / "out", "train");
    FAIL("the lock was taken through a link");
  } catch (const IoError& e) {
    const std::string what = e.what();
    CHECK(what.find(k_folder_lock_name) != std::string::npos);
    CHECK(what.find("symbolic link") != std::string::npos);
  }
  CHECK(test::read_bytes(victim) == k_victim_bytes);
  CHECK(fs::is_symlink(dir.path / "out" / k_folder_lock_name)); // left for the user to see
  CHECK_FALSE(lock_file_held(dir.path / "out" / k_folder_lock_name));
  // Not a plain file: a folder at the name.
  fs::create_directory(dir.path / "out2");
  fs::create_directory(dir.path / "out2" / k_folder_lock_name);
  CHECK_THROWS_WITH_AS(FolderLock(dir.path / "out2", "train"), doctest::Contains("not a plain file"), IoError);
}

TEST_CASE("planted links: a full disk leaves no lock file, and says why") {
  test::TempDir dir;
  {
    test::ScopedFileSizeLimit full(4); // the lock's text does not fit
    CHECK_THROWS_WITH_AS(FolderLock(dir.path, "train"), doctest::Contains("cannot write the lock file .redraw-lock ("),
                         IoError);
  }
  CHECK_FALSE(fs::exists(fs::symlink_status(dir.path / k_folder_lock_name)));
  const FolderLock lock(dir.path, "train"); // and the folder can be locked once there is room
  CHECK(plain_file(dir.path / k_folder_lock_name));
}

TEST_CASE("planted links: temp files are created exclusively under unpredictable names") {
  test::TempDir dir;
  const fs::path a = temp_path_in(dir.path), b = temp_path_in(dir.path);
  CHECK(a != b);
  CHECK(a.filename().string().rfind(".redraw-" + std::to_string(::getpid()) + "-", 0) == 0);
  CHECK(a.filename().string().size() >= std::string(".redraw--.tmp").size() + 16);
  const TempFile t = create_temp_file(dir.path, ".png");
  REQUIRE(t.fd >= 0);
  CHECK(plain_file(t.path));
  ::close(t.fd);
  // A link at a fresh name is not opened through: the creation is exclusive.
  const fs::path victim = dir.path / "victim.txt";
  test::write_bytes(victim, k_victim_bytes);
  struct stat st {};
  REQUIRE(::stat(t.path.c_str(), &st) == 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK((st.st_mode & 0777) == (0666 & ~mask)); // as any other file the user makes
}

TEST_CASE("planted links: no writer writes through a link at an old temp name") {
  test::TempDir dir;
  const fs::path victim = dir.path / "victim.txt";
  test::write_bytes(victim, k_victim_bytes);
  for (const char* suffix : {"", ".tif", ".exr", ".png", ".mp4"}) plant_links(dir.path, victim, suffix);
  const Image img = test::gradient_image(16, 12, 3);
  write_png(dir.path / "a.png", img);
  for (const char* name : {"b.tif", "c.exr", "d.png"}) {
    auto w = open_row_writer(dir.path / name, img.width, img.height, 3, 8);
    w->write_rows(img.pixels.data(), img.height);
    w->commit();
  }
  {
    GifWriter gif(dir.path / "e.gif", img.width, img.height, 3, 10);
    gif.add_frame(img);
    gif.commit();
  }
  {
    PngFramesWriter frames(dir.path / "frames", 8);
    frames.add_frame(img);
    frames.commit();
  }
  write_text_atomic(dir.path / "settings.json", "{}\n");
  CHECK(test::read_bytes(victim) == k_victim_bytes);
  for (const char* name : {"a.png", "b.tif", "c.exr", "d.png", "e.gif", "settings.json", "frames/frame_00000.png"})
    CHECK_MESSAGE(plain_file(dir.path / name), name);
  CHECK(load_image(dir.path / "b.tif").width == 16);
  CHECK(load_image(dir.path / "c.exr").height == 12);
}

TEST_CASE("planted links: a PNG-frames export replaces and removes only the frames an export wrote") {
  test::TempDir dir;
  const Image img = test::gradient_image(8, 6, 3);
  const fs::path frames = dir.path / "frames";
  const auto export_frames = [&](int n) {
    PngFramesWriter w(frames, 8);
    for (int i = 0; i < n; ++i) w.add_frame(img);
    w.commit();
  };
  export_frames(5);
  test::write_bytes(frames / "notes.txt", k_victim_bytes); // the user's own file beside them
  export_frames(3); // a shorter export: frames 3 and 4 were the earlier export's, and go
  CHECK(fs::exists(frames / "frame_00002.png"));
  CHECK_FALSE(fs::exists(frames / "frame_00003.png"));
  CHECK_FALSE(fs::exists(frames / "frame_00004.png"));
  CHECK(test::read_bytes(frames / "notes.txt") == k_victim_bytes);
  // A frame file no export wrote: the folder is refused, naming it, and nothing is touched.
  test::write_bytes(frames / "frame_00007.png", k_victim_bytes);
  CHECK_THROWS_WITH_AS(export_frames(2), doctest::Contains("frame_00007.png, which no earlier redraw export wrote"),
                       IoError);
  CHECK(test::read_bytes(frames / "frame_00007.png") == k_victim_bytes);
  CHECK(fs::exists(frames / "frame_00002.png"));
}

TEST_CASE("planted links: a folder written into by name is refused when a link or a file is there") {
  test::TempDir dir;
  const fs::path victim = dir.path / "victim";
  fs::create_directory(victim);
  test::write_bytes(victim / "config.json", k_victim_bytes);
  fs::create_directory(dir.path / "out");
  fs::create_directory_symlink(victim, dir.path / "out" / "cell");
  const std::string named = (dir.path / "out" / "cell").string() + ": is a symbolic link, not a folder";
  CHECK_THROWS_WITH_AS(make_own_folder(dir.path / "out" / "cell"), doctest::Contains(named.c_str()), IoError);
  fs::create_symlink(dir.path / "gone", dir.path / "out" / "dangling"); // mkdir would not follow it either
  CHECK_THROWS_WITH_AS(make_own_folder(dir.path / "out" / "dangling"), doctest::Contains("is a symbolic link"),
                       IoError);
  CHECK_FALSE(fs::exists(dir.path / "gone"));
  test::write_bytes(dir.path / "out" / "file", k_victim_bytes);
  CHECK_THROWS_WITH_AS(make_own_folder(dir.path / "out" / "file"), doctest::Contains("file: is not a folder"), IoError);
  CHECK(test::read_bytes(victim / "config.json") == k_victim_bytes);
  CHECK(std::distance(fs::directory_iterator(victim), fs::directory_iterator()) == 1);
  // A missing folder is made, an existing one kept.
  make_own_folder(dir.path / "out" / "new");
  CHECK(fs::is_directory(fs::symlink_status(dir.path / "out" / "new")));
  make_own_folder(dir.path / "out" / "new");
  CHECK_THROWS_WITH_AS(make_own_folder(dir.path / "none" / "new"), doctest::Contains("cannot create the folder"),
                       IoError);
}
