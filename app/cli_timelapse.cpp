// `redraw timelapse MODEL --size WxH [--fps N] [--overlay] -o OUT.gif|OUT.mp4|DIR/`
#include "app/backend_registry.h"
#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "engine/display_text.h"
#include "engine/model_files/checkpoint.h"
#include "engine/errors.h"
#include "engine/model_files/model_check.h"
#include "engine/training/open_run.h"
#include "engine/export/timelapse_export.h"

#include <cstdio>

namespace redraw::cli {

int run_timelapse(const TimelapseCommand& o) {
  if (o.out.empty()) throw UsageError("-o: an output OUT.gif, OUT.mp4 or folder DIR/ is required");
  if (!(o.fps > 0)) throw UsageError("--fps: must be positive");
  TimelapseFormat format;
  try {
    format = timelapse_format_for(o.out);
  } catch (const ConfigError& e) {
    throw UsageError(std::string("-o: ") + e.what());
  }
  // A GIF stores its size in 16 bits; every frame is at most k_max_image_pixels.
  const SizeLimit limit{format == TimelapseFormat::Gif ? 65535 : k_max_render_side, k_max_image_pixels};
  int32_t size_w = 0, size_h = 0;
  if (!o.size.empty()) parse_size(o.size, "--size", limit, size_w, size_h); // before reading the model
  const Checkpoint c = open_model(o.model);
  if (c.snapshots.empty())
    throw CheckpointError(o.model + ": has no timelapse snapshots (it was saved without them; train it again)");
  for (const auto& s : c.snapshots)
    if (count_nonfinite(frame_weights(s)) > 0)
      throw CheckpointError(o.model + ": the snapshot of step " + std::to_string(s.metrics.step) +
                            " has non-finite weights (the run that wrote it diverged)");
  const int32_t w = size_w > 0 ? size_w : c.image_width, h = size_w > 0 ? size_h : c.image_height;
  if (format == TimelapseFormat::Gif && o.fps > 50)
    print_note("GIF plays at most 50 frames per second; frames get 1/50 s each");
  check_timelapse_destination(o.out, format); // before any rendering

  const OpenedNetwork net = open_network(c, backend_factory(), o.backend, o.precision);
  if (!net.backend_notice.empty()) print_note(net.backend_notice);

  install_interrupt_handler();
  Progress progress("timelapse");
  const size_t n = c.snapshots.size();
  TimelapseOptions opts;
  opts.width = w;
  opts.height = h;
  opts.fps = o.fps;
  opts.overlay = o.overlay;
  opts.format = format;
  opts.progress = [&](double f) {
    const size_t frame = std::min(n, size_t(f * double(n)) + 1);
    progress.update(f, "frame " + std::to_string(frame) + "/" + std::to_string(n) + " at " + std::to_string(w) + "x" +
                           std::to_string(h));
    return !interrupted();
  };
  export_timelapse(*net.backend, net.model, net.fourier_b, c.snapshots, o.out, opts);
  progress.finish();
  if (interrupted()) return interrupted_exit_code();
  std::printf("timelapse: %zu frames (steps %lld..%lld) at %dx%d, %g fps, %s -> %s\n", n,
              static_cast<long long>(c.snapshots.front().metrics.step),
              static_cast<long long>(c.snapshots.back().metrics.step), w, h, o.fps, timelapse_format_name(format),
              escape_control(o.out).c_str());
  return k_exit_ok;
}

} // namespace redraw::cli
