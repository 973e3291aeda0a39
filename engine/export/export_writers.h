#pragma once
/// Export files streamed row band by row band, chosen by the target's extension:
/// - .png: 8- or 16-bit PNG (PngStreamWriter);
/// - .tif / .tiff: 16-bit TIFF (deflate, no colour profile: sRGB);
/// - .exr: 32-bit float OpenEXR in linear light (the sRGB curve undone, so a viewer shows the
///   same picture; channels Y, RGB or RGBA).
/// Values are clamped to [0, 1]. The file appears at commit(); a writer destroyed before that
/// (an error, a cancel) leaves no file, and an earlier file at the target is untouched.
#include "engine/images/image.h"

#include <filesystem>
#include <memory>

namespace redraw {

class RowFileWriter {
public:
  virtual ~RowFileWriter() = default;
  /// Appends `rows` rows of width * channels floats. IoError on a write failure.
  virtual void write_rows(const float* values, int32_t rows) = 0;
  /// Finishes the file and renames it onto the target; every row must have been written.
  virtual void commit() = 0;
};

/// True for the extensions open_row_writer writes (.png, .tif, .tiff, .exr; any case).
bool is_export_extension(const std::filesystem::path& file);
/// The writer for `file`'s extension (PNG for any other). `bit_depth` (8 or 16) is PNG's; TIFF is
/// always 16-bit and EXR 32-bit float. IoError when the folder is missing or not writable.
std::unique_ptr<RowFileWriter> open_row_writer(const std::filesystem::path& file, int32_t width, int32_t height,
                                               int32_t channels, int bit_depth);

} // namespace redraw
