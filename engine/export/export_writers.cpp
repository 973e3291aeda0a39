// Row-streamed export files beside PNG: a 16-bit TIFF (libtiff, deflate) and a 32-bit float
// OpenEXR (linear light: the sRGB curve undone, as the EXR decoder applies it). Each is written to
// a temp name in the target's folder and renamed onto the target at commit(), so a failure or a
// cancel leaves no file and an earlier target untouched.
#include "engine/export/export_writers.h"

#include "engine/atomic_file.h"
#include "engine/errors.h"

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfOutputFile.h>
#include <tiffio.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

namespace redraw {

namespace {

std::string lower_extension(const std::filesystem::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return e;
}

/// The temp file, created exclusively beside the target (atomic_file.h), and its removal unless
/// renamed onto the target. The writers write through its descriptor, never reopening the name.
class TempTarget {
public:
  explicit TempTarget(const std::filesystem::path& target) : m_target(target) {
    check_writable_destination(target);
    const TempFile t = create_temp_file(target.parent_path().empty() ? "." : target.parent_path(),
                                        target.extension().string());
    if (t.fd < 0) throw IoError(target.string() + ": cannot create a file beside it (" + std::strerror(errno) + ")");
    m_temp = t.path;
    m_fd = t.fd;
  }
  ~TempTarget() {
    if (m_fd >= 0) ::close(m_fd);
    std::error_code ec;
    if (!m_done) std::filesystem::remove(m_temp, ec);
  }
  TempTarget(const TempTarget&) = delete;
  TempTarget& operator=(const TempTarget&) = delete;
  const std::filesystem::path& temp() const { return m_temp; }
  const std::filesystem::path& target() const { return m_target; }
  /// The descriptor, handed over to a writer that closes it.
  int release_fd() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }
  int fd() const { return m_fd; }
  void commit() {
    if (m_fd >= 0 && ::fsync(m_fd) != 0) throw IoError(m_target.string() + ": fsync failed (" + std::strerror(errno) + ")");
    std::error_code ec;
    std::filesystem::rename(m_temp, m_target, ec);
    if (ec) throw IoError(m_target.string() + ": cannot write (" + ec.message() + ")");
    m_done = true;
  }

private:
  std::filesystem::path m_target, m_temp;
  int m_fd = -1;
  bool m_done = false;
};

/// OpenEXR's output stream over a descriptor: the temp file is written through the descriptor it
/// was created with, never reopened by name.
class FdOStream final : public Imf::OStream {
public:
  FdOStream(int fd, const std::string& name) : Imf::OStream(name.c_str()), m_fd(fd) {}
  void write(const char c[], int n) override {
    while (n > 0) {
      const ssize_t k = ::pwrite(m_fd, c, size_t(n), off_t(m_pos));
      if (k <= 0) throw std::runtime_error(std::string("write failed: ") + std::strerror(errno));
      c += k;
      n -= int(k);
      m_pos += uint64_t(k);
    }
  }
  uint64_t tellp() override { return m_pos; }
  void seekp(uint64_t pos) override { m_pos = pos; }

private:
  int m_fd;
  uint64_t m_pos = 0;
};

class PngRows final : public RowFileWriter {
public:
  PngRows(const std::filesystem::path& f, int32_t w, int32_t h, int32_t c, int depth) : m_png(f, w, h, c, depth) {}
  void write_rows(const float* values, int32_t rows) override { m_png.write_rows(values, rows); }
  void commit() override { m_png.commit(); }

private:
  PngStreamWriter m_png;
};

class TiffRows final : public RowFileWriter {
public:
  TiffRows(const std::filesystem::path& f, int32_t w, int32_t h, int32_t c)
      : m_file(f), m_w(w), m_h(h), m_c(c), m_row(size_t(w) * size_t(c)) {
    TIFFSetErrorHandler(nullptr); // errors come back as return values, not lines on stderr
    TIFFSetWarningHandler(nullptr);
    m_tiff = TIFFFdOpen(m_file.fd(), m_file.temp().c_str(), "w");
    if (!m_tiff) throw IoError(f.string() + ": cannot write the TIFF");
    m_file.release_fd(); // TIFFClose closes it
    TIFFSetField(m_tiff, TIFFTAG_IMAGEWIDTH, uint32_t(w));
    TIFFSetField(m_tiff, TIFFTAG_IMAGELENGTH, uint32_t(h));
    TIFFSetField(m_tiff, TIFFTAG_SAMPLESPERPIXEL, uint16_t(c));
    TIFFSetField(m_tiff, TIFFTAG_BITSPERSAMPLE, uint16_t(16));
    TIFFSetField(m_tiff, TIFFTAG_PHOTOMETRIC, c >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(m_tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(m_tiff, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(m_tiff, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    TIFFSetField(m_tiff, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(m_tiff, 0));
  }
  ~TiffRows() override {
    if (m_tiff) TIFFClose(m_tiff);
  }
  void write_rows(const float* values, int32_t rows) override {
    if (m_written + rows > m_h) throw IoError(m_file.target().string() + ": more rows than the image height");
    for (int32_t r = 0; r < rows; ++r, ++m_written) {
      const float* src = values + size_t(r) * m_row.size();
      for (size_t i = 0; i < m_row.size(); ++i)
        m_row[i] = uint16_t(std::lround(std::clamp(src[i], 0.0f, 1.0f) * 65535.0f));
      if (TIFFWriteScanline(m_tiff, m_row.data(), uint32_t(m_written), 0) < 0)
        throw IoError(m_file.target().string() + ": write failed (disk full?)");
    }
  }
  void commit() override {
    if (m_written != m_h) throw IoError(m_file.target().string() + ": not every row was written");
    const bool flushed = TIFFFlush(m_tiff) == 1 && ::fsync(TIFFFileno(m_tiff)) == 0;
    TIFFClose(m_tiff);
    m_tiff = nullptr;
    if (!flushed) throw IoError(m_file.target().string() + ": write failed (disk full?)");
    m_file.commit();
  }

private:
  TempTarget m_file;
  int32_t m_w, m_h, m_c;
  int32_t m_written = 0;
  std::vector<uint16_t> m_row;
  TIFF* m_tiff = nullptr;
};

float srgb_to_linear(float v) {
  v = std::clamp(v, 0.0f, 1.0f);
  return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}

class ExrRows final : public RowFileWriter {
public:
  ExrRows(const std::filesystem::path& f, int32_t w, int32_t h, int32_t c) : m_file(f), m_w(w), m_h(h), m_c(c) {
    Imf::Header header(w, h);
    header.compression() = Imf::ZIP_COMPRESSION;
    for (const char* name : channel_names())
      header.channels().insert(name, Imf::Channel(Imf::FLOAT));
    try {
      m_stream = std::make_unique<FdOStream>(m_file.fd(), m_file.temp().string());
      m_out = std::make_unique<Imf::OutputFile>(*m_stream, header, 1);
    } catch (const std::exception& e) {
      throw IoError(f.string() + ": cannot write the OpenEXR (" + e.what() + ")");
    }
  }
  void write_rows(const float* values, int32_t rows) override {
    if (m_written + rows > m_h) throw IoError(m_file.target().string() + ": more rows than the image height");
    m_band.resize(size_t(rows) * size_t(m_w) * size_t(m_c));
    for (size_t i = 0; i < m_band.size(); ++i)
      m_band[i] = srgb_to_linear(values[i]);
    // The frame buffer is addressed by absolute row: offset the base so row m_written is m_band[0].
    const size_t xs = sizeof(float) * size_t(m_c), ys = xs * size_t(m_w);
    char* base = reinterpret_cast<char*>(m_band.data()) - ptrdiff_t(m_written) * ptrdiff_t(ys);
    Imf::FrameBuffer fb;
    const auto names = channel_names();
    for (size_t k = 0; k < names.size(); ++k)
      fb.insert(names[k], Imf::Slice(Imf::FLOAT, base + k * sizeof(float), xs, ys));
    try {
      m_out->setFrameBuffer(fb);
      m_out->writePixels(rows);
    } catch (const std::exception& e) {
      throw IoError(m_file.target().string() + ": write failed (" + e.what() + ")");
    }
    m_written += rows;
  }
  void commit() override {
    if (m_written != m_h) throw IoError(m_file.target().string() + ": not every row was written");
    m_out.reset(); // writes the line offsets and closes
    m_file.commit();
  }

private:
  std::vector<const char*> channel_names() const {
    if (m_c == 1) return {"Y"};
    if (m_c == 3) return {"R", "G", "B"};
    return {"R", "G", "B", "A"};
  }
  TempTarget m_file;
  int32_t m_w, m_h, m_c;
  int32_t m_written = 0;
  std::vector<float> m_band;
  std::unique_ptr<FdOStream> m_stream;
  std::unique_ptr<Imf::OutputFile> m_out;
};

} // namespace

bool is_export_extension(const std::filesystem::path& file) {
  const std::string e = lower_extension(file);
  return e == ".png" || e == ".tif" || e == ".tiff" || e == ".exr";
}

std::unique_ptr<RowFileWriter> open_row_writer(const std::filesystem::path& file, int32_t width, int32_t height,
                                               int32_t channels, int bit_depth) {
  if (width < 1 || height < 1) throw ConfigError("export: an empty image");
  if (channels != 1 && channels != 3 && channels != 4)
    throw ConfigError("export: unsupported channel count " + std::to_string(channels));
  const std::string e = lower_extension(file);
  if (e == ".tif" || e == ".tiff") return std::make_unique<TiffRows>(file, width, height, channels);
  if (e == ".exr") return std::make_unique<ExrRows>(file, width, height, channels);
  return std::make_unique<PngRows>(file, width, height, channels, bit_depth);
}

} // namespace redraw
