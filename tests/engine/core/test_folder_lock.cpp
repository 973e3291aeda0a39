// One writer per folder (FolderLock), and a dead process means dead: zombies included.
#include "test_support.h"

#include "engine/errors.h"
#include "engine/folder_lock.h"
#include "engine/stop_signals.h"

#include <doctest/doctest.h>

#include <csignal>
#include <chrono>
#include <fstream>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

using namespace redraw;

namespace {
/// A child that exits at once and is not reaped: a zombie until waited for.
pid_t make_zombie() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  // wait until it has exited (its state turns Z), without reaping it
  for (int i = 0; i < 200; ++i) {
    siginfo_t info{};
    if (::waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0 && info.si_pid == pid) break;
    ::usleep(10000);
  }
  return pid;
}
} // namespace

TEST_CASE("process_exists: this process lives, a zombie and a reaped child do not") {
  CHECK(process_exists(long(::getpid())));
  CHECK_FALSE(process_exists(0));
  CHECK_FALSE(process_exists(-5));
  const pid_t zombie = make_zombie();
  CHECK(::kill(zombie, 0) == 0); // what the old check asked: a zombie answers
  CHECK_FALSE(process_exists(long(zombie)));
  int status = 0;
  ::waitpid(zombie, &status, 0);
  CHECK_FALSE(process_exists(long(zombie)));
}

TEST_CASE("FolderLock: a second holder is refused with the first one named; a stale lock is taken over") {
  test::TempDir dir;
  {
    const FolderLock a(dir.path, "redraw train a.png");
    CHECK(std::filesystem::exists(dir.path / k_folder_lock_name));
    CHECK(lock_file_held(dir.path / k_folder_lock_name));
    CHECK_THROWS_WITH_AS(FolderLock(dir.path, "redraw train b.png"),
                         doctest::Contains(("another redraw is writing to this folder (redraw train a.png (pid " +
                                            std::to_string(::getpid())).c_str()),
                         IoError);
  }
  CHECK_FALSE(std::filesystem::exists(dir.path / k_folder_lock_name)); // released and removed
  // A lock file left by a process that is gone (kill -9 leaves it; nobody holds its flock).
  const pid_t zombie = make_zombie();
  std::ofstream(dir.path / k_folder_lock_name) << zombie << "\nredraw train old.png (pid " << zombie << ")\n";
  CHECK_FALSE(lock_file_held(dir.path / k_folder_lock_name));
  CHECK_NOTHROW(FolderLock(dir.path, "redraw train c.png"));
  int status = 0;
  ::waitpid(zombie, &status, 0);
}

TEST_CASE("FolderLock: held by another live process, then free once it is killed") {
  test::TempDir dir;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      const FolderLock held(dir.path, "redraw train child.png");
      (void)!::write(ready[1], "x", 1);
      ::pause();
    } catch (...) {
    }
    ::_exit(1);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK_THROWS_WITH_AS(FolderLock(dir.path, "redraw train me.png"),
                       doctest::Contains(("pid " + std::to_string(child)).c_str()), IoError);
  ::kill(child, SIGKILL); // as kill -9: the lock file stays, its flock goes
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(std::filesystem::exists(dir.path / k_folder_lock_name));
  CHECK_NOTHROW(FolderLock(dir.path, "redraw train me.png"));
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_CASE("training time: a stop (SIGSTOP ... SIGCONT) between steps is not counted") {
  (void)continue_signals(); // installs the counter
  Trainer t = test::small_trainer(test::small_config(OptimizerKind::Adam, 0), test::gradient_image(8, 6, 1));
  t.run(2);
  t.step();
  t.step();
  double before = t.clock().elapsed();
  std::this_thread::sleep_for(std::chrono::milliseconds(500)); // a slow interval counts
  t.step();
  CHECK(t.clock().elapsed() - before >= 0.5);
  t.step();
  t.step();
  before = t.clock().elapsed();
  std::this_thread::sleep_for(std::chrono::milliseconds(500)); // "stopped" ...
  ::raise(SIGCONT);                                             // ... and continued
  t.step();
  t.step();
  CHECK(t.clock().elapsed() - before < 0.25); // counted as one ordinary step
  CHECK(continue_signals() >= 1);
}
