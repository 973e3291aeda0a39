// `redraw info IMAGE`: what the decoder reads from a picture's header, and what it will do to it.
#include "app/cli_commands.h"
#include "app/cli_common.h"

#include "engine/image.h"

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
  // A picture over the default decode budget is described from its header alone, with a note.
  ImageInfo info = probe_image_file(file);
  const uint64_t sample_bytes = uint64_t(std::max(info.bits, 8) / 8);
  const uint64_t need = uint64_t(info.width) * uint64_t(info.height) * uint64_t(std::max(info.channels, 1)) *
                        (sample_bytes + sizeof(float));
  if (need <= k_default_image_memory_bytes) {
    info = ImageInfo{};
    load_image(file, {}, {}, &info);
  } else {
    char note[200];
    std::snprintf(note, sizeof note,
                  "not decoded: its pixels need about %llu MiB, over the default image memory budget of %llu MiB "
                  "(train's --max-image-memory raises it)",
                  static_cast<unsigned long long>(need >> 20),
                  static_cast<unsigned long long>(k_default_image_memory_bytes >> 20));
    info.notes.emplace_back(note);
  }
  if (json) {
    const nlohmann::json j = {{"image", file},           {"format", info.format},
                              {"width", info.width},     {"height", info.height},
                              {"orientation", info.orientation}, {"channels", info.channels},
                              {"bits_per_sample", info.bits}, {"colour", info.colour},
                              {"pages", info.pages},     {"notes", info.notes}};
    std::printf("%s\n", j.dump(2).c_str());
    return k_exit_ok;
  }
  std::printf("image:       %s\n", file.c_str());
  std::printf("format:      %s, %d channel%s, %d bits per sample%s\n", info.format.c_str(), info.channels,
              info.channels == 1 ? "" : "s", info.bits, info.bits == 32 ? " (float)" : "");
  std::printf("size:        %dx%d (as shown)\n", info.width, info.height);
  std::printf("orientation: %d (%s)\n", info.orientation, orientation_words(info.orientation));
  std::printf("colour:      %s\n", info.colour.c_str());
  if (info.pages > 1) std::printf("pages:       %d (the first is used)\n", info.pages);
  for (const std::string& n : info.notes)
    std::printf("note:        %s\n", n.c_str());
  return k_exit_ok;
}

} // namespace redraw::cli
