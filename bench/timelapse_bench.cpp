// timelapse_bench: per preset, the timelapse a 512x512 run keeps in the default 256 MiB frame cap
// (frames of its snapshot policy, each arriving with exact weights and Adam's state, and a
// picture), what they keep, and the size of the frames in a saved model. With --train IMAGE it
// also trains `instant` on IMAGE with the preset's defaults (CPU), saves the model, and reports
// its size and the worst PSNR of a stored fp16 keyframe's render against the exact weights'.
// Usage: timelapse_bench [--train IMAGE]   (bench/timelapse_bench.sh runs it)
#include "engine/model_files/checkpoint.h"
#include "engine/model_family.h"
#include "cpu/cpu_backend.h"
#include "engine/training/open_run.h"
#include "engine/frames/renderer.h"
#include "engine/frames/timelapse.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

using namespace redraw;

namespace {
void cap_row(const std::string& preset) {
  RunConfig cfg = load_preset(preset);
  cfg.model.output_channels = 3;
  size_encoding_to_image(cfg.model.encoding, 512, 512);
  const size_t count = size_t(parameter_count(cfg.model));
  const SnapshotPolicy policy = SnapshotPolicy::for_run(cfg.training.steps, cfg.training.metrics_every);
  SnapshotStore store;
  std::vector<Snapshot> all;
  int32_t pw = 0, ph = 0;
  frame_picture_size(512, 512, pw, ph);
  for (int64_t step = 0; step <= cfg.training.steps; ++step) {
    if (!policy.should_snapshot(step)) continue;
    Snapshot s;
    s.metrics.step = step;
    s.params.assign(count, 0.01f * float(step % 97));
    s.resumable = true;
    if (step > 0) s.optimizer.first.assign(count, 0.0f), s.optimizer.second.assign(count, 0.0f);
    s.picture = {pw, ph, 3, std::vector<uint8_t>(size_t(pw) * ph * 3, uint8_t(step))};
    store.add(std::move(s));
  }
  size_t kinds[3] = {0, 0, 0};
  for (const Snapshot& s : store.frames()) ++kinds[int(frame_kind(s))];
  std::printf("| %-11s | %9zu | %6zu | %9zu | %9zu | %6zu | %8.1f |\n", preset.c_str(), count, store.size(), kinds[2],
              kinds[1], kinds[0], double(store.bytes()) / double(1 << 20));
}

double psnr_db(const std::vector<float>& a, const std::vector<float>& b) {
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) se += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
  return se == 0 ? INFINITY : 10 * std::log10(double(a.size()) / se);
}

int train_instant(const std::string& image) {
  OpenRunOptions opts;
  opts.config = load_preset("instant");
  BackendFactory cpu = [](const std::string&, std::string*, const std::string&) {
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  };
  OpenedRun run = open_run(RunSource{image, ""}, cpu, opts);
  Trainer& t = *run.trainer;
  t.run(t.total_steps());
  const Checkpoint c = t.checkpoint(image);
  const std::vector<uint8_t> bytes = serialize_checkpoint(c);
  const Checkpoint back = deserialize_checkpoint(bytes.data(), bytes.size(), "model.redraw");
  const int32_t w = t.dataset().image.width, h = t.dataset().image.height;
  const EncodingSpec& e = c.config.model.encoding;
  double worst = INFINITY;
  int keyframes = 0;
  for (size_t i = 0; i < back.snapshots.size(); ++i) {
    if (back.snapshots[i].half_params.empty()) continue;
    ++keyframes;
    const auto fp16 = frame_weights(back.snapshots[i]);
    const auto exact = c.snapshots[i].params.empty() ? frame_weights(c.snapshots[i]) : c.snapshots[i].params;
    CpuBackend b;
    worst = std::min(worst, psnr_db(render_image(b, NetworkView{&c.config.model, fp16, {}}, w, h).pixels,
                                    render_image(b, NetworkView{&c.config.model, exact, {}}, w, h).pixels));
  }
  std::printf("\ninstant on %s (%dx%d, table 2^%d, finest %d, %lld parameters, %lld steps on the CPU):\n",
              image.c_str(), w, h, e.log2_hashmap_size, e.finest_resolution,
              static_cast<long long>(c.params.size()), static_cast<long long>(c.step));
  std::printf("  model.redraw %.2f MB, %zu frames, %d fp16 keyframes, worst keyframe PSNR vs exact %.1f dB, "
              "final PSNR %.2f dB\n",
              double(bytes.size()) / 1e6, back.snapshots.size(), keyframes, worst, c.history.back().psnr_db);
  return 0;
}
} // namespace

int main(int argc, char** argv) {
  std::printf("Frames a 512x512 run keeps in the default %zu MiB cap (RGB, the preset's steps):\n\n",
              k_default_snapshot_cap_bytes >> 20);
  std::printf("| preset      | params    | frames | resumable | keyframes | pictures | MiB held |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const std::string& p : preset_names()) cap_row(p);
  if (argc == 3 && std::strcmp(argv[1], "--train") == 0) return train_instant(argv[2]);
  return 0;
}
