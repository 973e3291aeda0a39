// libFuzzer target: load a model (CRC fixed up), then render it and its last snapshot small on the
// CPU backend, as `redraw render` does. Models with huge networks are skipped (they are valid, just slow).
#include "engine/model_files/checkpoint.h"
#include "cpu/cpu_backend.h"
#include "engine/errors.h"
#include "engine/frames/renderer.h"
#include "fuzz_support.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::optional<redraw::Checkpoint> read = redraw::fuzz::read_checkpoint(data, size);
  if (!read) return 0;
  const redraw::Checkpoint& c = *read;
  if (redraw::parameter_count(c.config.model) > 200000 || c.config.model.encoding.width() > 512) return 0;
  if (redraw::count_nonfinite(c.params) > 0) return 0; // `redraw render` refuses these before rendering
  static redraw::CpuBackend backend;
  const std::vector<float> fourier_b = redraw::fourier_matrix(c.config.model.encoding, c.config.training.seed);
  try {
    const redraw::NetworkView view{&c.config.model, c.params, fourier_b};
    const redraw::Image img = redraw::render_image(backend, view, 7, 5);
    if (img.pixels.size() != size_t(7 * 5 * img.channels)) std::abort();
  } catch (const redraw::Error&) {
  }
  return 0;
}
