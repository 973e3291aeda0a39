// A sweep's grid (engine/sweep/sweep_plan.h): the command line's KEY=V1,V2, the cells it expands
// to (counted by hand), bad keys and values refused by name before anything runs, and sweep.json
// read back as written.
#include "engine/errors.h"
#include "engine/images/image.h"
#include "engine/sweep/sweep_jobs.h"
#include "engine/sweep/sweep_plan.h"
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <limits>
#include <set>

namespace redraw {
namespace {

Image gray(int32_t w, int32_t h) {
  Image im;
  im.width = w;
  im.height = h;
  im.channels = 1;
  im.pixels.assign(size_t(w) * size_t(h), 0.5f);
  return im;
}

/// A folder with two small images (and a file that is not one).
struct Images {
  test::TempDir dir;
  Images() {
    write_png(dir.path / "b.png", gray(40, 20));
    write_png(dir.path / "a.png", gray(30, 30));
    test::write_bytes(dir.path / "notes.txt", {'h', 'i'});
  }
};

std::string plan_error_of(const SweepGrid& g) {
  try {
    (void)build_sweep_plan(g);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("sweep axis: values split at top-level commas; a word is a string") {
  const SweepAxis a = parse_sweep_axis("model.omega_0=20, 30,1e-3");
  CHECK(a.key == "model.omega_0");
  CHECK(a.values == std::vector<std::string>{"20", "30", "0.001"});
  CHECK(parse_sweep_axis("model.hidden=[64,64],[128]").values == std::vector<std::string>{"[64,64]", "[128]"});
  CHECK(parse_sweep_axis("model.activation=Tanh,\"Sine\"").values == std::vector<std::string>{"\"Tanh\"", "\"Sine\""});
  CHECK(parse_sweep_axis("name=\"a,b\",c").values == std::vector<std::string>{"\"a,b\"", "\"c\""});
  CHECK(sweep_value_label("\"Tanh\"") == "Tanh");
  CHECK(sweep_value_label("[64,64]") == "[64,64]");
  CHECK_THROWS_AS(parse_sweep_axis("model.omega_0"), ConfigError);
  CHECK_THROWS_AS(parse_sweep_axis("model.omega_0=20,,30"), ConfigError);
  CHECK_THROWS_AS(parse_sweep_axis("=20"), ConfigError);
  CHECK_THROWS_AS(parse_sweep_axis("model..omega_0=20"), ConfigError);
}

TEST_CASE("sweep plan: images x presets x values x seeds, each cell's config as set") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  Images images;
  SweepGrid g;
  g.images = {images.dir.path.string()};
  g.presets = {"siren", "fourier"};
  g.axes = {parse_sweep_axis("model.omega_0=20,30,40"), parse_sweep_axis("schedule.lr_max=1e-3,1e-2")};
  g.seeds = 2;
  g.max_side = 16;
  const SweepPlan plan = build_sweep_plan(g);
  REQUIRE(plan.grid.images.size() == 2); // the folder's two images, sorted; notes.txt is not one
  CHECK(std::filesystem::path(plan.grid.images[0]).filename() == "a.png");
  CHECK(std::filesystem::path(plan.grid.images[0]).is_absolute());
  REQUIRE(plan.cells.size() == 2 * 2 * 3 * 2 * 2);
  std::set<std::string> names;
  for (const SweepCell& c : plan.cells)
    names.insert(c.name);
  CHECK(names.size() == plan.cells.size());
  // The last axis and the seed change fastest: cell 3 is a.png, siren, omega 20, lr 1e-2, seed 2.
  const SweepCell& c = plan.cells[3];
  CHECK(c.name == "003-a-siren-omega_0=20-lr_max=0.01-s2");
  CHECK(c.config.model.omega_0 == 20.0f);
  CHECK(c.config.schedule.lr_max == 0.01);
  CHECK(c.config.training.seed == 2);
  CHECK(c.configuration(plan.grid.axes) == "siren model.omega_0=20 schedule.lr_max=0.01");
  const SweepCell& last = plan.cells.back(); // b.png 40x20 at max side 16: 16x8
  CHECK(last.train_width == 16);
  CHECK(last.train_height == 8);
  CHECK(last.config.data.max_side == 16);
}

TEST_CASE("sweep plan: a bad key, value, preset or image is refused, named, before anything runs") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  Images images;
  SweepGrid g;
  g.images = {(images.dir.path / "a.png").string()};
  g.presets = {"siren"};
  g.axes = {parse_sweep_axis("model.omega=20")};
  CHECK(plan_error_of(g).find("model.omega: unknown key") != std::string::npos);
  g.axes = {parse_sweep_axis("optimizer.lr_max=1e-3")};
  CHECK(plan_error_of(g).find("(schedule.lr_max is a field)") != std::string::npos);
  g.axes = {parse_sweep_axis("model.omega_0=20,abc")};
  const std::string bad = plan_error_of(g);
  CHECK(bad.find("model.omega_0=abc") != std::string::npos);
  CHECK(bad.find("must be a number") != std::string::npos);
  g.axes = {parse_sweep_axis("model.hidden.width=3")};
  CHECK(plan_error_of(g).find("model.hidden is a value, not a section") != std::string::npos);
  g.axes = {parse_sweep_axis("data.width=32")};
  CHECK(plan_error_of(g).find("width and height must be given together") != std::string::npos);
  g.axes = {};
  g.presets = {"sirenn"};
  CHECK(plan_error_of(g).find("Preset 'sirenn' not found") != std::string::npos);
  g.presets = {"siren"};
  g.images = {(images.dir.path / "gone.png").string()};
  CHECK(plan_error_of(g).find("gone.png: no such image") != std::string::npos);
  g.images = {(images.dir.path / "a.png").string()};
  g.time_limit = 2;
  g.steps = 10;
  CHECK(plan_error_of(g).find("not both") != std::string::npos);
}

TEST_CASE("sweep plan: a stray closing bracket is text in its value, and the comma after it splits the axis") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  Images images;
  SweepGrid g;
  g.images = {(images.dir.path / "a.png").string()};
  g.presets = {"siren"};
  g.axes = {parse_sweep_axis("name=a],b")};
  g.max_side = 16;
  const SweepPlan plan = build_sweep_plan(g);
  REQUIRE(plan.cells.size() == 2); // two values, two cells (not one value "a],b")
  CHECK(plan.cells[0].config.name == "a]");
  CHECK(plan.cells[1].config.name == "b");
  // A bad value after a stray ']' is named alone.
  g.axes = {parse_sweep_axis("model.omega_0=]3,30")};
  const std::string bad = plan_error_of(g);
  CHECK(bad.find("model.omega_0=]3:") != std::string::npos);
  CHECK(bad.find("]3,30") == std::string::npos);
}

TEST_CASE("sweep plan: a swept activation or depth is the one trained") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  Images images;
  SweepGrid g;
  g.images = {(images.dir.path / "a.png").string()};
  g.presets = {"siren"}; // three sine layers
  g.axes = {parse_sweep_axis("model.hidden=[8],[8,8,8,8]"), parse_sweep_axis("model.activation=Sine,Tanh")};
  const SweepPlan plan = build_sweep_plan(g);
  REQUIRE(plan.cells.size() == 4);
  CHECK(plan.cells[0].config.model.hidden_activations == std::vector<Activation>{Activation::Sine});
  CHECK(plan.cells[3].config.model.hidden_activations == std::vector<Activation>(4, Activation::Tanh));
}

TEST_CASE("sweep plan: a hash grid field sized to the image takes the value given") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  Images images;
  SweepGrid g;
  g.images = {(images.dir.path / "a.png").string()};
  g.presets = {"instant"};
  g.axes = {parse_sweep_axis("model.encoding.log2_hashmap_size=12,14")};
  const SweepPlan plan = build_sweep_plan(g);
  REQUIRE(plan.cells.size() == 2);
  CHECK_FALSE(plan.cells[1].config.model.encoding.auto_table_size);
  CHECK(plan.cells[1].config.model.encoding.log2_hashmap_size == 14);
  CHECK(load_preset("instant").model.encoding.auto_table_size); // as the preset had it
}

TEST_CASE("sweep plan: sweep.json reads back as written; a changed cell is another sweep") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  Images images;
  SweepGrid g;
  g.images = {images.dir.path.string()};
  g.presets = {"siren"};
  g.axes = {parse_sweep_axis("model.hidden=[8,8],[16]")};
  g.time_limit = 3;
  const SweepPlan plan = build_sweep_plan(g);
  save_sweep_plan(images.dir.path, plan);
  const SweepPlan back = load_sweep_plan(images.dir.path);
  CHECK(same_sweep(plan, back));
  CHECK(back.grid.axes[0].values == plan.grid.axes[0].values);
  CHECK(back.cells[1].config.model.hidden == std::vector<int32_t>{16});
  CHECK(sweep_plan_json(back) == sweep_plan_json(plan));
  SweepPlan other = back;
  other.cells[1].config.model.omega_0 = 31;
  CHECK_FALSE(same_sweep(plan, other));
  CHECK_THROWS_AS(parse_sweep_plan(nlohmann::json{{"format", "redraw-sweep"}, {"version", 9}}, "x"), ConfigError);
}

TEST_CASE("sweep spec file: the grid's fields, unknown keys named") {
  const auto j =
      nlohmann::json::parse(R"({"images": ["x.png"], "presets": ["siren"], "set": {"model.omega_0": [20, 30]},
      "seeds": 3, "time_limit": 2.5, "size": "64x32"})");
  const SweepGrid g = parse_sweep_spec(j, "spec.json");
  CHECK(g.axes.size() == 1);
  CHECK(g.axes[0].values == std::vector<std::string>{"20", "30"});
  CHECK(g.seeds == 3);
  CHECK(g.time_limit == 2.5);
  CHECK(g.width == 64);
  CHECK(g.height == 32);
  try {
    (void)parse_sweep_spec(nlohmann::json{{"imgs", {"x"}}}, "spec.json");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "spec.json: imgs: unknown key");
  }
  // The backend is checked up front, naming the field (not a library's words, not every cell failing).
  const auto backend_error = [](const nlohmann::json& b) {
    try {
      (void)parse_sweep_spec(nlohmann::json{{"images", {"x.png"}}, {"presets", {"siren"}}, {"backend", b}}, "spec.json");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(backend_error(nlohmann::json::array()) == "spec.json: backend: must be one name (auto, cpu, cuda)");
  CHECK(backend_error("evil") == "spec.json: backend: 'evil' is not a backend (known: auto, cpu, cuda)");
  CHECK(backend_error("cpu") == "(no error)");
}

TEST_CASE("sweep jobs: one per core under a time limit or for small steps; one with every thread for large steps") {
  SweepPlan plan;
  SweepCell small;
  small.config = parse_run_config(nlohmann::json::object(), "defaults");
  small.train_width = small.train_height = 64;
  small.config.training.batch_size = 0; // full batch: 4096 rows
  plan.cells = {small, small, small, small, small};
  plan.grid.time_limit = 10;
  SweepJobs j = plan_sweep_jobs(plan, 5, 2, false);
  CHECK(j.jobs == 2);
  CHECK(j.threads == 1);
  plan.grid.time_limit = 0;
  CHECK(plan_sweep_jobs(plan, 5, 4, false).jobs == 4);
  CHECK(plan_sweep_jobs(plan, 3, 4, false).jobs == 3);          // never more jobs than cells
  CHECK(plan_sweep_jobs(plan, 3, 4, false).threads == 1);       // 4 cores / 3 jobs
  plan.cells[2].train_width = plan.cells[2].train_height = 512; // 262144 rows a step
  j = plan_sweep_jobs(plan, 5, 2, false);
  CHECK(j.jobs == 1);
  CHECK(j.threads == 2);
  plan.cells[2].config.training.cpu_batch_size = 1 << 14; // a minibatch: small again
  CHECK(plan_sweep_jobs(plan, 5, 2, false).jobs == 2);
  CHECK(plan_sweep_jobs(plan, 5, 2, true).jobs == 1); // a GPU: one at a time
  CHECK(plan_sweep_jobs(plan, 5, 2, true).threads == 0);
  CHECK(plan_sweep_jobs(plan, 5, 2, false, 3).jobs == 3); // asked for
  CHECK(plan_sweep_jobs(plan, 5, 2, false, 3).threads == 1);
}

TEST_CASE("sweep estimate: cells in waves of the jobs") {
  SweepPlan plan;
  SweepCell cell;
  cell.config = parse_run_config(nlohmann::json::object(), "defaults");
  cell.train_width = cell.train_height = 32;
  plan.cells.assign(5, cell);
  plan.grid.time_limit = 10;
  const double one = estimate_cell_seconds(plan.grid, cell, 1);
  CHECK(one >= 10);
  CHECK(one < 12);
  // 5 cells 2 at a time: three waves.
  CHECK(estimate_sweep_seconds(plan, {0, 1, 2, 3, 4}, {2, 1}) == doctest::Approx(3 * one));
  CHECK(estimate_sweep_seconds(plan, {0, 1}, {1, 2}) == doctest::Approx(2 * estimate_cell_seconds(plan.grid, cell, 2)));
  CHECK(estimate_sweep_seconds(plan, {}, {2, 1}) == 0);
}

TEST_CASE("sweep plan: a grid past the cell limit is refused before it is expanded, naming its product") {
  test::ScopedEnv assets("REDRAW_ASSETS", test::test_assets().string());
  Images images;
  std::string thousand;
  for (int i = 0; i < 1000; ++i) thousand += (i ? "," : "") + std::to_string(i + 1);
  SweepGrid g;
  g.images = {images.dir.path.string()};
  g.presets = {"siren"};
  g.axes = {parse_sweep_axis("model.omega_0=" + thousand), parse_sweep_axis("schedule.lr_max=" + thousand)};
  g.seeds = 1;
  CHECK(plan_error_of(g).find("the grid has 2000000 cells (2 images x 1 presets x 1000 model.omega_0 x 1000 schedule.lr_max x 1 seeds); one sweep runs at most "
                 "10000") == 0);
  // The count never overflows: 20 axes of 1000 values is far past int64.
  std::vector<SweepAxis> many(20, parse_sweep_axis("model.omega_0=" + thousand));
  CHECK(sweep_cell_count(1, 1, many, 1) == std::numeric_limits<int64_t>::max());
  CHECK(sweep_cell_count(3, 2, {parse_sweep_axis("a=1,2,3")}, 4) == 72);
  CHECK(sweep_cell_count(0, 2, {}, 4) == 0);
}

TEST_CASE("sweep plan: a sweep.json listing more cells than a sweep holds is refused before its cells are read") {
  nlohmann::json j = sweep_plan_json(SweepPlan{});
  j["cells"] = nlohmann::json::array();
  for (int64_t i = 0; i <= k_max_sweep_cells; ++i) j["cells"].push_back(nlohmann::json::object());
  std::string why;
  try {
    parse_sweep_plan(j, "shared/sweep.json");
  } catch (const ConfigError& e) {
    why = e.what();
  }
  CHECK(why == "shared/sweep.json: lists 10001 cells; a sweep holds at most 10000");
}

} // namespace redraw
