// Export: GIF/MP4/PNG-frame timelapses, the side-by-side comparison, tiled rendering, and that a
// bad destination, a full disk or a cancel leaves no partial file behind.
#include "test_support.h"

#include "engine/atomic_file.h"
#include "engine/export/comparison.h"
#include "engine/errors.h"
#include "engine/export/overlay_text.h"
#include "engine/export/render_export.h"
#include "engine/export/timelapse_export.h"

#include <doctest/doctest.h>
#include <gif_lib.h>

#include <csignal>
#include <cstdlib>
#include <sys/resource.h>

using namespace redraw;
namespace fs = std::filesystem;
using test::ScopedEnv;

namespace {
RunConfig export_config(int64_t steps = 40) { return test::tanh16_config(0, steps, 10); }

struct Trained {
  Trainer trainer;
  explicit Trained(int32_t channels)
      : trainer(test::small_trainer(export_config(), test::gradient_image(16, 12, channels))) {
    trainer.run(40);
  }
  void export_to(const fs::path& out, TimelapseOptions o) {
    export_timelapse(trainer.backend(), trainer.config().model, trainer.fourier_b(), trainer.frames().store().frames(),
                     out, o);
  }
};

TimelapseOptions options(int32_t w, int32_t h) {
  TimelapseOptions o;
  o.width = w;
  o.height = h;
  o.fps = 10;
  return o;
}


void write_script(const fs::path& p, const std::string& text) {
  test::write_bytes(p, std::vector<uint8_t>(text.begin(), text.end()));
  fs::permissions(p, fs::perms::owner_all);
}
} // namespace

TEST_CASE("a GIF timelapse decodes to the expected frame count, size and delays") {
  for (int32_t channels : {3, 1}) {
    Trained t(channels);
    test::TempDir dir;
    const fs::path out = dir.path / "lapse.gif";
    TimelapseOptions o = options(40, 30);
    o.overlay = true;
    int calls = 0;
    double last = 0;
    o.progress = [&](double f) {
      CHECK(f >= last);
      last = f;
      ++calls;
      return true;
    };
    t.export_to(out, o);
    CHECK(last == doctest::Approx(1.0));
    CHECK(calls >= int(t.trainer.frames().store().size()));
    int err = 0;
    GifFileType* gif = DGifOpenFileName(out.c_str(), &err);
    REQUIRE(gif != nullptr);
    REQUIRE(DGifSlurp(gif) == GIF_OK);
    CHECK(gif->SWidth == 40);
    CHECK(gif->SHeight == 30);
    CHECK(size_t(gif->ImageCount) == t.trainer.frames().store().size());
    int total_delay = 0, last_delay = 0;
    for (int i = 0; i < gif->ImageCount; ++i) {
      CHECK(gif->SavedImages[i].ImageDesc.Width == 40);
      GraphicsControlBlock gcb;
      REQUIRE(DGifSavedExtensionToGCB(gif, i, &gcb) == GIF_OK);
      if (i + 1 < gif->ImageCount)
        total_delay += gcb.DelayTime;
      else
        last_delay = gcb.DelayTime;
    }
    // Every frame but the last at 10 fps; the last one holds the finished picture for 2 s.
    CHECK(total_delay == int(std::lround(100.0 * double(gif->ImageCount - 1) / 10.0)));
    CHECK(last_delay == int(std::lround(100.0 * k_timelapse_hold_last_seconds)));
    DGifCloseFile(gif, &err);
    CHECK(test::files_in(dir.path) == 1); // no temp file left
  }
}

TEST_CASE("a GIF without a hold plays its last frame at the frame rate") {
  Trained t(1);
  test::TempDir dir;
  const fs::path out = dir.path / "lapse.gif";
  TimelapseOptions o = options(16, 12);
  o.hold_last_seconds = 0;
  t.export_to(out, o);
  int err = 0;
  GifFileType* gif = DGifOpenFileName(out.c_str(), &err);
  REQUIRE(gif != nullptr);
  REQUIRE(DGifSlurp(gif) == GIF_OK);
  GraphicsControlBlock gcb;
  REQUIRE(DGifSavedExtensionToGCB(gif, gif->ImageCount - 1, &gcb) == GIF_OK);
  CHECK(gcb.DelayTime == 10);
  DGifCloseFile(gif, &err);
}

TEST_CASE("GIF colours: grey is exact, RGB is quantised within one cube step") {
  test::TempDir dir;
  Image grey = test::gradient_image(20, 10, 1);
  for (float& v : grey.pixels)
    v = std::round(v * 255.0f) / 255.0f;
  Image rgb = test::gradient_image(20, 10, 3);
  for (const auto& [img, name] : {std::pair{&grey, "g.gif"}, std::pair{&rgb, "c.gif"}}) {
    GifWriter w(dir.path / name, 20, 10, img->channels, 5);
    w.add_frame(*img);
    w.commit();
    int err = 0;
    GifFileType* gif = DGifOpenFileName((dir.path / name).c_str(), &err);
    REQUIRE(gif);
    REQUIRE(DGifSlurp(gif) == GIF_OK);
    const ColorMapObject* map = gif->SColorMap;
    const GifByteType* px = gif->SavedImages[0].RasterBits;
    double worst = 0;
    for (int i = 0; i < 200; ++i) {
      const GifColorType c = map->Colors[px[i]];
      const GifByteType got[3] = {c.Red, c.Green, c.Blue};
      for (int k = 0; k < 3; ++k) {
        const float want = img->pixels[size_t(i) * size_t(img->channels) + size_t(img->channels == 3 ? k : 0)];
        worst = std::max(worst, std::abs(double(got[k]) / 255.0 - double(want)));
      }
    }
    CHECK(worst <= (img->channels == 1 ? 1e-6 : 0.2 + 1e-6));
    DGifCloseFile(gif, &err);
  }
  GifWriter w(dir.path / "x.gif", 20, 10, 3, 5);
  CHECK_THROWS_AS(w.add_frame(grey), ConfigError);
}

TEST_CASE("PNG frames go into a folder, replacing an earlier sequence") {
  Trained t(3);
  test::TempDir dir;
  const fs::path out = dir.path / "frames";
  t.export_to(out.string() + "/", options(20, 15));
  const size_t n = t.trainer.frames().store().size();
  CHECK(size_t(test::files_in(out)) == n + 1); // the frames and .redraw-frames, which lists them
  const Image first = load_image(out / "frame_00000.png");
  CHECK(first.width == 20);
  CHECK(first.height == 15);
  CHECK(test::files_in(dir.path) == 1);
  // Into the existing folder: the frames are replaced, other files stay (test_planted_links.cpp:
  // only frames an export wrote are ever removed).
  test::write_bytes(out / "notes.txt", {1});
  TimelapseOptions o = options(20, 15);
  o.bit_depth = 16;
  t.export_to(out, o);
  CHECK(size_t(test::files_in(out)) == n + 2);
  CHECK(load_image(out / "frame_00000.png").width == 20);
  CHECK(fs::exists(out / "notes.txt"));
}

TEST_CASE("a timelapse frame is the snapshot's render, plus the label when asked") {
  Trained t(3);
  const Snapshot& s = t.trainer.frames().frame(3);
  const Image plain =
      render_timelapse_frame(t.trainer.backend(), t.trainer.config().model, t.trainer.fourier_b(), s, 300, 120, false);
  CHECK(plain.pixels == t.trainer.render_snapshot(3, 300, 120).pixels);
  const Image labelled =
      render_timelapse_frame(t.trainer.backend(), t.trainer.config().model, t.trainer.fourier_b(), s, 300, 120, true);
  CHECK(labelled.pixels != plain.pixels);
  // The label stays in the top rows.
  for (int32_t y = 20; y < 120; ++y)
    for (int32_t x = 0; x < 300; ++x)
      REQUIRE(labelled.at(x, y, 0) == plain.at(x, y, 0));
  MetricsRow row;
  row.step = 1234;
  row.psnr_db = 23.44;
  CHECK(frame_label(row) == "step 1234  PSNR 23.4 dB");
}

TEST_CASE("a tiled render equals an untiled one at a larger size") {
  Trained t(3);
  RenderOptions small;
  small.max_tile_pixels = 97; // bands of one row
  RenderOptions huge;
  huge.max_tile_pixels = int64_t(1) << 40;
  const Image a = t.trainer.render(640, 360, small);
  const Image b = t.trainer.render(640, 360, huge);
  CHECK(test::max_abs_diff(a, b) <= test::k_tiling_tolerance);
  // The streamed 16-bit PNG matches the in-memory render to 16-bit precision.
  test::TempDir dir;
  const NetworkView view{&t.trainer.config().model, t.trainer.frames().frame(2).params, t.trainer.fourier_b()};
  PngStreamWriter png(dir.path / "r.png", 640, 360, 3, 16);
  render_tiles(t.trainer.backend(), view, 640, 360, small,
               [&](int32_t y0, int32_t y1, const float* v) { png.write_rows(v, y1 - y0); });
  png.commit();
  const Image back = load_image(dir.path / "r.png");
  const Image want = t.trainer.render_snapshot(2, 640, 360, huge);
  double worst = 0;
  for (size_t i = 0; i < want.pixels.size(); ++i)
    worst = std::max(worst, double(std::abs(back.pixels[i] - want.pixels[i])));
  CHECK(worst <= 0.5 / 65535.0 + test::k_tiling_tolerance);
}

TEST_CASE("the side-by-side comparison: bicubic original on the left, the render on the right") {
  Trained t(3);
  const Image original = test::gradient_image(16, 12, 3);
  const NetworkView view{&t.trainer.config().model, t.trainer.frames().frame(4).params, t.trainer.fourier_b()};
  const Image cmp = comparison_image(t.trainer.backend(), view, original, 48, 36);
  CHECK(cmp.width == 96);
  CHECK(cmp.height == 36);
  const Image up = resize_bicubic(original, 48, 36);
  const Image net = t.trainer.render_snapshot(4, 48, 36);
  for (int32_t y = 0; y < 36; ++y)
    for (int32_t x = 0; x < 48; ++x)
      for (int32_t c = 0; c < 3; ++c) {
        REQUIRE(cmp.at(x, y, c) == std::clamp(up.at(x, y, c), 0.0f, 1.0f));
        REQUIRE(cmp.at(48 + x, y, c) == net.at(x, y, c));
      }
  test::TempDir dir;
  RenderOptions tiles;
  tiles.max_tile_pixels = 100;
  export_comparison_png(t.trainer.backend(), view, original, 48, 36, dir.path / "cmp.png", 16, tiles);
  const Image back = load_image(dir.path / "cmp.png");
  CHECK(back.width == 96);
  double worst = 0;
  for (size_t i = 0; i < back.pixels.size(); ++i)
    worst = std::max(worst, double(std::abs(back.pixels[i] - cmp.pixels[i])));
  CHECK(worst <= 0.5 / 65535.0 + test::k_tiling_tolerance);
  CHECK_THROWS_AS(comparison_image(t.trainer.backend(), view, test::gradient_image(16, 12, 1), 48, 36), ConfigError);
  // comparison_original converts to the run's colour mode.
  DataSpec gray;
  gray.color_mode = ColorMode::Binary;
  CHECK(comparison_original(original, gray).channels == 1);
}

TEST_CASE("a bad destination is refused before rendering, naming the path, and leaves nothing") {
  Trained t(3);
  test::TempDir dir;
  int renders = 0;
  TimelapseOptions o = options(20, 15);
  o.progress = [&](double) { return ++renders, true; };
  for (const fs::path& out :
       {dir.path / "missing" / "lapse.gif", dir.path / "missing" / "frames/", dir.path / "missing" / "v.mp4"}) {
    CAPTURE(out);
    try {
      ScopedEnv path("PATH", (dir.path / "bin").string()); // mp4: no ffmpeg either
      CHECK_THROWS_AS(check_timelapse_destination(out, timelapse_format_for(out)), IoError);
      t.export_to(out, o);
      FAIL("no error");
    } catch (const IoError& e) {
      CHECK(std::string(e.what()).find((dir.path / "missing").string()) != std::string::npos);
    }
  }
  // A folder where a GIF should go, and a file where the frames folder should go.
  fs::create_directory(dir.path / "taken.gif");
  CHECK_THROWS_AS(t.export_to(dir.path / "taken.gif", o), IoError);
  test::write_bytes(dir.path / "file", {1});
  o.format = TimelapseFormat::PngFrames;
  CHECK_THROWS_AS(t.export_to(dir.path / "file", o), IoError);
  o.format.reset();
  CHECK(renders == 0);
  CHECK(test::files_in(dir.path) == 2);
  CHECK_THROWS_AS(timelapse_format_for("x.avi"), ConfigError);
  CHECK(timelapse_format_for("x.GIF") == TimelapseFormat::Gif);
  CHECK(timelapse_format_for("frames") == TimelapseFormat::PngFrames);
  // The comparison export too.
  const NetworkView view{&t.trainer.config().model, t.trainer.frames().frame(1).params, t.trainer.fourier_b()};
  CHECK_THROWS_WITH_AS(
      export_comparison_png(t.trainer.backend(), view, test::gradient_image(8, 8, 3), 8, 8, dir.path / "no" / "c.png"),
      doctest::Contains((dir.path / "no" / "c.png").string().c_str()), IoError);
}

TEST_CASE("a full disk leaves no partial file behind") {
  Trained t(3);
  test::TempDir dir;
  const fs::path keep = dir.path / "lapse.gif";
  test::write_bytes(keep, {'o', 'l', 'd'}); // an earlier export stays intact
  {
    test::ScopedFileSizeLimit full(2000);
    CHECK_THROWS_AS(t.export_to(keep, options(64, 48)), IoError);
    CHECK_THROWS_AS(t.export_to(dir.path / "frames/", options(64, 48)), IoError);
    const NetworkView view{&t.trainer.config().model, t.trainer.frames().frame(1).params, t.trainer.fourier_b()};
    CHECK_THROWS_AS(
        export_comparison_png(t.trainer.backend(), view, test::gradient_image(16, 12, 3), 64, 48, dir.path / "c.png"),
        IoError);
    AtomicFileWriter w(dir.path / "raw.bin");
    CHECK_THROWS_AS(
        {
          std::vector<uint8_t> big(100000, 7);
          w.write(big);
          w.commit();
        },
        IoError);
  }
  CHECK(test::files_in(dir.path) == 1);
  CHECK(test::read_bytes(keep) == std::vector<uint8_t>{'o', 'l', 'd'});
}

TEST_CASE("a cancelled export leaves nothing behind") {
  Trained t(3);
  test::TempDir dir;
  for (const fs::path& out : {dir.path / "a.gif", dir.path / "frames/"}) {
    TimelapseOptions o = options(30, 20);
    int calls = 0;
    o.progress = [&](double) { return ++calls < 5; };
    CHECK_THROWS_AS(t.export_to(out, o), CancelledError);
  }
  CHECK(test::files_in(dir.path) == 0);
}

TEST_CASE("MP4 goes through ffmpeg on PATH, atomically, and names ffmpeg when it is missing") {
  Trained t(3);
  test::TempDir dir;
  fs::create_directory(dir.path / "bin");
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  {
    ScopedEnv path("PATH", (dir.path / "bin").string());
    CHECK_FALSE(ffmpeg_available());
    CHECK_THROWS_WITH_AS(t.export_to(dir.path / "v.mp4", options(20, 15)), doctest::Contains("ffmpeg"), IoError);
  }
  // A stand-in ffmpeg that stores the raw frames it receives as the "video" (its last argument:
  // file:/dev/fd/3, the temp file redraw created and handed over).
  write_script(dir.path / "bin" / "ffmpeg", "#!/bin/sh\nfor a; do out=\"${a#file:}\"; done\ncat > \"$out\"\n");
  {
    ScopedEnv path("PATH", (dir.path / "bin").string() + ":" + old_path);
    CHECK(ffmpeg_available());
    t.export_to(dir.path / "v.mp4", options(21, 15));
    // The last frame is repeated for the 2 s hold at 10 fps.
    CHECK(fs::file_size(dir.path / "v.mp4") == (t.trainer.frames().store().size() - 1 + 20) * 21 * 15 * 3);
  }
  // One that fails: its message is reported and no partial video is left.
  write_script(dir.path / "bin" / "ffmpeg", "#!/bin/sh\nfor a; do out=\"${a#file:}\"; done\nhead -c 100 > "
                                            "\"$out\"\necho 'Unknown encoder libx264' >&2\nexit 1\n");
  {
    ScopedEnv path("PATH", (dir.path / "bin").string() + ":" + old_path);
    CHECK_THROWS_WITH_AS(t.export_to(dir.path / "w.mp4", options(64, 48)), doctest::Contains("Unknown encoder libx264"),
                         IoError);
  }
  CHECK_FALSE(fs::exists(dir.path / "w.mp4"));
  CHECK(test::files_in(dir.path) == 2); // bin/ and v.mp4
}

TEST_CASE("a reconstruction export streams to PNG, and a bad path, full disk or cancel leaves nothing") {
  Trained t(3);
  test::TempDir dir;
  const NetworkView view{&t.trainer.config().model, t.trainer.frames().frame(2).params, t.trainer.fourier_b()};
  RenderOptions tiles;
  tiles.max_tile_pixels = 500;
  export_render_png(t.trainer.backend(), view, 90, 70, dir.path / "r.png", 16, tiles);
  const Image back = load_image(dir.path / "r.png");
  const Image want = t.trainer.render_snapshot(2, 90, 70);
  double worst = 0;
  for (size_t i = 0; i < want.pixels.size(); ++i)
    worst = std::max(worst, double(std::abs(back.pixels[i] - want.pixels[i])));
  CHECK(worst <= 0.5 / 65535.0 + test::k_tiling_tolerance);
  int calls = 0;
  RenderOptions counting;
  counting.progress = [&](double) { return ++calls, true; };
  CHECK_THROWS_WITH_AS(export_render_png(t.trainer.backend(), view, 90, 70, dir.path / "no" / "r.png", 8, counting),
                       doctest::Contains((dir.path / "no" / "r.png").string().c_str()), IoError);
  CHECK(calls == 0);
  RenderOptions cancel;
  cancel.max_tile_pixels = 90;
  cancel.progress = [&](double f) { return f < 0.5; };
  CHECK_THROWS_AS(export_render_png(t.trainer.backend(), view, 90, 70, dir.path / "c.png", 8, cancel), CancelledError);
  {
    test::ScopedFileSizeLimit full(1000);
    CHECK_THROWS_AS(export_render_png(t.trainer.backend(), view, 300, 300, dir.path / "f.png", 16), IoError);
  }
  CHECK(test::files_in(dir.path) == 1);
}
