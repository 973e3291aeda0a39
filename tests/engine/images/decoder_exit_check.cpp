// Checks that a program which decoded images through libvips leaves none of libvips' worker
// threads running into the last exit handlers (where LeakSanitizer stops every thread, and a
// thread ending on its idle timeout there crashes LSan's tracer).
// Usage: redraw_decoder_exit_check IMAGE...   exit 0: no worker left; 1: a worker left at exit;
// 2: the check would prove nothing (no worker thread ran, or the image did not decode).
#include "engine/images/image.h"

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

/// Threads of this process named "libvips worker" (libvips 8.14 names its threadset's threads so).
int vips_workers() {
  int count = 0;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return -1;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("libvips worker", 0) == 0) ++count;
  }
  closedir(dir);
  return count;
}

/// Registered before anything touches libvips, so it runs after the handlers libvips' start
/// registers: the state the sanitizers' own exit handler would meet.
void check_at_exit() {
  const int left = vips_workers();
  if (left != 0) {
    std::fprintf(stderr, "decoder_exit_check: %d libvips worker thread(s) still running in the last exit handler\n",
                 left);
    _exit(1);
  }
  std::fprintf(stderr, "decoder_exit_check: no libvips worker thread left at exit\n");
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s IMAGE...\n", argv[0]);
    return 2;
  }
  std::atexit(check_at_exit);
  int most = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      const redraw::Image img = redraw::load_image(argv[i]);
      std::fprintf(stderr, "decoded %s: %dx%d\n", argv[i], img.width, img.height);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "decoder_exit_check: %s\n", e.what());
      _exit(2);
    }
    const int now = vips_workers();
    if (now > most) most = now;
  }
  if (most <= 0) {
    std::fprintf(stderr, "decoder_exit_check: no libvips worker thread ran, so the check proves nothing\n");
    _exit(2);
  }
  std::fprintf(stderr, "decoder_exit_check: %d libvips worker thread(s) after decoding\n", most);
  return 0;
}
