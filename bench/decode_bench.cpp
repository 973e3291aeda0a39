// Decode benchmark: a large JPEG decoded in full, against the same file decoded to a small
// training image (prepare_training_image, which shrinks a JPEG on load in the DCT).
//   decode_bench make SRC OUT.jpg W H     tiles SRC at its native scale into a W x H JPEG (Q 90)
//   decode_bench full FILE [REPEATS]      load_image at full size
//   decode_bench train FILE SIDE [REPEATS] prepare_training_image with --max-side SIDE (shrink on load)
//   decode_bench train-noshrink FILE SIDE [REPEATS]  the same without shrink-on-load (full decode, then resize)
//   decode_bench baseline FILE            the header only: the process's memory before any pixels
// Prints one line: mode, output size, median seconds, and this process's peak resident memory in
// MiB (getrusage), so run each mode in its own process (bench/decode_bench.sh does).
#include "engine/images/image.h"

#include <sys/resource.h>
#include <vips/vips.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace redraw;

namespace {
int make(const char* src, const char* out, int w, int h) {
  load_image(src); // starts libvips as Redraw does
  VipsImage *in = vips_image_new_from_file(src, nullptr), *tiled = nullptr, *cut = nullptr;
  if (!in) return 1;
  const int across = (w + in->Xsize - 1) / in->Xsize, down = (h + in->Ysize - 1) / in->Ysize;
  int rc = vips_replicate(in, &tiled, across, down, nullptr);
  if (rc == 0) rc = vips_crop(tiled, &cut, 0, 0, w, h, nullptr);
  if (rc == 0) rc = vips_jpegsave(cut, out, "Q", 90, nullptr);
  if (rc) std::fprintf(stderr, "decode_bench: %s\n", vips_error_buffer());
  for (VipsImage* p : {in, tiled, cut})
    if (p) g_object_unref(p);
  return rc ? 1 : 0;
}

double peak_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}
} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "make" && argc == 6) return make(argv[2], argv[3], std::atoi(argv[4]), std::atoi(argv[5]));
  if (mode == "baseline" && argc >= 3) {
    const ImageInfo info = probe_image_file(argv[2]);
    std::printf("baseline %dx%d 0 %.1f\n", info.width, info.height, peak_mib());
    return 0;
  }
  const bool train = mode == "train" || mode == "train-noshrink";
  if (!(mode == "full" || train) || argc < (train ? 4 : 3)) {
    std::fprintf(stderr, "usage: decode_bench make SRC OUT W H | full FILE [N] | train[-noshrink] FILE SIDE [N]\n");
    return 2;
  }
  const char* file = argv[2];
  const int side = train ? std::atoi(argv[3]) : 0;
  const int repeats = std::max(1, std::atoi(argc > (train ? 4 : 3) ? argv[train ? 4 : 3] : "3"));
  std::vector<double> seconds;
  Image img;
  for (int r = 0; r < repeats; ++r) {
    img = Image{}; // the previous result is not counted in this one's peak memory
    const auto t0 = std::chrono::steady_clock::now();
    if (mode == "full") {
      img = load_image(file);
    } else {
      DataSpec spec;
      spec.max_side = side;
      spec.color_mode = ColorMode::Rgb;
      if (mode == "train") {
        img = prepare_training_image(file, spec);
      } else {
        const Image raw = load_image(file);
        int32_t w = 0, h = 0;
        training_size(spec, raw.width, raw.height, w, h);
        img = resize_area(convert_color(raw, ColorMode::Rgb, 0.5f, {1, 1, 1}), w, h);
      }
    }
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("%s %dx%d %.4f %.1f\n", mode.c_str(), img.width, img.height, seconds[seconds.size() / 2], peak_mib());
  return 0;
}
