/// engine/training/open_run: a fresh run, a model with its image, a model whose image is gone (its own
/// picture stands in), and the errors, each checked against the steps done by hand.
#include <doctest/doctest.h>

#include "engine/model_files/checkpoint.h"
#include "engine/errors.h"
#include "engine/training/open_run.h"
#include "engine/model_family.h"
#include "engine/path_problem.h"
#include "engine/frames/renderer.h"
#include "test_support.h"

using namespace redraw;

namespace {
/// A factory of CPU backends that records the names it was asked for and leaves a notice.
BackendFactory recording_factory(std::vector<std::string>& asked) {
  return [&asked](const std::string& name, std::string* notice, const std::string& precision) {
    asked.push_back(name + "/" + precision);
    if (notice) *notice = "made " + name;
    return std::unique_ptr<Backend>(std::make_unique<CpuBackend>());
  };
}

RunConfig open_run_config() {
  RunConfig c = test::small_config(OptimizerKind::Adam, 0);
  c.data.color_mode = ColorMode::Gray;
  c.data.max_side = 20;
  c.training.steps = 12;
  return c;
}

/// A model trained a few steps on `image`, saved with `recorded` as its source.
Checkpoint trained_model(const std::filesystem::path& image, const std::string& recorded,
                         const std::filesystem::path& file) {
  const RunConfig cfg = open_run_config();
  Trainer t(std::make_unique<CpuBackend>(), cfg, Dataset{prepare_training_image(image, cfg.data)});
  t.run(7);
  Checkpoint c = t.checkpoint(recorded);
  save_checkpoint(file, c);
  return c;
}
} // namespace

TEST_CASE("open_run: a fresh run trains the config on the prepared image") {
  std::vector<std::string> asked;
  const RunConfig cfg = open_run_config();
  OpenRunOptions opts;
  opts.config = cfg;
  opts.backend = "cpu";
  opts.precision = "bf16";
  int adjusted = 0;
  opts.adjust_config = [&](RunConfig& c, const Checkpoint* model) {
    CHECK(model == nullptr);
    c.training.steps = 40;
    ++adjusted;
  };
  const auto image = test::sample("horse.png");
  OpenedRun run = open_run({image.string(), ""}, recording_factory(asked), opts);
  CHECK(adjusted == 1);
  REQUIRE(run.trainer);
  CHECK(asked == std::vector<std::string>{"cpu/bf16"}); // one backend, as named
  CHECK(run.backend_notice == "made cpu");
  CHECK(run.notices.empty());
  CHECK(run.trainer->total_steps() == 40);
  CHECK(run.trainer->current_step() == 0);
  CHECK(run.image == image.string());
  CHECK(run.source_image == absolute_path(image.string()));
  int32_t w = 0, h = 0;
  const Image expected = prepare_training_image(image, cfg.data, {}, &w, &h);
  CHECK(test::max_abs_diff(run.trainer->dataset().image, expected) == 0.0);
  CHECK(run.image_width == w);
  CHECK(run.image_height == h);
  CHECK(run.image_info.format == "PNG");
}

TEST_CASE("open_run: a model resumes on its image, or on its own picture when the image is gone") {
  test::TempDir dir;
  std::filesystem::copy_file(test::sample("horse.png"), dir.path / "img.png");
  const std::filesystem::path model_file = dir.path / "m.redraw";
  const Checkpoint saved = trained_model(dir.path / "img.png", (dir.path / "img.png").string(), model_file);
  std::vector<std::string> asked;

  SUBCASE("the recorded image is there") {
    OpenRunOptions opts;
    opts.config.training.steps = 999; // a model brings its own config
    const Checkpoint* seen = nullptr;
    opts.adjust_config = [&](RunConfig& c, const Checkpoint* model) {
      seen = model;
      CHECK(c.data.width == saved.image_width);
      CHECK(c.data.height == saved.image_height);
    };
    OpenedRun run = open_run({"", model_file.string()}, recording_factory(asked), opts);
    CHECK(seen != nullptr);
    CHECK(run.notices.empty());
    CHECK(run.image == (dir.path / "img.png").string());
    CHECK(run.trainer->current_step() == saved.step);
    CHECK(run.trainer->total_steps() == saved.config.training.steps);
    CHECK(run.trainer->parameters() == saved.params);
    CHECK(asked.size() == 1);
  }
  SUBCASE("the image is gone, asked for by the model or by name") {
    std::filesystem::remove(dir.path / "img.png");
    const Image own = [&] {
      CpuBackend cpu;
      const ModelSpec spec = saved.config.model;
      const auto fb = fourier_matrix(spec.encoding, saved.config.training.seed);
      return render_image(cpu, NetworkView{&spec, saved.params, fb}, saved.image_width, saved.image_height);
    }();
    for (const std::string& image : {std::string(), (dir.path / "gone.png").string()}) {
      CAPTURE(image);
      asked.clear();
      OpenRunOptions opts;
      opts.backend = "auto";
      OpenedRun run = open_run({image, model_file.string()}, recording_factory(asked), opts);
      REQUIRE(run.notices.size() == 1);
      CHECK(run.notices[0].find("was not found; showing the model's own picture as the ground truth") !=
            std::string::npos);
      CHECK(run.image.empty());
      CHECK(run.source_image == saved.source_image); // what the model records, kept
      CHECK(run.image_width == 0);
      CHECK(test::max_abs_diff(run.trainer->dataset().image, own) == 0.0);
      CHECK(run.trainer->current_step() == saved.step);
      CHECK(run.trainer->parameters() == saved.params);
      CHECK(asked == std::vector<std::string>{"cpu/", "auto/"}); // the stand-in renders on the CPU
    }
  }
}

TEST_CASE("open_run: errors name the file, and a training size over the limits is typed") {
  std::vector<std::string> asked;
  test::TempDir dir;
  OpenRunOptions opts;
  opts.config = open_run_config();
  const std::string missing = (dir.path / "missing.png").string();
  CHECK_THROWS_WITH_AS(open_run({missing, ""}, recording_factory(asked), opts),
                       doctest::Contains(missing.c_str()), ImageError);
  CHECK_THROWS_AS(open_run({"", ""}, recording_factory(asked), opts), ImageError);
  CHECK_THROWS_AS(open_run({"", (dir.path / "none.redraw").string()}, recording_factory(asked), opts),
                  CheckpointError);
  opts.config.data.width = 1 << 20;
  opts.config.data.height = 1 << 20;
  CHECK_THROWS_AS(open_run({test::sample("horse.png").string(), ""}, recording_factory(asked), opts),
                  TrainingSizeError);
  CHECK(asked.empty()); // nothing failed after a backend was made
}

namespace {
/// A GPU backend as "auto" may pick it: a CPU underneath that refuses one family by name.
class RefusingBackend : public test::CpuWrapperBackend {
public:
  explicit RefusingBackend(EncodingKind refused) : m_refused(refused) {}
  std::string name() const override { return "cuda"; }
  std::string device_description() const override { return "a test GPU"; }
  std::string model_refusal(const ModelSpec& model) const override {
    return model.encoding.kind == m_refused ? "the refused encoding has no kernels here" : std::string();
  }

private:
  EncodingKind m_refused;
};
} // namespace

TEST_CASE("backend_for_model: auto falls back to the CPU for a family its backend refuses; a named backend stays") {
  const EncodingKind refused = model_family_named("Gaussians").kind;
  std::vector<std::string> asked;
  const BackendFactory factory = [&asked, refused](const std::string& name, std::string* notice,
                                                   const std::string& precision) -> std::unique_ptr<Backend> {
    asked.push_back(name + "/" + precision);
    if (notice) *notice = "made " + name;
    if (name == "cpu") return std::make_unique<CpuBackend>();
    return std::make_unique<RefusingBackend>(refused);
  };
  ModelSpec gaussians = open_run_config().model;
  gaussians.encoding.kind = refused;
  const ModelSpec mlp = open_run_config().model;

  std::string notice;
  auto b = backend_for_model(factory, "auto", "tf32", gaussians, &notice);
  CHECK(b->name() == "cpu");
  CHECK(asked == std::vector<std::string>{"auto/tf32", "cpu/"}); // the CPU is asked with no GPU precision
  CHECK(notice == "made auto; auto: the refused encoding has no kernels here: training on the CPU");

  asked.clear();
  notice.clear();
  b = backend_for_model(factory, "auto", "", mlp, &notice);
  CHECK(b->name() == "cuda"); // a family it has kernels for stays on it
  CHECK(notice == "made auto");

  asked.clear();
  b = backend_for_model(factory, "cuda", "", gaussians, nullptr);
  CHECK(b->name() == "cuda"); // asked by name: it says why when bound
  CHECK(asked == std::vector<std::string>{"cuda/"});
}
