// Errors name the real cause: a symbolic link loop is no missing file, a file in the middle of an
// output path is no missing folder, a colour-mode difference on resume is no shape difference,
// and what the GUI shows from the engine names no command-line flags.
#include "test_support.h"

#include "engine/atomic_file.h"
#include "engine/model_files/checkpoint.h"
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/path_problem.h"
#include "engine/frames/renderer.h"

#include <doctest/doctest.h>

#include <fstream>

using namespace redraw;
namespace fs = std::filesystem;

namespace {
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}
} // namespace

TEST_CASE("messages: a symbolic link loop is reported as one, not as a missing file") {
  test::TempDir dir;
  fs::create_symlink(dir.path / "a.redraw", dir.path / "b.redraw");
  fs::create_symlink(dir.path / "b.redraw", dir.path / "a.redraw");
  const std::string model = message_of([&] { (void)load_checkpoint(dir.path / "a.redraw"); });
  CHECK(model.find("symbolic link loop") != std::string::npos);
  CHECK(model.find("no such file") == std::string::npos);
  fs::create_symlink(dir.path / "x.png", dir.path / "y.png");
  fs::create_symlink(dir.path / "y.png", dir.path / "x.png");
  CHECK(message_of([&] { (void)load_image(dir.path / "x.png"); }).find("symbolic link loop") != std::string::npos);
  CHECK(message_of([&] { (void)load_checkpoint(dir.path / "missing.redraw"); }).find("no such file") != std::string::npos);
}

TEST_CASE("messages: an output path under a file says the file is in the way") {
  test::TempDir dir;
  std::ofstream(dir.path / "plain") << "x";
  const std::string e = message_of([&] { check_writable_destination(dir.path / "plain" / "out.png"); });
  CHECK(e.find((dir.path / "plain").string() + " is a file, not a folder") != std::string::npos);
  CHECK(e.find("does not exist") == std::string::npos);
  const std::string deeper = message_of([&] { check_writable_destination(dir.path / "plain" / "sub" / "out.png"); });
  CHECK(deeper.find("is a file, not a folder") != std::string::npos);
  CHECK(message_of([&] { check_writable_destination(dir.path / "nofolder" / "out.png"); }).find("does not exist") !=
        std::string::npos);
  CHECK(path_problem(std::string(5000, 'n')).find("too long") != std::string::npos);
}

TEST_CASE("messages: resuming a colour model on a grey image names the colour mode") {
  RunConfig cfg = test::small_config(OptimizerKind::Adam, 0);
  cfg.data.color_mode = ColorMode::Auto;
  Trainer colour = test::small_trainer(cfg, test::gradient_image(8, 6, 3));
  colour.run(2);
  const Checkpoint c = colour.checkpoint("c.png");
  Trainer grey = test::small_trainer(c.config, test::gradient_image(8, 6, 1));
  const std::string e = message_of([&] { grey.restore(c); });
  CHECK(e.find("colour mode differs") != std::string::npos);
  CHECK(e.find("shape") == std::string::npos);
}

TEST_CASE("messages: engine errors the GUI shows name no command-line flags") {
  DataSpec big;
  big.width = 20000;
  big.height = 20000;
  int32_t w = 0, h = 0;
  const std::string train = message_of([&] { training_size(big, 100, 100, w, h); });
  CHECK(!train.empty());
  CHECK(train.find("--") == std::string::npos);
  CpuBackend backend;
  ModelSpec m = test::small_config(OptimizerKind::Adam, 0).model;
  const std::vector<float> params(size_t(parameter_count(m)), 0.0f);
  const auto fb = fourier_matrix(m.encoding, 1);
  const std::string render = message_of([&] { (void)render_image(backend, NetworkView{&m, params, fb}, 70000, 1); });
  CHECK(!render.empty());
  CHECK(render.find("--") == std::string::npos);
}
