// JPEG decoding with libjpeg-turbo. Its errors arrive by longjmp from error_exit, so every libjpeg
// call happens inside read_jpeg(), which owns the setjmp and holds no C++ object with a destructor.
#include "engine/errors.h"
#include "engine/image_decoders.h"

#include <cstdio> // jpeglib.h needs FILE and size_t first
#include <jerror.h>
#include <jpeglib.h>

#include <csetjmp>
#include <exception>
#include <vector>

namespace redraw::detail {

namespace {

/// A progressive JPEG may hold thousands of tiny scans, each one a pass over the whole image
/// (a known way to make a small file take minutes); real encoders write about ten.
constexpr int k_max_scans = 500;

struct JpegRead {
  jpeg_decompress_struct cinfo{};
  jpeg_error_mgr err{};
  jpeg_progress_mgr progress{};
  std::jmp_buf jump;
  bool created = false;
  bool truncated = false; ///< libjpeg warned that the data ended early (it would fill in grey)
  char message[JMSG_LENGTH_MAX] = {};
  const std::string* name = nullptr;
  const DecodeLimits* limits = nullptr;
  std::exception_ptr size_error;
  Image* out = nullptr;
  std::vector<JSAMPLE> row;

  ~JpegRead() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

JpegRead& state_of(j_common_ptr c) { return *static_cast<JpegRead*>(c->client_data); }

[[noreturn]] void on_error_exit(j_common_ptr c) {
  JpegRead& r = state_of(c);
  c->err->format_message(c, r.message);
  std::longjmp(r.jump, 1);
}

void on_message(j_common_ptr c, int level) {
  // Warnings (level -1) about corrupt data are common in real files and harmless; running out of
  // data is not: the rest of the picture would be grey.
  if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF) state_of(c).truncated = true;
}

void on_progress(j_common_ptr c) {
  auto* d = reinterpret_cast<j_decompress_ptr>(c);
  if (d->is_decompressor && d->progressive_mode && d->input_scan_number > k_max_scans) {
    JpegRead& r = state_of(c);
    std::snprintf(r.message, sizeof r.message, "more than %d progressive scans", k_max_scans);
    std::longjmp(r.jump, 1);
  }
}

bool read_jpeg(JpegRead& r, const uint8_t* data, size_t size) {
  jpeg_decompress_struct& ci = r.cinfo;
  if (setjmp(r.jump)) return false;
  jpeg_create_decompress(&ci);
  r.created = true;
  ci.client_data = &r;
  ci.progress = &r.progress;
  ci.mem->max_memory_to_use = long(std::min<uint64_t>(r.limits->max_bytes, uint64_t(LONG_MAX)));
  jpeg_mem_src(&ci, data, static_cast<unsigned long>(size));
  jpeg_read_header(&ci, TRUE);
  const bool cmyk = ci.jpeg_color_space == JCS_CMYK || ci.jpeg_color_space == JCS_YCCK;
  ci.out_color_space = ci.num_components == 1 ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
  const int channels = ci.num_components == 1 ? 1 : 3;
  try {
    // 2 bytes per sample: one decoded row set, or a progressive file's coefficients.
    check_decode_size(*r.name, ci.image_width, ci.image_height, channels, 2, *r.limits);
  } catch (...) {
    r.size_error = std::current_exception();
    return false;
  }
  jpeg_start_decompress(&ci);
  if (r.truncated) return false;
  const int components = ci.output_components;
  if ((components != 1 && components != 3 && components != 4) || (components == 4) != cmyk) {
    std::snprintf(r.message, sizeof r.message, "unsupported colour format (%d components)", components);
    return false;
  }
  try {
    r.row.resize(size_t(ci.output_width) * size_t(components));
    r.out->width = int32_t(ci.output_width);
    r.out->height = int32_t(ci.output_height);
    r.out->channels = channels;
    r.out->pixels.resize(size_t(ci.output_width) * ci.output_height * size_t(channels));
  } catch (...) {
    r.size_error = std::current_exception();
    return false;
  }
  // Adobe writes CMYK inverted (the common case); the others plain.
  const bool inverted = ci.saw_Adobe_marker;
  while (ci.output_scanline < ci.output_height) {
    const size_t y = ci.output_scanline;
    JSAMPROW rows[1] = {r.row.data()};
    if (jpeg_read_scanlines(&ci, rows, 1) != 1) break;
    float* o = r.out->pixels.data() + y * size_t(ci.output_width) * size_t(channels);
    if (components == 4) {
      for (size_t x = 0; x < ci.output_width; ++x) {
        const JSAMPLE* p = r.row.data() + 4 * x;
        const float k = (inverted ? p[3] : 255 - p[3]) / 255.0f;
        for (int c = 0; c < 3; ++c)
          o[3 * x + size_t(c)] = (inverted ? p[c] : 255 - p[c]) / 255.0f * k;
      }
    } else {
      for (size_t i = 0; i < r.row.size(); ++i)
        o[i] = float(r.row[i]) / 255.0f;
    }
  }
  if (r.truncated || ci.output_scanline < ci.output_height) {
    r.truncated = true;
    return false;
  }
  jpeg_abort_decompress(&ci); // everything is read: what follows the last scan does not matter
  return true;
}

} // namespace

Image decode_jpeg(const uint8_t* data, size_t size, const std::string& name, const DecodeLimits& limits) {
  Image img;
  JpegRead r;
  r.name = &name;
  r.limits = &limits;
  r.out = &img;
  r.cinfo.err = jpeg_std_error(&r.err);
  r.err.error_exit = on_error_exit;
  r.err.emit_message = on_message;
  r.progress.progress_monitor = on_progress;
  r.cinfo.client_data = &r;
  if (!read_jpeg(r, data, size)) {
    if (r.size_error) std::rethrow_exception(r.size_error);
    if (r.truncated) throw ImageError(name + ": corrupt or truncated image: the file ends before the image does");
    throw ImageError(name + ": corrupt or truncated image: the JPEG is damaged (" + std::string(r.message) + ")");
  }
  return img;
}

} // namespace redraw::detail
