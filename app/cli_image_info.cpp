// `redraw info IMAGE`: what the decoder reads from a picture's header, and what it will do to it.
#include "app/cli_commands.h"
#include "app/cli_common.h"

#include "engine/images/image.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

namespace redraw::cli {

namespace {
const char* orientation_words(int o) {
  static const char* const k[] = {"as stored",          "as stored",           "mirrored left-right",
                                  "turned 180 degrees", "mirrored top-bottom", "transposed",
                                  "turned 90 degrees clockwise", "transversed", "turned 90 degrees anticlockwise"};
  return o >= 1 && o <= 8 ? k[o] : "as stored";
}
} // namespace

bool is_image_path(const std::string& file) {
  std::string ext = std::filesystem::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const auto& known = image_extensions();
  return std::find(known.begin(), known.end(), ext) != known.end();
}

int run_image_info(const std::string& file, bool json) {
  // The whole decode, not just the header: the notes (clamped HDR, bad CRCs, ...) come from it.
  // A picture over the default decode budget, or over the size limits, is described from its
  // header alone, with a note. (probe_image_file refuses a header whose sides are below 1.)
  ImageInfo info = probe_image_file(file);
  const uint64_t w = uint64_t(info.width), h = uint64_t(info.height);
  const bool within_limits = w <= uint64_t(k_max_image_side) && h <= uint64_t(k_max_image_side) &&
                             w * h <= uint64_t(k_max_image_pixels);
  // Within the limits at most 2^28 pixels x 2^16 channels x 12 bytes: no overflow.
  const uint64_t sample_bytes = uint64_t(std::clamp(info.bits, 8, 64) / 8);
  const uint64_t need = w * h * uint64_t(std::clamp(info.channels, 1, 65535)) * (sample_bytes + sizeof(float));
  char note[240];
  if (!within_limits) {
    std::snprintf(note, sizeof note,
                  "not decoded: %dx%d is over the limit of %d pixels per side and %lld pixels in all", info.width,
                  info.height, int(k_max_image_side), static_cast<long long>(k_max_image_pixels));
    info.notes.emplace_back(note);
  } else if (need <= k_default_image_memory_bytes) {
    info = ImageInfo{};
    load_image(file, {}, {}, &info);
  } else {
    std::snprintf(note, sizeof note,
                  "not decoded: its pixels need about %llu MiB, over the default image memory budget of %llu MiB "
                  "(train's --max-image-memory raises it)",
                  static_cast<unsigned long long>((need + (1 << 20) - 1) >> 20),
                  static_cast<unsigned long long>(k_default_image_memory_bytes >> 20));
    info.notes.emplace_back(note);
  }
  // What a file that ends early lacks comes first: the user must see it.
  if (!info.incomplete.empty()) info.notes.insert(info.notes.begin(), info.incomplete);
  if (json) {
    const nlohmann::json j = {{"image", file},           {"format", info.format},
                              {"width", info.width},     {"height", info.height},
                              {"orientation", info.orientation}, {"channels", info.channels},
                              {"bits_per_sample", info.bits}, {"float", info.floats},
                              {"colour", info.colour},
                              {"pages", info.pages},     {"notes", info.notes}};
    std::printf("%s\n", j.dump(2).c_str());
    return k_exit_ok;
  }
  std::printf("image:       %s\n", file.c_str());
  std::printf("format:      %s, %d channel%s, %d bits per sample%s\n", info.format.c_str(), info.channels,
              info.channels == 1 ? "" : "s", info.bits, info.floats ? " (float)" : "");
  std::printf("size:        %dx%d (as shown)\n", info.width, info.height);
  std::printf("orientation: %d (%s)\n", info.orientation, orientation_words(info.orientation));
  std::printf("colour:      %s\n", info.colour.c_str());
  if (info.pages > 1) std::printf("pages:       %d (the first is used)\n", info.pages);
  for (const std::string& n : info.notes)
    std::printf("note:        %s\n", n.c_str());
  return k_exit_ok;
}

} // namespace redraw::cli
