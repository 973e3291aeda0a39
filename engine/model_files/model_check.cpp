#include "engine/model_files/model_check.h"

#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/model_family.h"

#include <cmath>
#include <cstdio>

namespace redraw {

namespace {
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// Non-finite values and values beyond `limit` in `v`: one issue each kind, with a count and
/// the first index.
void check_values(std::span<const float> v, float limit, const std::string& field, std::vector<ModelIssue>& out) {
  int64_t nonfinite = 0, huge = 0, first_nonfinite = -1, first_huge = -1;
  for (size_t i = 0; i < v.size(); ++i) {
    const float x = v[i];
    if (!std::isfinite(x)) {
      if (nonfinite++ == 0) first_nonfinite = int64_t(i);
    } else if (std::abs(x) > limit) {
      if (huge++ == 0) first_huge = int64_t(i);
    }
  }
  if (nonfinite > 0)
    out.push_back({field, std::to_string(nonfinite) + " of " + std::to_string(v.size()) +
                              " values are not finite (NaN or infinite; the first at index " + std::to_string(first_nonfinite) +
                              "; the run that wrote it diverged)"});
  if (huge > 0)
    out.push_back({field, std::to_string(huge) + " of " + std::to_string(v.size()) + " values exceed " +
                              number(limit) + " in magnitude (the first, at index " + std::to_string(first_huge) +
                              ", is " + number(v[size_t(first_huge)]) + ")"});
}

/// Parameters a family cannot render in bounded time, as the family says (the Gaussians' coverage:
/// a file whose binning would need unbounded memory and time in every reader,
/// engine/gaussian_bounds.h).
void check_coverage(const ModelSpec& spec, std::span<const float> params, const std::string& field,
                    std::vector<ModelIssue>& out) {
  const ModelFamily& family = model_family(spec.encoding.kind);
  if (!family.params_problem) return;
  if (const std::string why = family.params_problem(spec, params); !why.empty()) out.push_back({field, why});
}

void check_string(const std::string& s, const std::string& field, std::vector<ModelIssue>& out) {
  if (s.size() > k_max_model_string_bytes)
    out.push_back({field, "is " + std::to_string(s.size()) + " bytes long (at most " +
                              std::to_string(k_max_model_string_bytes) + ")"});
  if (!is_valid_utf8(s)) out.push_back({field, "is not valid UTF-8"});
  for (char ch : s)
    if (ch == '\0') {
      out.push_back({field, "holds a NUL character"});
      break;
    }
}

void check_step(int64_t step, int64_t last, const std::string& field, std::vector<ModelIssue>& out) {
  if (step < 0 || step > last)
    out.push_back({field, "step " + std::to_string(step) + " is outside 0.." + std::to_string(last) +
                              " (the model's step count)"});
}

void check_seconds(double s, const std::string& field, std::vector<ModelIssue>& out) {
  if (!std::isfinite(s) || s < 0 || s > 1e10) out.push_back({field, number(s) + " is not a training time in seconds"});
}
} // namespace

std::vector<ModelIssue> check_model(const Checkpoint& c) {
  std::vector<ModelIssue> out;
  if (c.step < 0 || c.step > k_max_model_steps)
    out.push_back({"META.step", std::to_string(c.step) + " is outside 0.." + std::to_string(k_max_model_steps)});
  if (c.optimizer_step > c.step)
    out.push_back({"META.optimizer_step", std::to_string(c.optimizer_step) + " is past META.step"});
  check_seconds(c.seconds, "META.seconds", out);
  if (!(c.lr_scale > 0 && c.lr_scale <= 1)) out.push_back({"META.lr_scale", number(c.lr_scale) + " is outside (0, 1]"});
  // Within the training limits: no trainer writes more, and the app renders a model's own picture
  // at this size when its image is gone.
  if (c.image_width < 1 || c.image_height < 1 || c.image_width > k_max_train_side || c.image_height > k_max_train_side ||
      int64_t(c.image_width) * c.image_height > k_max_train_pixels)
    out.push_back({"META.image_width/image_height",
                   std::to_string(c.image_width) + "x" + std::to_string(c.image_height) +
                       " is not a training size (each side 1.." + std::to_string(k_max_train_side) + ", at most " +
                       std::to_string(k_max_train_pixels) + " pixels)"});
  const int32_t channels = c.config.model.output_channels;
  if (channels != 1 && channels != 3)
    out.push_back({"META.output_channels", std::to_string(channels) + " (the network's outputs) must be 1 or 3"});
  else if (c.config.data.color_mode != ColorMode::Auto && channels != channels_of(c.config.data.color_mode))
    out.push_back({"META.output_channels", std::to_string(channels) + " does not fit colour mode " +
                                               color_mode_name(c.config.data.color_mode)});
  check_string(c.source_image, "META.source_image", out);
  check_string(c.config.name, "META.config.name", out);

  check_values(c.params, k_max_model_weight, "PARM", out);
  check_coverage(c.config.model, c.params, "PARM", out);
  check_values(c.optimizer.first, k_max_optimizer_value, "OPTM (first moment)", out);
  check_values(c.optimizer.second, k_max_optimizer_value, "OPTM (second moment)", out);
  for (float v : c.optimizer.second)
    if (v < 0) {
      out.push_back({"OPTM (second moment)", "holds a negative value (a mean of squares is never negative)"});
      break;
    }

  int64_t previous = -1;
  for (size_t i = 0; i < c.history.size(); ++i) {
    const MetricsRow& r = c.history[i];
    const std::string field = "HIST[" + std::to_string(i) + "]";
    check_step(r.step, c.step, field, out);
    if (r.step <= previous) out.push_back({field, "step " + std::to_string(r.step) + " is not after the row before"});
    check_seconds(r.seconds, field + ".seconds", out);
    previous = r.step;
    if (out.size() > 32) break; // a list the user can read
  }
  previous = -1;
  for (size_t i = 0; i < c.snapshots.size(); ++i) {
    const Snapshot& s = c.snapshots[i];
    const std::string field = "SNAP[" + std::to_string(i) + "]";
    check_step(s.metrics.step, c.step, field, out);
    if (s.metrics.step <= previous)
      out.push_back({field, "step " + std::to_string(s.metrics.step) + " is not after the snapshot before"});
    check_seconds(s.metrics.seconds, field + ".seconds", out);
    const std::vector<float> weights = frame_weights(s);
    check_values(weights, k_max_model_weight, field + ".params", out);
    check_coverage(c.config.model, weights, field + ".params", out);
    previous = s.metrics.step;
    if (out.size() > 32) break;
  }
  for (size_t i = 0; i < c.recoveries.size(); ++i) {
    const RecoveryEvent& e = c.recoveries[i];
    const std::string field = "RCOV[" + std::to_string(i) + "]";
    // A model saved right after a recovery holds the state it went back to, so the step where the
    // divergence was found may lie past the model's own; the step it went back to may not.
    check_step(e.rolled_back_to, c.step, field, out);
    if (e.step < e.rolled_back_to || e.step > k_max_model_steps)
      out.push_back({field, "step " + std::to_string(e.step) + " is outside " + std::to_string(e.rolled_back_to) +
                                ".." + std::to_string(k_max_model_steps) + " (from the step it went back to)"});
    check_string(e.reason, field + ".reason", out);
    if (!(e.lr_scale > 0 && e.lr_scale <= 1)) out.push_back({field + ".lr_scale", number(e.lr_scale) + " is outside (0, 1]"});
    if (out.size() > 32) break;
  }
  return out;
}

void require_sane_model(const Checkpoint& c, const std::string& name) {
  const std::vector<ModelIssue> issues = check_model(c);
  if (issues.empty()) return;
  std::string more;
  if (issues.size() > 1) more = " (and " + std::to_string(issues.size() - 1) + " more problems; `redraw info` lists them)";
  throw CheckpointError(name + ": " + issues.front().field + ": " + issues.front().what + more);
}

Checkpoint open_model(const std::filesystem::path& file) {
  Checkpoint c = load_checkpoint(file);
  require_sane_model(c, file.string());
  return c;
}

} // namespace redraw

namespace redraw {

std::string find_source_image(const std::string& stored, const std::filesystem::path& model_file) {
  if (stored.empty()) return {};
  namespace fs = std::filesystem;
  const auto is_file = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
  };
  const fs::path s(stored);
  if (is_file(s)) return stored;
  const fs::path dir = model_file.has_parent_path() ? model_file.parent_path() : fs::path(".");
  if (s.is_relative() && is_file(dir / s)) return (dir / s).string();
  if (s.has_filename() && is_file(dir / s.filename())) return (dir / s.filename()).string();
  return {};
}

} // namespace redraw
