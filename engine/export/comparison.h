#pragma once
/// The side-by-side "neural upscaler" picture: the original image upscaled bicubically on the
/// left, the network's redraw at the same size on the right (2w x h in all).
/// - Memory: comparison_image holds the whole result; export_comparison_png streams the network
///   half band by band and holds only the upscaled original (w * h * channels floats, so w * h is
///   limited to k_max_comparison_pixels: 64 Mpixel, 768 MiB for RGB) plus one render band.
#include "engine/images/image.h"
#include "engine/frames/renderer.h"

#include <filesystem>

namespace redraw {

constexpr int64_t k_max_comparison_pixels = int64_t(1) << 26; ///< per half

/// The original as the network sees its colours: alpha composited, converted to the run's colour
/// mode (binary is shown as grey, before thresholding), at its native size.
Image comparison_original(const Image& raw, const DataSpec& data);

/// [original upscaled with resize_bicubic | render] as one 2w x h image. `original` must have
/// the network's channel count (comparison_original gives that). ConfigError otherwise.
Image comparison_image(Backend& backend, const NetworkView& net, const Image& original, int32_t w, int32_t h,
                       const RenderOptions& opts = {});

/// The same picture streamed to a PNG (8 or 16 bit) atomically; IoError naming `out` before any
/// rendering when it cannot be written; CancelledError through opts.progress.
void export_comparison_png(Backend& backend, const NetworkView& net, const Image& original, int32_t w, int32_t h,
                           const std::filesystem::path& out, int bit_depth = 8, const RenderOptions& opts = {});

} // namespace redraw
