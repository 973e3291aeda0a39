#include "python/bindings/py_trainer.h"

#include "app/backend_registry.h"
#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "engine/model_files/weights_export.h"
#include "engine/training/open_pixels.h"
#include "engine/training/open_run.h"
#include "engine/training/run_loop.h"
#include "python/bindings/py_arrays.h"
#include "python/bindings/py_claim.h"
#include "python/bindings/py_convert.h"
#include "python/bindings/py_interrupt.h"
#include "python/bindings/py_network.h"

#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif

namespace redraw::python {

namespace {

class PyTrainer {
public:
  /// Every argument is checked here (TypeError naming it for a wrong type) before the run opens.
  PyTrainer(const py::object& image, const py::object& preset, const py::object& backend, const py::object& seed,
            const py::object& size, const py::object& steps, const py::object& precision, const py::object& color) {
    OpenRunOptions options;
    options.backend = str_arg(backend, "Trainer: backend").value_or(k_auto_backend);
    options.precision = str_arg(precision, "Trainer: precision").value_or("");
    const std::optional<uint64_t> seed_value = uint_arg(seed, "Trainer: seed");
    const std::optional<int64_t> step_count = int_arg(steps, "Trainer: steps");
    const std::optional<std::string> color_mode = str_arg(color, "Trainer: color");
    if (step_count && *step_count < 0) throw py::value_error("steps: must not be negative");
    options.config = config_of(preset);
    RunConfig& c = options.config;
    if (seed_value) c.training.seed = *seed_value;
    if (step_count) c.training.steps = *step_count;
    set_size(c, size);
    if (color_mode) c.data.color_mode = parse_color_mode(*color_mode);
    c.model.output_channels = channels_of(c.data.color_mode);
    if (py::isinstance<py::str>(image) || py::hasattr(image, "__fspath__")) {
      const std::string path = path_of(image, "image");
      m_run = open_run({path, ""}, backend_factory(), options);
      for (const std::string& n : m_run.image_info.notes) m_notices.push_back(path + ": " + n);
    } else {
      Image raw = image_from_array(image, "image");
      m_run = open_run_on_pixels(std::move(raw), "", backend_factory(), options);
    }
    if (!m_run.backend_notice.empty()) m_notices.push_back(m_run.backend_notice);
    for (const std::string& n : m_run.notices) m_notices.push_back(n);
  }

  Trainer& trainer() { return *m_run.trainer; }

  /// Trains up to `steps` more steps (nullopt: to the run's total; grow_total: a run asked for more
  /// grows its total), until `seconds` of training time pass or callback returns False: the run
  /// loop (engine/training/run_loop.h) in slices of about 0.1 s with the GIL released.
  std::optional<MetricsRow> train(const std::optional<int64_t>& steps, double seconds, const py::object& callback,
                                  bool grow_total) {
    Claim owner(m_use, false); // before anything changes: a refused call leaves the run as it was
    Trainer& t = trainer();
    const int64_t n = steps ? *steps : std::max<int64_t>(0, t.total_steps() - t.current_step());
    if (grow_total && steps && t.current_step() + n > t.total_steps()) t.set_total_steps(t.current_step() + n);
    RunLoop loop(t);
    loop.set_end_step(RunLoop::k_no_end_step); // step(n) may go past the total
    loop.set_step_count(n);
    loop.set_slice_seconds(0.1);
    const bool timed = std::isfinite(seconds);
    if (timed) loop.set_time_budget(seconds); // the schedule anneals to the deadline, as train --time-limit
    std::optional<MetricsRow> last;
    std::vector<MetricsRow> rows;
    LoopEvents events;
    events.may_step = [] { return !stop_requested(); }; // the interpreter is exiting
    events.stepped = [&rows, has_callback = !callback.is_none()](const std::optional<MetricsRow>& row, double) {
      if (row) rows.push_back(*row);
      return row && has_callback; // the callback sees each row at once and may stop here
    };
    events.settled = [&last](const MetricsRow& r) { last = r; };
    const auto finish = [&] {
      Unlocked unlocked;
      (void)loop.finish(events); // a train() call ends here, whatever finish() would train on
      if (timed) t.set_time_budget(0);
    };
    try {
      run_slices(loop, events, rows, callback, last);
#if defined(__GLIBCXX__)
    } catch (abi::__forced_unwind&) {
      throw; // the thread is being ended (a daemon thread at exit): touch nothing more
#endif
    } catch (...) {
      finish();
      throw;
    }
    finish();
    if (!loop.diverged().empty()) throw DivergedError(loop.diverged());
    return last;
  }

  py::array_t<float> render(const py::object& width, const py::object& height) {
    Claim claim(m_use, true);
    int32_t rw = 0, rh = 0;
    render_size(width, height, trainer().dataset().image.width, trainer().dataset().image.height, rw, rh);
    return render_interruptible([&](const RenderOptions& opts) { return trainer().render(rw, rh, opts); });
  }

  py::array_t<float> predict(const py::object& coords) {
    Claim claim(m_use, true);
    {
      Unlocked unlocked;
      trainer().ensure_finite(); // never a diverged network (as render)
    }
    return predict_array(trainer().backend(), bound_network(trainer().config().model), coords);
  }

  /// The run as a .redraw model. The checkpoint is copied under the claim and written on a thread
  /// of its own: Ctrl+C raises at once, and the file is replaced only when the write completed.
  void save(const py::object& path) {
    const std::string file = path_of(path, "save: path");
    std::shared_ptr<Checkpoint> copy;
    {
      Claim claim(m_use, true);
      Unlocked unlocked;
      trainer().with_checkpoint(m_run.source_image,
                                [&](const Checkpoint& c) { copy = std::make_shared<Checkpoint>(c); });
    }
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    try {
      run_interruptible<int>(
          [copy, cancelled, file] {
            AtomicFileWriter out(file);
            write_checkpoint(out, *copy);
            if (!cancelled->load()) out.commit(); // else the temp file goes, the earlier file stays
            return 0;
          },
          "save");
    } catch (...) {
      cancelled->store(true);
      throw;
    }
  }

  void export_weights(const py::object& path) {
    const std::string file = path_of(path, "export_weights: path");
    Claim claim(m_use, true);
    Unlocked unlocked;
    trainer().ensure_finite();
    const std::vector<float> params = trainer().parameters();
    const Image& img = trainer().dataset().image;
    export_weights_safetensors(file, {&trainer().config(), params, img.width, img.height, trainer().current_step()});
  }

  /// The metrics rows so far (refused while another thread trains: the history grows then).
  py::dict metrics() {
    Claim claim(m_use, true);
    return history_arrays(trainer().record().rows());
  }

  /// The relocations of the Gaussians or sad sites so far (training.grow): (step, moved) pairs, oldest first.
  py::list growth() {
    Claim claim(m_use, true);
    py::list out;
    for (const GrowthEvent& e : trainer().record().growth()) out.append(py::make_tuple(e.step, e.moved));
    return out;
  }

  /// The training picture (H, W, C) as a read-only view of the engine's own pixels.
  py::array_t<float> target(const py::object& self) {
    const Image& img = trainer().dataset().image;
    py::array_t<float> a({py::ssize_t(img.height), py::ssize_t(img.width), py::ssize_t(img.channels)},
                         img.pixels.data(), self);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
  }
  uintptr_t target_address() { return reinterpret_cast<uintptr_t>(trainer().dataset().image.pixels.data()); }
  const std::vector<std::string>& notices() const { return m_notices; }

private:
  /// train's slices: each with the GIL released, then each metrics row it brought handed to the
  /// callback with the trainer lent (it may render or predict), signals checked between.
  void run_slices(RunLoop& loop, const LoopEvents& events, std::vector<MetricsRow>& rows, const py::object& callback,
                  std::optional<MetricsRow>& last) {
    const bool has_callback = !callback.is_none();
    for (;;) {
      LoopEnd end = LoopEnd::Slice;
      {
        Unlocked unlocked;
        end = loop.slice(events);
      }
      if (end == LoopEnd::Diverged) throw DivergedError(loop.diverged());
      bool stop = end != LoopEnd::Slice;
      for (const MetricsRow& r : rows) {
        last = r;
        if (has_callback && !stop_requested() && !call_back(callback, r)) stop = true;
      }
      rows.clear();
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (stop) return;
    }
  }

  /// callback(step, loss, psnr_db) with the trainer lent; false when it returned False.
  bool call_back(const py::object& callback, const MetricsRow& r) {
    const CallingPython calling; // the exit hook waits for the callback to return (py_interrupt.h)
    py::object go;
    {
      Lend lent(m_use);
      go = callback(r.step, r.loss, r.psnr_db);
    }
    if (go.is_none()) return true;
    py::detail::make_caster<bool> answer;
    if (!answer.load(go, false))
      throw py::type_error("train: callback must return True, False or None, not " +
                           std::string(py::str(go.get_type().attr("__name__"))));
    return static_cast<bool>(answer);
  }

  static void set_size(RunConfig& c, const py::object& size) {
    if (size.is_none()) return;
    if (!py::isinstance<py::str>(size) && py::isinstance<py::sequence>(size)) {
      const auto wh = size.cast<py::sequence>();
      if (wh.size() != 2)
        throw py::value_error("size: (width, height) must be two numbers, not " + std::to_string(wh.size()));
      const int64_t w = int_arg(wh[0], "Trainer: size's width").value_or(0);
      const int64_t h = int_arg(wh[1], "Trainer: size's height").value_or(0);
      if (w < 1 || h < 1 || w > k_max_train_side || h > k_max_train_side)
        throw py::value_error("size: (width, height) must each be in 1.." + std::to_string(k_max_train_side));
      c.data.width = int32_t(w);
      c.data.height = int32_t(h);
      return;
    }
    if (!PyIndex_Check(size.ptr()) || PyBool_Check(size.ptr()))
      throw py::type_error("Trainer: size: expected None, an int or (width, height), not " +
                           std::string(py::str(size.get_type().attr("__name__"))));
    const int64_t side = *int_arg(size, "Trainer: size");
    if (side < 0) throw py::value_error("size: must be a longest side >= 1, 0 for full resolution, or (width, height)");
    c.data.max_side = int32_t(std::min<int64_t>(side, std::numeric_limits<int32_t>::max()));
    c.data.width = c.data.height = 0;
  }

  OpenedRun m_run;
  std::vector<std::string> m_notices;
  std::atomic<TrainerUse> m_use{TrainerUse::Idle};
};

} // namespace

void bind_trainer(py::module_& m) {
  py::class_<PyTrainer>(m, "Trainer", "One training run on an image (docs/python.md)")
      .def(py::init<const py::object&, const py::object&, const py::object&, const py::object&, const py::object&,
                    const py::object&, const py::object&, const py::object&>(),
           py::arg("image"), py::arg("preset") = "instant", py::arg("backend") = k_auto_backend, py::arg("seed") = py::none(),
           py::arg("size") = py::none(), py::arg("steps") = py::none(), py::arg("precision") = "",
           py::arg("color") = py::none(),
           "image: a file path or an (H, W[, C]) array (float in [0, 1], uint8 or uint16; C = 1..4). "
           "preset: a preset name, a JSON config path or a config dict. seed: None keeps the config's. "
           "size: None (the config's), a longest side (0: full resolution) or (width, height). "
           "steps: the run's total steps (None: the config's). color: auto, rgb, gray or binary (None: the config's).")
      .def(
          "step",
          [](PyTrainer& t, const py::object& n) {
            const int64_t count = int_arg(n, "step: n").value_or(1);
            if (count < 0) throw py::value_error("step: n must not be negative");
            const auto row = t.train(count, std::numeric_limits<double>::infinity(), py::none(), false);
            return row ? py::object(row_dict(*row)) : py::object(py::none());
          },
          py::arg("n") = 1, "Runs n steps; returns the last metrics row they produced, or None.")
      .def(
          "train",
          [](PyTrainer& t, const py::object& steps, const py::object& seconds, const py::object& callback) {
            const std::optional<int64_t> n = int_arg(steps, "train: steps");
            const std::optional<double> s = float_arg(seconds, "train: seconds");
            if (n && *n < 0) throw py::value_error("train: steps must not be negative");
            if (s && !(*s > 0)) throw py::value_error("train: seconds must be positive");
            if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
              throw py::type_error("train: callback: expected a callable or None, not " +
                                   std::string(py::str(callback.get_type().attr("__name__"))));
            const auto row = t.train(n, s ? *s : std::numeric_limits<double>::infinity(), callback, true);
            return row ? py::object(row_dict(*row)) : py::object(py::none());
          },
          py::arg("steps") = py::none(), py::arg("seconds") = py::none(), py::arg("callback") = py::none(),
          "Trains `steps` more steps (default: to the run's total), for at most `seconds` of training time "
          "(the schedule anneals to it), calling callback(step, loss, psnr_db) at each metrics row; a callback "
          "returning False stops. Returns the last row.")
      .def_property_readonly("metrics", &PyTrainer::metrics,
                             "The metrics rows as a dict of numpy arrays: step, loss, psnr_db, lr, seconds, psnr_exact.")
      .def_property_readonly("growth", &PyTrainer::growth,
                             "The relocations of the Gaussians or sad sites (training.grow) so far: (step, moved) "
                             "pairs, oldest first.")
      .def_property_readonly("step_count", [](PyTrainer& t) { return t.trainer().current_step(); })
      .def_property_readonly("total_steps", [](PyTrainer& t) { return t.trainer().total_steps(); })
      .def_property_readonly("elapsed_seconds", [](PyTrainer& t) { return t.trainer().clock().elapsed(); })
      .def_property_readonly("config", [](PyTrainer& t) { return python_of(to_json(t.trainer().config())); })
      .def_property_readonly("backend", [](PyTrainer& t) { return t.trainer().backend().name(); })
      .def_property_readonly("notices", &PyTrainer::notices)
      .def_property_readonly("size", [](PyTrainer& t) {
        return py::make_tuple(t.trainer().dataset().image.width, t.trainer().dataset().image.height);
      }, "The training size (width, height).")
      .def_property_readonly("target", [](py::object self) { return self.cast<PyTrainer&>().target(self); },
                             "The training picture (H, W, C), a read-only view of the engine's pixels.")
      .def("_target_address", &PyTrainer::target_address)
      .def("render", &PyTrainer::render, py::arg("width") = py::none(), py::arg("height") = py::none(),
           "The network's picture at width x height (default: the training size): (H, W, C) float32 in [0, 1].")
      .def("predict", &PyTrainer::predict, py::arg("coords"),
           "The network's outputs (N, C) float32, unclamped, at (N, 2) coordinates (x, y) in [0, 1]^2.")
      .def("save", &PyTrainer::save, py::arg("path"), "Writes the run as a .redraw model (atomically).")
      .def("export_weights", &PyTrainer::export_weights, py::arg("path"),
           "Writes the network's tensors as safetensors (atomically).");
}

} // namespace redraw::python
