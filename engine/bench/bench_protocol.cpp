#include "engine/bench/bench_protocol.h"

#include "engine/bench/param_budget.h"
#include "engine/errors.h"
#include "engine/sweep/sweep_plan.h"

#include <algorithm>
#include <limits>

namespace redraw {

const std::vector<BenchProtocol>& bench_protocols() {
  // kodak-paper's budgets are the published rows' (assets/published/kodak.json); its step count is
  // GaussianImage's own (50,000 iterations in its scripts/*/kodak.sh), as the papers' INR rows
  // give no common one.
  static const std::vector<BenchProtocol> protocols = {
      {.name = "kodak-paper",
       .summary = "the 24 Kodak images, each method at a published row's parameter budget, 50,000 steps",
       .expected_images = 24,
       .default_images = "../shared/images/kodak",
       .images_source = k_kodak_images_source,
       .methods = {{.preset = "instant", .budget = 300000, .steps = 50000},
                   {.preset = "siren", .budget = 273000, .steps = 50000},
                   // GaussianImage's row: 560 K parameters, 69,998 Gaussians, full batch.
                   {.preset = "gaussians", .budget = 560000, .steps = 50000},
                   // Soft anisotropic diagrams' row: 50 k sites, about 500 K floats.
                   {.preset = "sad", .budget = 500000, .steps = 50000}},
       .published = "kodak"},
      {.name = "kodak-minute",
       .summary = "the 24 Kodak images, each photo preset and the Gaussians at 300 K parameters for 60 s of training per image",
       .expected_images = 24,
       .default_images = "../shared/images/kodak",
       .images_source = k_kodak_images_source,
       .methods = {{.preset = "instant", .budget = 300000},
                   {.preset = "siren", .budget = 273000, .cpu_batch = 16384},
                   {.preset = "fourier", .budget = 300000, .cpu_batch = 16384},
                   // GaussianImage's family at the same budget: 37,498 Gaussians; minibatches on a
                   // CPU, as the wide MLPs (a full 768x512 step visits every pixel's bin list).
                   {.preset = "gaussians", .budget = 300000, .cpu_batch = 16384},
                   // The same Gaussians relocated where the error is every 100 steps (training.grow).
                   {.preset = "gaussians-grow", .budget = 300000, .cpu_batch = 16384},
                   // The same Gaussians with a cosine carrier each (WIPES' idea): 10 floats a Gaussian.
                   {.preset = "gaussians-wipes", .budget = 300000, .cpu_batch = 16384},
                   // The 2026 frontier's family at the same budget: 30,000 sites, minibatches on a CPU.
                   {.preset = "sad", .budget = 300000, .cpu_batch = 16384},
                   // The same sites relocated where the error is (training.grow).
                   {.preset = "sad-grow", .budget = 300000, .cpu_batch = 16384}},
       .time_limit = 60,
       .published = "kodak"},
      {.name = "kodak-timed",
       .summary = "the 24 Kodak images, instant at 300 K, gaussians at 560 K and sad at 500 K parameters, 5 s of "
                  "training per image (any two families on all 24 fit one GPU visit)",
       .expected_images = 24,
       .default_images = "../shared/images/kodak",
       .images_source = k_kodak_images_source,
       .methods = {{.preset = "instant", .budget = 300000},
                   {.preset = "gaussians", .budget = 560000},
                   // Soft anisotropic diagrams' row (46.0 dB in 2.2 s): 50 k sites, about 500 K floats.
                   {.preset = "sad", .budget = 500000}},
       .time_limit = 5,
       .published = "kodak-timed"}, // the time-matched rows (Fast-2DGS, Instant-GI at 10 s, ...)
      {.name = "smoke",
       .summary = "2 images at most 256 px, instant and siren at 20 K parameters, 2 s each (CI)",
       .image_count = 2,
       .bundled_image = "default.png", // the app's own image (assets/ATTRIBUTION.md)
       .methods = {{.preset = "instant", .budget = 20000}, {.preset = "siren", .budget = 20000}},
       .time_limit = 2,
       .max_side = 256,
       .published = "kodak"},
  };
  return protocols;
}

const BenchProtocol& find_bench_protocol(const std::string& name) {
  std::string known;
  for (const BenchProtocol& p : bench_protocols()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw ConfigError("unknown benchmark protocol '" + name + "' (known: " + known + ")");
}

BenchProtocol select_bench_methods(const BenchProtocol& p, const std::string& methods) {
  if (methods.empty()) return p;
  std::vector<std::string> wanted;
  size_t start = 0;
  for (size_t comma; start <= methods.size(); start = comma + 1) {
    comma = methods.find(',', start);
    if (comma == std::string::npos) comma = methods.size();
    std::string part = methods.substr(start, comma - start);
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    if (!part.empty()) wanted.push_back(part);
  }
  std::string known;
  for (const BenchMethod& m : p.methods)
    known += (known.empty() ? "" : ", ") + m.preset;
  BenchProtocol out = p;
  out.methods.clear();
  for (const BenchMethod& m : p.methods)
    for (const std::string& w : wanted)
      if (w == m.preset) {
        out.methods.push_back(m);
        break;
      }
  for (const std::string& w : wanted) {
    bool found = false;
    for (const BenchMethod& m : p.methods)
      found = found || m.preset == w;
    if (!found)
      throw ConfigError("--methods: '" + w + "' is not a method of protocol " + p.name + " (its methods: " + known +
                        ")");
  }
  if (out.methods.empty()) throw ConfigError("--methods: no method given (protocol " + p.name + " has " + known + ")");
  return out;
}

std::filesystem::path bench_default_images(const BenchProtocol& p) {
  if (!p.default_images.empty()) return p.default_images;
  if (!p.bundled_image.empty()) return asset_dir() / p.bundled_image;
  return {};
}

int64_t bench_max_images(const BenchProtocol& p) {
  const int64_t per_image = std::max<int64_t>(1, int64_t(p.methods.size()) * std::max(p.seeds, 1));
  return k_max_sweep_cells / per_image;
}

RunConfig bench_method_config(const BenchProtocol& p, const BenchMethod& m, int32_t train_width, int32_t train_height) {
  RunConfig c = load_preset(m.preset);
  c.data.color_mode = ColorMode::Rgb;
  c.data.max_side = p.max_side;
  c.data.width = c.data.height = 0;
  c.model.output_channels = 3;
  if (m.cpu_batch > 0) c.training.cpu_batch_size = m.cpu_batch;
  if (m.steps > 0)
    c.training.steps = m.steps;
  else if (p.time_limit > 0)
    c.training.steps = std::numeric_limits<int32_t>::max(); // the time limit ends it
  try {
    size_to_budget(c.model, m.budget, train_width, train_height);
  } catch (const ConfigError& e) {
    throw ConfigError("method " + m.preset + " of protocol " + p.name + ": " + e.what());
  }
  return c;
}

} // namespace redraw
