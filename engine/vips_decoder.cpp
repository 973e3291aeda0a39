// Decoding through libvips 8.14: PNG, JPEG, WebP, TIFF, HEIF/AVIF. Only those loaders are
// enabled; every other one (the untrusted ones, ImageMagick's catch-all, PDF, SVG, ...) is blocked
// once at start-up. Decodes are serialised (one mutex), so libvips' process-wide error buffer and
// the warnings it logs belong to the decode under way.
#include "engine/errors.h"
#include "engine/image_decoders.h"

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

[[noreturn]] void fail(const std::string& name, const std::string& format) {
  const std::string why = take_vips_error();
  std::string lower = why;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const char* cut : {"premature end", "truncated", "end of file", "not enough data", "unexpected end",
                          "read error", "out of data", "too short"})
    if (lower.find(cut) != std::string::npos)
      throw ImageError(name + ": corrupt or truncated image: the file ends before the image does (" + why + ")");
  throw ImageError(name + ": corrupt or truncated image: the " + format + " is damaged (" + why + ")");
}

std::string format_of(const char* loader, VipsImage* header) {
  const std::string l = loader;
  if (l.find("Jpeg") != std::string::npos) return "JPEG";
  if (l.find("Png") != std::string::npos) return "PNG";
  if (l.find("Webp") != std::string::npos) return "WebP";
  if (l.find("Tiff") != std::string::npos) return "TIFF";
  if (l.find("Heif") != std::string::npos) {
    const char* compression = nullptr;
    if (header && vips_image_get_typeof(header, "heif-compression") &&
        vips_image_get_string(header, "heif-compression", &compression) == 0 && compression &&
        std::strcmp(compression, "av1") == 0)
      return "AVIF";
    return "HEIF";
  }
  return "";
}

VipsImage* open_buffer(const uint8_t* data, size_t size, int shrink) {
  if (shrink > 1)
    return vips_image_new_from_buffer(data, size, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on",
                                      VIPS_FAIL_ON_TRUNCATED, "shrink", shrink, nullptr);
  return vips_image_new_from_buffer(data, size, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                    nullptr);
}

/// The ICC profile's description tag ('desc', a v2 textDescriptionType or a v4 multiLocalizedUnicode).
std::string icc_description(VipsImage* image) {
  const void* data = nullptr;
  size_t size = 0;
  if (vips_image_get_blob(image, VIPS_META_ICC_NAME, &data, &size) != 0 || !data || size < 132) {
    vips_error_clear();
    return "";
  }
  const auto* p = static_cast<const uint8_t*>(data);
  const auto be32 = [&](size_t o) {
    return o + 4 <= size ? (uint32_t(p[o]) << 24) | (uint32_t(p[o + 1]) << 16) | (uint32_t(p[o + 2]) << 8) | p[o + 3]
                         : 0u;
  };
  const uint32_t tags = be32(128);
  for (uint32_t t = 0; t < tags && t < 256; ++t) {
    const size_t e = 132 + size_t(t) * 12;
    if (e + 12 > size) break;
    if (std::memcmp(p + e, "desc", 4) != 0) continue;
    const size_t off = be32(e + 4), len = be32(e + 8);
    if (off + len > size || len < 12) break;
    std::string out;
    if (std::memcmp(p + off, "desc", 4) == 0) { // ASCII count then text
      const size_t n = std::min<size_t>(be32(off + 8), len - 12);
      for (size_t i = 0; i < n && p[off + 12 + i]; ++i)
        out += char(p[off + 12 + i]);
    } else if (std::memcmp(p + off, "mluc", 4) == 0 && len >= 28) { // first record, UTF-16BE
      const size_t n = be32(off + 20), o = be32(off + 24);
      for (size_t i = 0; i + 1 < n && off + o + i + 1 < size && off + o + i + 1 < off + len; i += 2)
        if (p[off + o + i] == 0 && p[off + o + i + 1] >= 32 && p[off + o + i + 1] < 127)
          out += char(p[off + o + i + 1]);
    }
    return out.substr(0, 80);
  }
  return "";
}

void fill_info(VipsImage* h, const char* loader, ImageInfo& info) {
  info.format = format_of(loader, h);
  int orientation = 1;
  if (vips_image_get_typeof(h, VIPS_META_ORIENTATION) &&
      vips_image_get_int(h, VIPS_META_ORIENTATION, &orientation) == 0 && orientation >= 1 && orientation <= 8)
    info.orientation = orientation;
  vips_error_clear();
  const int w = vips_image_get_width(h), hh = vips_image_get_height(h);
  info.width = info.orientation >= 5 ? hh : w;
  info.height = info.orientation >= 5 ? w : hh;
  info.channels = vips_image_get_bands(h);
  const VipsBandFormat f = vips_image_get_format(h);
  info.bits = f == VIPS_FORMAT_USHORT || f == VIPS_FORMAT_SHORT                         ? 16
              : f == VIPS_FORMAT_FLOAT || f == VIPS_FORMAT_UINT || f == VIPS_FORMAT_INT ? 32
              : f == VIPS_FORMAT_DOUBLE                                                 ? 64
                                                                                        : 8;
  const VipsInterpretation in = vips_image_get_interpretation(h);
  const bool icc = vips_image_get_typeof(h, VIPS_META_ICC_NAME) != 0;
  if (in == VIPS_INTERPRETATION_CMYK)
    info.colour = icc ? "CMYK, ICC profile: " + icc_description(h) : "CMYK (no profile: a generic CMYK one is assumed)";
  else if (icc)
    info.colour = "ICC profile: " + icc_description(h);
  else if (in == VIPS_INTERPRETATION_scRGB)
    info.colour = "linear (scRGB)";
  else if (in == VIPS_INTERPRETATION_B_W || in == VIPS_INTERPRETATION_GREY16)
    info.colour = "grey (sRGB assumed)";
  else
    info.colour = "sRGB (no profile)";
  info.pages = std::max(1, vips_image_get_n_pages(h));
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
VipsRef open_header(const uint8_t* data, size_t size, const std::string& name, ImageInfo& info) {
  vips_error_clear();
  {
    std::lock_guard log(vips_state().log_mutex);
    vips_state().warnings.clear();
  }
  const char* loader = vips_foreign_find_load_buffer(data, size);
  if (!loader || format_of(loader, nullptr).empty()) {
    vips_error_clear();
    throw ImageError(name + ": not a readable image (unknown format)");
  }
  VipsRef head(open_buffer(data, size, 1));
  if (!head.p) fail(name, format_of(loader, nullptr));
  fill_info(head.p, loader, info);
  return head;
}

} // namespace

ImageInfo probe_vips(const uint8_t* data, size_t size, const std::string& name) {
  const auto lock = lock_vips();
  ImageInfo info;
  open_header(data, size, name, info);
  return info;
}

Image decode_vips(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits,
                  const DecodeOptions& options, ImageInfo& info) {
  const auto lock = lock_vips();
  VipsState& state = vips_state();
  const VipsRef head = open_header(data, size, name, info);
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
    shrunk.p = open_buffer(data, size, info.shrink);
    if (!shrunk.p) fail(name, info.format);
  }
  VipsImage* cur = shrunk.p ? shrunk.p : head.p;
  std::vector<std::unique_ptr<VipsRef>> steps;
  // One libvips operation from `cur` to a new image, which becomes `cur`.
  const auto step = [&](const auto& operation) {
    VipsImage* out = nullptr;
    if (operation(&out) != 0 || !out) fail(name, info.format);
    steps.push_back(std::make_unique<VipsRef>(out));
    cur = out;
  };

  VipsBandFormat fmt = vips_image_get_format(cur);
  const VipsInterpretation interp = vips_image_get_interpretation(cur);
  const bool icc = vips_image_get_typeof(cur, VIPS_META_ICC_NAME) != 0;
  bool hdr = fmt == VIPS_FORMAT_FLOAT || fmt == VIPS_FORMAT_DOUBLE;
  // An sRGB profile (the common case) is what the pixels are taken as anyway: no round trip through lcms.
  const bool srgb_profile = icc && icc_description(cur).rfind("sRGB", 0) == 0;
  if (!hdr && (interp == VIPS_INTERPRETATION_CMYK || (icc && !srgb_profile))) {
    const bool wide = fmt != VIPS_FORMAT_UCHAR;
    step([&](VipsImage** out) {
      return vips_icc_transform(cur, out, "srgb", "embedded", TRUE, "input_profile",
                                interp == VIPS_INTERPRETATION_CMYK ? "cmyk" : "srgb", "intent", VIPS_INTENT_RELATIVE,
                                "depth", wide ? 16 : 8, nullptr);
    });
    info.notes.push_back(interp == VIPS_INTERPRETATION_CMYK
                             ? "CMYK converted to sRGB"
                             : "colours converted from the embedded ICC profile to sRGB");
  } else if (interp == VIPS_INTERPRETATION_LAB || interp == VIPS_INTERPRETATION_XYZ ||
             interp == VIPS_INTERPRETATION_LABS || interp == VIPS_INTERPRETATION_LCH) {
    step([&](VipsImage** out) { return vips_colourspace(cur, out, VIPS_INTERPRETATION_sRGB, nullptr); });
  }
  fmt = vips_image_get_format(cur);
  if (fmt == VIPS_FORMAT_DOUBLE) {
    step([&](VipsImage** out) { return vips_cast(cur, out, VIPS_FORMAT_FLOAT, nullptr); });
    fmt = VIPS_FORMAT_FLOAT;
  }
  if (fmt == VIPS_FORMAT_SHORT || fmt == VIPS_FORMAT_CHAR || fmt == VIPS_FORMAT_INT || fmt == VIPS_FORMAT_UINT ||
      fmt == VIPS_FORMAT_COMPLEX || fmt == VIPS_FORMAT_DPCOMPLEX)
    throw ImageError(name + ": unsupported sample format in this " + info.format +
                     " (Redraw reads 8- and 16-bit unsigned and float samples)");
  if (vips_image_get_bands(cur) > 4) {
    step([&](VipsImage** out) { return vips_extract_band(cur, out, 0, "n", 4, nullptr); });
    info.notes.push_back("only the first four channels are used");
  }
  const int w = vips_image_get_width(cur), h = vips_image_get_height(cur), bands = vips_image_get_bands(cur);
  const int sample = fmt == VIPS_FORMAT_UCHAR ? 1 : fmt == VIPS_FORMAT_USHORT ? 2 : 4;
  // HEIF and WebP decode the whole picture inside their library before libvips copies it out.
  const int copies = info.format == "HEIF" || info.format == "AVIF" || info.format == "WebP" ? 2 : 1;
  check_decode_size(name, uint64_t(w), uint64_t(h), bands, sample * copies, limits);

  size_t bytes = 0;
  const std::unique_ptr<void, void (*)(void*)> mem(vips_image_write_to_memory(cur, &bytes), &g_free);
  if (!mem) fail(name, info.format);
  // libvips 8.14 may finish a pipeline whose loader failed in a tile and only log it (a cut JPEG,
  // now and then): that decode failed too.
  bool tile_failed = false;
  {
    std::lock_guard log(state.log_mutex);
    for (const std::string& w : state.warnings)
      tile_failed = tile_failed || w.find("error in tile") != std::string::npos;
  }
  if (tile_failed) fail(name, info.format);
  if (bytes != size_t(w) * size_t(h) * size_t(bands) * size_t(sample))
    throw ImageError(name + ": corrupt image (the decoder returned an unexpected size)");

  const OrientationWalk walk = orientation_walk(info.orientation, w, h);
  Image img;
  img.width = walk.out_w;
  img.height = walk.out_h;
  img.channels = bands;
  img.pixels.resize(size_t(w) * size_t(h) * size_t(bands));
  const bool linear = interp == VIPS_INTERPRETATION_scRGB;
  bool clamped = false;
  const int colour_bands = bands == 2 || bands == 4 ? bands - 1 : bands;
  for (int32_t y = 0; y < walk.out_h; ++y) {
    float* o = img.pixels.data() + size_t(y) * size_t(walk.out_w) * size_t(bands);
    int64_t src = walk.origin + int64_t(y) * walk.step_y;
    for (int32_t x = 0; x < walk.out_w; ++x, src += walk.step_x, o += bands) {
      const size_t s = size_t(src) * size_t(bands);
      if (sample == 1) {
        const auto* p = static_cast<const uint8_t*>(mem.get()) + s;
        for (int c = 0; c < bands; ++c)
          o[c] = float(p[c]) * (1.0f / 255.0f);
      } else if (sample == 2) {
        const auto* p = static_cast<const uint16_t*>(mem.get()) + s;
        for (int c = 0; c < bands; ++c)
          o[c] = float(p[c]) * (1.0f / 65535.0f);
      } else {
        const auto* p = static_cast<const float*>(mem.get()) + s;
        for (int c = 0; c < bands; ++c) {
          const float v = std::isfinite(p[c]) ? p[c] : 0.0f;
          if (v > 1.0f || v < 0.0f) clamped = true;
          o[c] = linear && c < colour_bands ? linear_to_srgb(v) : std::clamp(v, 0.0f, 1.0f);
        }
      }
    }
  }
  if (hdr)
    info.notes.push_back(clamped ? "HDR: values outside [0, 1] were clamped" : "HDR: float samples, none clamped");
  if (info.orientation != 1) info.notes.push_back("EXIF orientation " + std::to_string(info.orientation) + " applied");
  if (info.pages > 1) info.notes.push_back("first of " + std::to_string(info.pages) + " pages or frames");
  if (info.shrink > 1) info.notes.push_back("shrunk 1/" + std::to_string(info.shrink) + " on load");
  std::lock_guard log(state.log_mutex);
  for (const std::string& warning : state.warnings)
    info.notes.push_back("decoder warning: " + warning);
  return img;
}

} // namespace redraw::detail
