#include "app/backend_registry.h"
#include "app/cli_commands.h"
#include "app/cli_common.h"
#include "app/cli_version.h"
#include "engine/atomic_file.h"
#include "engine/model_files/checkpoint.h"
#include "engine/export/comparison.h"
#include "engine/display_text.h"
#include "engine/errors.h"
#include "engine/metric_columns.h"
#include "engine/model_files/model_check.h"
#include "engine/training/open_run.h"
#include "engine/training/preset_match.h"
#include "engine/export/render_export.h"
#include "engine/frames/renderer.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace redraw::cli {

namespace {

/// The parameters' fingerprint as 16 hex digits.
std::string fingerprint_hex(std::span<const float> params) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(parameter_fingerprint(params)));
  return buf;
}
/// The parameters of snapshot K (0-based; -1 = the last), or the final weights when K is absent.
std::vector<float> pick_params(const Checkpoint& c, const std::optional<int64_t>& k, const std::string& file,
                                      int64_t& step) {
  step = c.step;
  if (!k) return c.params;
  const int64_t n = int64_t(c.snapshots.size());
  if (n == 0) throw UsageError("--snapshot: " + file + " has no timelapse snapshots");
  const int64_t i = *k < 0 ? n + *k : *k;
  if (i < 0 || i >= n)
    throw UsageError("--snapshot: " + std::to_string(*k) + " is out of range (" + file + " has " + std::to_string(n) +
                     " snapshots, 0.." + std::to_string(n - 1) + ")");
  const Snapshot& s = c.snapshots[size_t(i)];
  step = s.metrics.step;
  if (!has_weights(s)) {
    std::string keys;
    for (size_t j = 0; j < c.snapshots.size(); ++j)
      if (has_weights(c.snapshots[j])) keys += (keys.empty() ? "" : ", ") + std::to_string(j);
    throw UsageError("--snapshot: frame " + std::to_string(i) + " (step " + std::to_string(step) + ") of " + file +
                     " is a picture only; the frames with weights are " + (keys.empty() ? "none" : keys));
  }
  return frame_weights(s);
}
} // namespace

int run_render(const RenderCommand& o) {
  if (o.bit_depth != 8 && o.bit_depth != 16) throw UsageError("--bit-depth: must be 8 or 16");
  if (o.out.empty()) throw UsageError("-o: an output .png file is required");
  require_png_extension(o.out, "-o");
  // A PNG holds at most k_max_image_pixels; a comparison is 2w x h and keeps its w x h original in memory.
  const SizeLimit limit = o.compare.empty() ? SizeLimit{k_max_render_side, k_max_image_pixels}
                                            : SizeLimit{k_max_render_side / 2, k_max_comparison_pixels};
  int32_t size_w = 0, size_h = 0;
  if (!o.size.empty()) parse_size(o.size, "--size", limit, size_w, size_h); // before reading the model
  const Checkpoint c = open_model(o.model);
  const int32_t w = size_w > 0 ? size_w : c.image_width, h = size_w > 0 ? size_h : c.image_height;
  int64_t step = 0;
  const std::vector<float>& params = pick_params(c, o.snapshot, o.model, step);
  if (const int64_t bad = count_nonfinite(params); bad > 0)
    throw CheckpointError(o.model + ": " + std::to_string(bad) + " of its " + std::to_string(params.size()) +
                          " weights are not finite (the run that wrote it diverged); it would render as a blank "
                          "picture. Resume from an earlier checkpoint or train again");
  check_writable_destination(o.out);

  const OpenedNetwork net = open_network(c, backend_factory(), o.backend, o.precision);
  if (!net.backend_notice.empty()) print_note(net.backend_notice);
  Backend& backend = *net.backend;
  const NetworkView view = net.view(params);

  install_interrupt_handler();
  Progress progress("render");
  redraw::RenderOptions ro;
  ro.progress = [&](double f) {
    progress.update(f, std::to_string(w) + "x" + std::to_string(h));
    return !interrupted();
  };
  if (!o.compare.empty()) {
    const Image original =
        comparison_original(load_image(o.compare, decode_limits(o.max_image_memory_mb)), c.config.data);
    export_comparison_png(backend, view, original, w, h, o.out, o.bit_depth, ro);
    progress.finish();
    std::printf("compared %s (bicubic) with step %lld at %dx%d each (%dx%d, %d-bit) -> %s\n", escape_control(o.compare).c_str(),
                static_cast<long long>(step), w, h, 2 * w, h, o.bit_depth, escape_control(o.out).c_str());
    return k_exit_ok;
  }
  export_render_png(backend, view, w, h, o.out, o.bit_depth, ro);
  progress.finish();
  if (interrupted()) return interrupted_exit_code(); // the signal came after the last band
  std::printf("rendered step %lld at %dx%d (%d-bit) -> %s\n", static_cast<long long>(step), w, h, o.bit_depth,
              escape_control(o.out).c_str());
  return k_exit_ok;
}

namespace {
/// The last history row by metric column (engine/metric_columns.h): a number, text, or null for
/// one that is not finite; null without a history.
nlohmann::json last_metrics_json(const Checkpoint& c) {
  if (c.history.empty()) return nullptr;
  nlohmann::json j = nlohmann::json::object();
  for (const MetricColumn& col : k_metric_columns) {
    const MetricsRow& r = c.history.back();
    if (col.kind == MetricKind::Integer) j[col.name] = col.get_i64(r);
    else if (col.kind == MetricKind::Text) j[col.name] = col.text(r);
    else j[col.name] = std::isfinite(col.get(r)) ? nlohmann::json(col.get(r)) : nlohmann::json(nullptr);
  }
  return j;
}

/// The last history row as metrics.csv writes it: "name value" per column.
std::string last_metrics_text(const Checkpoint& c) {
  if (c.history.empty()) return "n/a";
  std::string s;
  for (const MetricColumn& col : k_metric_columns)
    s += (s.empty() ? "" : ", ") + std::string(col.name) + " " + metric_cell(col, c.history.back());
  return s;
}
} // namespace

int run_info(const InfoCommand& o) {
  if (!o.backends && is_image_path(o.model)) return run_image_info(o.model, o.json);
  if (o.backends || o.model.empty()) {
    std::printf("%s\n%s", version_line().c_str(), describe_backends().c_str());
    if (o.model.empty()) return k_exit_ok;
  }
  // Read as it is (a damaged model can still be inspected), then checked: every problem is listed.
  const Checkpoint c = load_checkpoint(o.model);
  const std::vector<ModelIssue> issues = check_model(c);
  const double psnr = c.history.empty() ? 0.0 : c.history.back().psnr_db;
  const int64_t nonfinite = count_nonfinite(c);
  const std::string model_name = escape_control(o.model);
  const auto fail = [&] {
    print_error(model_name + ": " + issues.front().field + ": " + elide(issues.front().what, 300) +
                "; the model cannot be rendered or resumed");
    return k_exit_failure;
  };
  if (o.json) {
    nlohmann::json problems = nlohmann::json::array();
    for (const auto& i : issues) problems.push_back({{"field", i.field}, {"problem", i.what}});
    nlohmann::json j = {{"config", to_json(c.config)},
                        {"preset", preset_label(c.config)},
                        {"parameters", parameter_count(c.config.model)},
                        {"weights_fingerprint", fingerprint_hex(c.params)},
                        {"step", c.step},
                        {"seconds", c.seconds},
                        {"image_width", c.image_width},
                        {"image_height", c.image_height},
                        {"source_image", c.source_image},
                        {"snapshots", c.snapshots.size()},
                        {"last_psnr_db", std::isfinite(psnr) ? nlohmann::json(psnr) : nlohmann::json(nullptr)},
                        {"exact_fit", std::isinf(psnr) && psnr > 0},
                        {"last_psnr_from", c.history.empty() ? nlohmann::json(nullptr)
                                                             : nlohmann::json(psnr_source(c.history.back()))},
                        {"last_metrics", last_metrics_json(c)},
                        {"nonfinite_values", nonfinite},
                        {"problems", problems},
                        {"lr_scale", c.lr_scale},
                        {"recoveries", c.recoveries.size()}};
    // JSON escapes control characters; bytes that are not UTF-8 become U+FFFD.
    std::printf("%s\n", j.dump(2, ' ', true, nlohmann::json::error_handler_t::replace).c_str());
    return issues.empty() ? k_exit_ok : fail();
  }
  // Names and paths from the file are printed escaped and shortened: a crafted one cannot send
  // terminal escape sequences or flood the screen.
  std::printf("model:       %s\n", model_name.c_str());
  std::printf("name:        %s\n", elide(c.config.name, 200).c_str());
  std::printf("preset:      %s\n", escape_control(preset_label(c.config)).c_str());
  std::printf("parameters:  %lld (fingerprint %s)\n", static_cast<long long>(parameter_count(c.config.model)),
              fingerprint_hex(c.params).c_str());
  std::printf("steps done:  %lld of %lld\n", static_cast<long long>(c.step),
              static_cast<long long>(c.config.training.steps));
  std::printf("trained for: %s\n", std::isfinite(c.seconds) ? format_seconds(c.seconds).c_str() : "unknown");
  std::printf("image:       %dx%d %s (%s)\n", c.image_width, c.image_height,
              color_mode_label(c.config.data.color_mode, c.config.model.output_channels).c_str(),
              c.source_image.empty() ? "unknown source" : elide(c.source_image, 300, true).c_str());
  if (c.history.empty())
    std::printf("last PSNR:   n/a\n");
  else if (std::isinf(psnr) && psnr > 0)
    std::printf("last PSNR:   exact fit (MSE 0, loss %.4g at step %lld)\n", c.history.back().loss,
                static_cast<long long>(c.history.back().step));
  else
    std::printf("last PSNR:   %.2f dB, %s (loss %.4g at step %lld)\n", psnr,
                c.history.back().psnr_exact ? "exact over every pixel" : "sampled", c.history.back().loss,
                static_cast<long long>(c.history.back().step));
  std::printf("last row:    %s\n", last_metrics_text(c).c_str());
  std::printf("snapshots:   %zu\n", c.snapshots.size());
  if (!c.recoveries.empty())
    std::printf("recoveries:  %zu from divergence (learning rate now x%g; the last at step %lld)\n",
                c.recoveries.size(), c.lr_scale, static_cast<long long>(c.recoveries.back().step));
  if (nonfinite > 0)
    std::printf("weights:     DAMAGED: %lld values are NaN or infinite (the run that wrote it diverged)\n",
                static_cast<long long>(nonfinite));
  for (const auto& i : issues) std::printf("problem:     %s: %s\n", i.field.c_str(), elide(i.what, 300).c_str());
  // ensure_ascii: C1 controls (U+0080..U+009F) are escaped too
  std::printf("config:\n%s\n", to_json(c.config).dump(2, ' ', true, nlohmann::json::error_handler_t::replace).c_str());
  return issues.empty() ? k_exit_ok : fail();
}

} // namespace redraw::cli
