#pragma once
/// Exporting one reconstruction at any size to a PNG (or, by the file's extension, a 16-bit TIFF
/// or a 32-bit float OpenEXR: engine/export/export_writers.h), streamed band by band (no whole image).
/// - Memory: one render band (RenderOptions::max_tile_pixels pixels: coordinates, outputs and the
///   backend's per-call workspace) plus one packed PNG band and zlib's state, whatever w x h is.
///   Measured on the CPU: a 16384 x 16384 8-bit export peaks at about 20 MiB resident for a small
///   network and under 80 MiB for the classic 99,457-parameter one (bench/export_bench.cpp).
/// - The destination is checked before rendering; the file appears atomically at the end, and a
///   cancel (progress returning false -> CancelledError) or an error leaves no file behind.
/// - Threading: blocking; call it from a worker thread in the GUI and cancel through progress.
#include "engine/frames/renderer.h"

#include <filesystem>

namespace redraw {

/// Renders `net` at w x h into an 8- or 16-bit PNG at `out` (.tif/.tiff: 16-bit TIFF; .exr: float EXR). IoError naming `out` when it cannot
/// be written, ConfigError for a bad size or bit depth, CancelledError when cancelled.
void export_render_png(Backend& backend, const NetworkView& net, int32_t w, int32_t h, const std::filesystem::path& out,
                       int bit_depth = 8, const RenderOptions& opts = {});

} // namespace redraw
