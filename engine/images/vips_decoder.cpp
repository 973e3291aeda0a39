// Decoding through libvips 8.14: PNG, JPEG, WebP, TIFF, HEIF/AVIF. Only those loaders are
// enabled; every other one (the untrusted ones, ImageMagick's catch-all, PDF, SVG, ...) is blocked
// once at start-up. Decodes are serialised (one mutex), so libvips' process-wide error buffer and
// the warnings it logs belong to the decode under way.
// Good files take one pass through libvips' threads (vips_image_write_to_memory). A file that
// libvips finds cut short (an error or a warning about missing data) is read again, leniently and
// band by band, to keep the rows that are there (decode_support.h: the policy for a file that ends
// early).
#include "engine/images/decode_support.h"
#include "engine/errors.h"
#include "engine/images/image_decoders.h"
#include "engine/images/png_passes.h"
#include "engine/images/vips_header_info.h"

#include <vips/vips.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

namespace redraw::detail {

namespace {

/// The loaders Redraw enables, by libvips class (each with its file, buffer and source variants).
constexpr const char* k_enabled_loaders[] = {"VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp",
                                             "VipsForeignLoadTiff", "VipsForeignLoadHeif"};

struct VipsState {
  std::mutex decode_mutex;
  std::mutex log_mutex;
  std::vector<std::string> warnings; ///< what libvips logged during the current decode
  std::string init_error;
  bool shut_down = false; ///< vips_shutdown has run (at exit); guarded by decode_mutex
};

VipsState& vips_state() {
  static VipsState s; // process-wide, like the library it guards
  return s;
}

void on_vips_log(const gchar*, GLogLevelFlags, const gchar* message, gpointer) {
  VipsState& s = vips_state();
  std::lock_guard lock(s.log_mutex);
  const std::string m = message ? message : "";
  if (s.warnings.size() < 8 && std::find(s.warnings.begin(), s.warnings.end(), m) == s.warnings.end())
    s.warnings.push_back(m);
}

/// At exit: libvips' idle worker threads are joined now, while every other exit handler still
/// waits. Left alone, each one ends on its own 15 s after its last task (libvips 8.14's threadset),
/// which can fall inside LeakSanitizer's exit-time stop of every thread: a thread exiting there
/// crashes LSan's tracer. Registered after vips_init, so it runs before the handlers registered
/// earlier (LSan's among them); the lock waits for a decode still under way on another thread.
void shut_vips_down() {
  std::lock_guard lock(vips_state().decode_mutex);
  vips_shutdown();
  vips_state().shut_down = true;
}

void ensure_vips() {
  static std::once_flag once;
  std::call_once(once, [] {
    VipsState& s = vips_state();
    if (vips_init("redraw") != 0) {
      s.init_error = vips_error_buffer();
      vips_error_clear();
      return;
    }
    std::atexit(shut_vips_down);
    // Warnings become notes on the decode, never lines on stderr.
    g_log_set_handler("VIPS", GLogLevelFlags(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO), on_vips_log,
                      nullptr);
    vips_cache_set_max(0); // nothing kept between decodes
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    for (const char* loader : k_enabled_loaders)
      vips_operation_block_set(loader, FALSE);
  });
  if (!vips_state().init_error.empty()) throw ImageError("libvips failed to start: " + vips_state().init_error);
}

/// libvips started and its decode mutex held: every call into libvips goes through here.
[[nodiscard]] std::unique_lock<std::mutex> lock_vips() {
  ensure_vips();
  std::unique_lock lock(vips_state().decode_mutex);
  if (vips_state().shut_down) throw ImageError("libvips has shut down: the program is exiting");
  return lock;
}

struct VipsRef {
  VipsImage* p = nullptr;
  VipsRef() = default;
  explicit VipsRef(VipsImage* image) : p(image) {}
  VipsRef(const VipsRef&) = delete;
  VipsRef& operator=(const VipsRef&) = delete;
  VipsRef(VipsRef&& o) noexcept : p(std::exchange(o.p, nullptr)) {}
  ~VipsRef() {
    if (p) g_object_unref(p);
  }
};

/// libvips' error text (first line), cleared.
std::string take_vips_error() {
  std::string e = vips_error_buffer();
  vips_error_clear();
  while (!e.empty() && (e.back() == '\n' || e.back() == ' '))
    e.pop_back();
  if (const size_t nl = e.find('\n'); nl != std::string::npos) e = e.substr(0, nl);
  if (e.empty()) { // some loaders only log why (libpng's warnings)
    VipsState& s = vips_state();
    std::lock_guard lock(s.log_mutex);
    if (!s.warnings.empty()) e = s.warnings.back();
  }
  return e.empty() ? "no reason given" : e;
}

/// Everything libvips said since the decode began: its error buffer and the warnings it logged,
/// one per line (nothing is cleared).
std::string vips_messages() {
  std::string e = vips_error_buffer();
  VipsState& s = vips_state();
  std::lock_guard lock(s.log_mutex);
  for (const std::string& w : s.warnings)
    e += w + "\n";
  return e;
}

/// True when `line` is libpng's word about one ancillary chunk ("iCCP: too short", "tEXt: invalid
/// keyword"): a PNG chunk tag is four letters whose third is upper case, and an ancillary one's
/// first is lower case. Such a chunk is skipped; the image's rows are not in it.
bool about_ancillary_png_chunk(const std::string& line) {
  const auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  const auto letter = [&](char c) { return upper(c) || lower(c); };
  for (size_t at = line.find(": "); at != std::string::npos; at = line.find(": ", at + 1)) {
    if (at < 4) continue;
    const char* t = line.data() + at - 4;
    if (lower(t[0]) && letter(t[1]) && upper(t[2]) && letter(t[3]) && (at == 4 || !letter(t[-1]))) return true;
  }
  return false;
}

/// True when a libvips or codec message says the data ran out (libjpeg's "premature end", libpng's
/// "not enough data", libtiff's "read error at scanline"). A line about a PNG's ancillary chunk
/// never does, whatever its words ("iCCP: too short" is a chunk's own length).
bool says_truncated(const std::string& text) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    if (about_ancillary_png_chunk(line)) continue;
    std::transform(line.begin(), line.end(), line.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (const char* cut : {"premature end", "truncated", "end of file", "not enough data", "unexpected end",
                            "read error", "out of data", "too short"})
      if (line.find(cut) != std::string::npos) return true;
  }
  return false;
}

/// ImageError for libvips' failure to read the file; `cut` when Redraw's own checks found the file
/// shorter than its structure says.
[[noreturn]] void fail(const std::string& name, const std::string& format, bool cut = false) {
  const std::string why = take_vips_error();
  if (cut || says_truncated(why))
    throw ImageError(name + ": corrupt or truncated image: the file ends before the image does (" + why + ")");
  throw ImageError(name + ": corrupt or truncated image: the " + format + " is damaged (" + why + ")");
}

/// The image's header (no pixel decoded yet), for reading in order; VIPS_FAIL_ON_TRUNCATED makes a
/// cut file an error, VIPS_FAIL_ON_NONE reads what is there (the loader fills the rest).
VipsImage* open_buffer(const uint8_t* data, size_t size, int shrink, VipsFailOn fail_on = VIPS_FAIL_ON_TRUNCATED) {
  if (shrink > 1)
    return vips_image_new_from_buffer(data, size, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, "shrink",
                                      shrink, nullptr);
  return vips_image_new_from_buffer(data, size, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", fail_on, nullptr);
}

/// The largest JPEG shrink (1, 2, 4, 8) that keeps a w x h picture (as stored) at least need_w x need_h.
int jpeg_shrink(int w, int h, int need_w, int need_h) {
  int best = 1;
  for (int s : {2, 4, 8})
    if ((w + s - 1) / s >= need_w && (h + s - 1) / s >= need_h) best = s;
  return best;
}

} // namespace

bool vips_recognises(const uint8_t* data, size_t size) {
  const auto lock = lock_vips();
  const char* loader = vips_foreign_find_load_buffer(data, size);
  vips_error_clear();
  return loader && !format_of(loader, nullptr).empty();
}

namespace {

/// With the decode mutex held: clears libvips' error and the last file's warnings, finds the loader
/// for the bytes and opens the image's header (no pixel decoded yet), whose facts go to info.
VipsRef open_header(const VipsInput& in, const std::string& name, ImageInfo& info) {
  vips_error_clear();
  {
    std::lock_guard log(vips_state().log_mutex);
    vips_state().warnings.clear();
  }
  const char* loader = vips_foreign_find_load_buffer(in.data(), in.size());
  if (!loader || format_of(loader, nullptr).empty()) {
    vips_error_clear();
    if (in.cut) throw ImageError(name + ": corrupt or truncated image: the file ends before the image does");
    throw ImageError(name + ": not a readable image (unknown format)");
  }
  VipsRef head(open_buffer(in.data(), in.size(), 1));
  if (!head.p) fail(name, format_of(loader, nullptr), in.cut);
  fill_info(head.p, loader, info);
  return head;
}

/// The operations from a loaded image to the samples Redraw converts: colour conversion to sRGB
/// (CMYK, an ICC profile other than sRGB, Lab and friends), doubles cast to floats, at most four
/// bands. `out` is the last image (or the loaded one itself).
struct Pipeline {
  std::vector<std::unique_ptr<VipsRef>> steps;
  VipsImage* out = nullptr;
  VipsInterpretation interp = VIPS_INTERPRETATION_sRGB; ///< the loaded image's
  bool hdr = false;                                     ///< float samples
  int sample = 1;                                       ///< bytes per sample of `out`: 1, 2 or 4 (float)
  std::vector<std::string> notes;
};

Pipeline build_pipeline(VipsImage* loaded, const std::string& name, const std::string& format) {
  Pipeline p;
  p.out = loaded;
  // One libvips operation from `p.out` to a new image, which becomes `p.out`.
  const auto step = [&](const auto& operation) {
    VipsImage* out = nullptr;
    if (operation(&out) != 0 || !out) fail(name, format);
    p.steps.push_back(std::make_unique<VipsRef>(out));
    p.out = out;
  };
  VipsImage* const cur = loaded;
  VipsBandFormat fmt = vips_image_get_format(cur);
  p.interp = vips_image_get_interpretation(cur);
  const bool icc = vips_image_get_typeof(cur, VIPS_META_ICC_NAME) != 0;
  p.hdr = fmt == VIPS_FORMAT_FLOAT || fmt == VIPS_FORMAT_DOUBLE;
  // An sRGB profile (the common case) is what the pixels are taken as anyway: no round trip through lcms.
  const bool srgb_profile = icc && icc_description(cur).rfind("sRGB", 0) == 0;
  if (!p.hdr && (p.interp == VIPS_INTERPRETATION_CMYK || (icc && !srgb_profile))) {
    const bool wide = fmt != VIPS_FORMAT_UCHAR;
    step([&](VipsImage** out) {
      return vips_icc_transform(cur, out, "srgb", "embedded", TRUE, "input_profile",
                                p.interp == VIPS_INTERPRETATION_CMYK ? "cmyk" : "srgb", "intent",
                                VIPS_INTENT_RELATIVE, "depth", wide ? 16 : 8, nullptr);
    });
    p.notes.push_back(p.interp == VIPS_INTERPRETATION_CMYK ? "CMYK converted to sRGB"
                                                           : "colours converted from the embedded ICC profile to sRGB");
  } else if (p.interp == VIPS_INTERPRETATION_LAB || p.interp == VIPS_INTERPRETATION_XYZ ||
             p.interp == VIPS_INTERPRETATION_LABS || p.interp == VIPS_INTERPRETATION_LCH ||
             p.interp == VIPS_INTERPRETATION_LABQ || vips_image_get_coding(cur) == VIPS_CODING_LABQ) {
    step([&](VipsImage** out) { return vips_colourspace(p.out, out, VIPS_INTERPRETATION_sRGB, nullptr); });
  }
  fmt = vips_image_get_format(p.out);
  if (fmt == VIPS_FORMAT_DOUBLE) {
    step([&](VipsImage** out) { return vips_cast(p.out, out, VIPS_FORMAT_FLOAT, nullptr); });
    fmt = VIPS_FORMAT_FLOAT;
  }
  if (fmt == VIPS_FORMAT_SHORT || fmt == VIPS_FORMAT_CHAR || fmt == VIPS_FORMAT_INT || fmt == VIPS_FORMAT_UINT ||
      fmt == VIPS_FORMAT_COMPLEX || fmt == VIPS_FORMAT_DPCOMPLEX)
    throw ImageError(name + ": unsupported sample format in this " + format +
                     " (Redraw reads 8- and 16-bit unsigned and float samples)");
  if (vips_image_get_bands(p.out) > 4) {
    step([&](VipsImage** out) { return vips_extract_band(p.out, out, 0, "n", 4, nullptr); });
    p.notes.push_back("only the first four channels are used");
  }
  p.sample = fmt == VIPS_FORMAT_UCHAR ? 1 : fmt == VIPS_FORMAT_USHORT ? 2 : 4;
  return p;
}

using Samples = std::unique_ptr<void, void (*)(void*)>; // g_malloc'd, as libvips hands them over

/// Reads `img` band by band from the top on this thread, as far as the loader gets: returns the
/// rows read (all of them, or those above the band where the loader failed). `out` holds every row.
int32_t read_rows(VipsImage* img, uint8_t* out) {
  const int32_t w = vips_image_get_width(img), h = vips_image_get_height(img);
  const size_t row_bytes = size_t(VIPS_IMAGE_SIZEOF_LINE(img));
  const std::unique_ptr<VipsRegion, void (*)(void*)> region(vips_region_new(img), &g_object_unref);
  if (!region) return 0;
  constexpr int32_t k_band = 16;
  for (int32_t y = 0; y < h; y += k_band) {
    VipsRect r = {0, y, w, std::min(k_band, h - y)};
    if (vips_region_prepare(region.get(), &r) != 0) return y;
    for (int32_t row = 0; row < r.height; ++row)
      std::memcpy(out + size_t(y + row) * row_bytes, VIPS_REGION_ADDR(region.get(), 0, y + row), row_bytes);
  }
  return h;
}

/// A decode's samples as the pipeline hands them over, and how many rows of them are the file's.
struct Decoded {
  Samples samples{nullptr, &g_free};
  int32_t first_missing = 0; ///< the rows from here down could not be read (the height when none)
  std::string detail;        ///< what else the picture lacks, for ImageInfo::incomplete (empty when nothing)
};

/// A file libvips found cut short, read again leniently (the loader fills what is missing) and band
/// by band, so the rows above the cut are kept whatever the loader does past it.
Decoded salvage(const VipsInput& in, const std::string& name, const ImageInfo& info, int32_t w, int32_t h,
                int32_t bands, int32_t sample) {
  vips_error_clear();
  const VipsRef loaded(open_buffer(in.data(), in.size(), info.shrink, VIPS_FAIL_ON_NONE));
  if (!loaded.p) fail(name, info.format, true);
  const Pipeline p = build_pipeline(loaded.p, name, info.format);
  if (vips_image_get_width(p.out) != w || vips_image_get_height(p.out) != h || vips_image_get_bands(p.out) != bands ||
      p.sample != sample)
    throw ImageError(name + ": corrupt image (its size changed while decoding)");
  Decoded d;
  const size_t pixel_bytes = size_t(bands) * size_t(sample);
  d.samples.reset(g_malloc0(size_t(w) * size_t(h) * pixel_bytes));
  const int32_t rows = read_rows(p.out, static_cast<uint8_t*>(d.samples.get()));
  const int32_t row_block = info.format == "JPEG" ? std::max(1, 8 / std::max(1, info.shrink)) : 1;
  d.first_missing = rows < h ? rows
                             : trailing_fill_start(static_cast<const uint8_t*>(d.samples.get()), w, h, pixel_bytes,
                                                   row_block);
  vips_error_clear();
  return d;
}

/// A cut interlaced PNG: the passes that were read (png_passes.h), through the same pipeline as the
/// loader's pixels, so what was read is what the whole file gives. `samples` stays empty when libpng
/// reads the file differently from libvips (then the loader's rows are salvaged instead).
Decoded salvage_passes(const VipsInput& in, const std::string& name, VipsImage* header, int32_t w, int32_t h,
                       int32_t bands, int32_t sample) {
  Decoded d;
  PngPasses passes = read_png_passes(in.data(), in.size());
  const VipsBandFormat format = vips_image_get_format(header);
  const int header_sample = format == VIPS_FORMAT_UCHAR ? 1 : format == VIPS_FORMAT_USHORT ? 2 : 0;
  if (!passes.ok || passes.width != vips_image_get_width(header) || passes.height != vips_image_get_height(header) ||
      passes.bands != vips_image_get_bands(header) || passes.sample_bytes != header_sample)
    return d;
  const VipsRef read(vips_image_new_from_memory(passes.samples.data(), passes.samples.size(), passes.width,
                                                passes.height, passes.bands, format));
  if (!read.p) return d;
  read.p->Type = vips_image_get_interpretation(header);
  const void* icc = nullptr;
  size_t icc_size = 0;
  if (vips_image_get_typeof(header, VIPS_META_ICC_NAME) &&
      vips_image_get_blob(header, VIPS_META_ICC_NAME, &icc, &icc_size) == 0 && icc)
    vips_image_set_blob_copy(read.p, VIPS_META_ICC_NAME, icc, icc_size);
  vips_error_clear();
  const Pipeline p = build_pipeline(read.p, name, "PNG");
  if (vips_image_get_width(p.out) != w || vips_image_get_height(p.out) != h || vips_image_get_bands(p.out) != bands ||
      p.sample != sample)
    return d;
  d.samples.reset(g_malloc0(size_t(w) * size_t(h) * size_t(bands) * size_t(sample)));
  if (read_rows(p.out, static_cast<uint8_t*>(d.samples.get())) != h) {
    d.samples.reset();
    return d;
  }
  d.first_missing = passes.first_missing_row;
  if (passes.pass_cut > 0) {
    const uint64_t total = uint64_t(w) * uint64_t(h), tenths = passes.pixels_read * 1000 / total;
    d.detail = "the file is interlaced (Adam7) and ends in pass " + std::to_string(passes.pass_cut) +
               " of 7: " + std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) +
               "% of the pixels were read, the others " + (passes.first_missing_row < h ? "above the grey rows " : "") +
               "are filled in from the earlier passes (less detail)";
  }
  vips_error_clear();
  return d;
}

/// The first lines of libvips' messages, for notes.
std::vector<std::string> first_lines(const std::string& text, size_t most) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size() && out.size() < most) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, nl - at);
    if (!line.empty() && std::find(out.begin(), out.end(), line) == out.end()) out.push_back(std::move(line));
    at = nl + 1;
  }
  return out;
}

} // namespace

ImageInfo probe_vips(const uint8_t* data, size_t size, const std::string& name) {
  const VipsInput in = check_vips_input(data, size, name, DecodeLimits{std::numeric_limits<uint64_t>::max()});
  const auto lock = lock_vips();
  ImageInfo info;
  open_header(in, name, info);
  return info;
}

namespace {
/// The decoded samples (1, 2 or 4 bytes each, `bands` a pixel, in stored order) as floats in
/// [0, 1], turned as `walk` says; linear float colour (scRGB) gets the sRGB curve. Returns whether
/// a float sample was outside [0, 1] (clamped; NaN and infinities become 0).
bool to_float_image(const void* mem, int sample, int bands, bool linear, const OrientationWalk& walk, Image& img) {
  img.width = walk.out_w;
  img.height = walk.out_h;
  img.channels = bands;
  img.pixels.resize(size_t(walk.out_w) * size_t(walk.out_h) * size_t(bands));
  bool clamped = false;
  const int colour_bands = bands == 2 || bands == 4 ? bands - 1 : bands;
  for (int32_t y = 0; y < walk.out_h; ++y) {
    float* o = img.pixels.data() + size_t(y) * size_t(walk.out_w) * size_t(bands);
    int64_t src = walk.origin + int64_t(y) * walk.step_y;
    for (int32_t x = 0; x < walk.out_w; ++x, src += walk.step_x, o += bands) {
      const size_t s = size_t(src) * size_t(bands);
      if (sample == 1) {
        const auto* p = static_cast<const uint8_t*>(mem) + s;
        for (int c = 0; c < bands; ++c)
          o[c] = float(p[c]) * (1.0f / 255.0f);
      } else if (sample == 2) {
        const auto* p = static_cast<const uint16_t*>(mem) + s;
        for (int c = 0; c < bands; ++c)
          o[c] = float(p[c]) * (1.0f / 65535.0f);
      } else {
        const auto* p = static_cast<const float*>(mem) + s;
        for (int c = 0; c < bands; ++c) {
          const float v = std::isfinite(p[c]) ? p[c] : 0.0f;
          if (v > 1.0f || v < 0.0f) clamped = true;
          o[c] = linear && c < colour_bands ? linear_to_srgb(v) : std::clamp(v, 0.0f, 1.0f);
        }
      }
    }
  }
  return clamped;
}
} // namespace

Image decode_vips(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                  const DecodeOptions& options, ImageInfo& info) {
  const VipsInput in = check_vips_input(data, size, name, limits);
  const auto lock = lock_vips();
  const VipsRef head = open_header(in, name, info);
  const int stored_w = vips_image_get_width(head.p), stored_h = vips_image_get_height(head.p);
  // The header's sides and pixel count first; the memory budget below, once the size after any
  // shrink-on-load is known, and still before a single pixel is decoded.
  check_decode_size(name, uint64_t(stored_w), uint64_t(stored_h), 1, 1,
                    DecodeLimits{std::numeric_limits<uint64_t>::max()});

  const bool swap = info.orientation >= 5;
  if (info.format == "JPEG" && options.min_width > 0 && options.min_height > 0)
    info.shrink = jpeg_shrink(stored_w, stored_h, swap ? options.min_height : options.min_width,
                              swap ? options.min_width : options.min_height);
  VipsRef shrunk;
  if (info.shrink > 1) {
    shrunk.p = open_buffer(in.data(), in.size(), info.shrink);
    if (!shrunk.p) fail(name, info.format, in.cut);
  }
  const Pipeline pipeline = build_pipeline(shrunk.p ? shrunk.p : head.p, name, info.format);
  VipsImage* const cur = pipeline.out;
  const int w = vips_image_get_width(cur), h = vips_image_get_height(cur), bands = vips_image_get_bands(cur);
  const int sample = pipeline.sample;
  // HEIF and WebP decode the whole picture inside their library before libvips copies it out.
  const int copies = info.format == "HEIF" || info.format == "AVIF" || info.format == "WebP" ? 2 : 1;
  check_decode_size(name, uint64_t(w), uint64_t(h), bands, sample * copies, limits);

  Decoded decoded;
  size_t bytes = 0;
  decoded.samples.reset(vips_image_write_to_memory(cur, &bytes));
  decoded.first_missing = h;
  // libvips 8.14 may finish a pipeline whose loader failed in a tile and only log it (a cut JPEG,
  // now and then): that decode failed too.
  bool tile_failed = false;
  {
    std::lock_guard log(vips_state().log_mutex);
    for (const std::string& warning : vips_state().warnings)
      tile_failed = tile_failed || warning.find("error in tile") != std::string::npos;
  }
  const bool failed = !decoded.samples || tile_failed;
  // libjpeg reports data that ran out before the end marker only as a warning, and the decode
  // goes through: what libvips said decides as much as whether it failed.
  const bool ran_out = says_truncated(vips_messages());
  if (failed && !ran_out && !in.cut) fail(name, info.format);
  const bool cut_short = failed || ran_out || in.cut;
  const std::string warnings = cut_short ? std::string() : vips_error_buffer();
  vips_error_clear();
  // A cut interlaced PNG is read pass by pass whatever the loader made of it (it reads the rows of
  // the last pass it reached, or none).
  const bool interlaced_cut = cut_short && info.format == "PNG" && is_interlaced_png(in.data(), in.size());
  if (failed || ran_out || interlaced_cut) {
    decoded = {};
    if (interlaced_cut) decoded = salvage_passes(in, name, head.p, w, h, bands, sample);
    if (!decoded.samples) decoded = salvage(in, name, info, w, h, bands, sample);
  } else if (bytes != size_t(w) * size_t(h) * size_t(bands) * size_t(sample)) {
    throw ImageError(name + ": corrupt image (the decoder returned an unexpected size)");
  }
  if (cut_short) {
    if (info.format == "JPEG" && in.jpeg_progressive && decoded.first_missing == h)
      decoded.detail = "the file ends in scan " + std::to_string(in.jpeg_scans) +
                       " of this progressive JPEG: every row was read, but the detail of its later scans is missing "
                       "(the picture is blurred or blocky)";
    info.incomplete = missing_rows_text(name, MissingRows{decoded.first_missing, h, info.shrink,
                                                          swap ? info.width : info.height, info.orientation != 1});
    if (!decoded.detail.empty())
      info.incomplete = decoded.first_missing < h ? info.incomplete + "; " + decoded.detail : decoded.detail;
  }
  for (const std::string& line : first_lines(warnings, 3))
    info.notes.push_back("decoder warning: " + line);

  const OrientationWalk walk = orientation_walk(info.orientation, w, h);
  Image img;
  const bool clamped = to_float_image(decoded.samples.get(), sample, bands,
                                      pipeline.interp == VIPS_INTERPRETATION_scRGB, walk, img);
  if (decoded.first_missing < h) paint_missing_rows(img, walk, w, decoded.first_missing);
  info.notes.insert(info.notes.end(), pipeline.notes.begin(), pipeline.notes.end());
  if (pipeline.hdr)
    info.notes.push_back(clamped ? "HDR: values outside [0, 1] were clamped" : "HDR: float samples, none clamped");
  if (info.orientation != 1) info.notes.push_back("EXIF orientation " + std::to_string(info.orientation) + " applied");
  if (info.pages > 1) info.notes.push_back("first of " + std::to_string(info.pages) + " pages or frames");
  if (info.shrink > 1) info.notes.push_back("shrunk 1/" + std::to_string(info.shrink) + " on load");
  if (info.incomplete.empty()) {
    std::lock_guard log(vips_state().log_mutex);
    for (const std::string& warning : vips_state().warnings)
      if (warning.find("error in tile") == std::string::npos) info.notes.push_back("decoder warning: " + warning);
  }
  if (in.bad_crcs)
    info.notes.push_back(std::to_string(in.bad_crcs) + " PNG chunk(s) with a wrong CRC read anyway, as browsers do");
  return img;
}

} // namespace redraw::detail
