#include "python/bindings/py_trainer.h"

#include "app/backend_registry.h"
#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "engine/model_files/weights_export.h"
#include "engine/training/open_pixels.h"
#include "engine/training/open_run.h"
#include "python/bindings/py_arrays.h"
#include "python/bindings/py_convert.h"
#include "python/bindings/py_network.h"

#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace redraw::python {

namespace {

/// Marks the trainer busy for one call; a second thread's call is refused, not raced.
class BusyGuard {
public:
  explicit BusyGuard(std::atomic<bool>& busy) : m_busy(busy) {
    if (m_busy.exchange(true)) throw py::value_error("Trainer: another thread is using this trainer");
  }
  ~BusyGuard() { m_busy = false; }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

private:
  std::atomic<bool>& m_busy;
};

class PyTrainer {
public:
  PyTrainer(const py::object& image, const py::object& preset, const std::string& backend,
            const std::optional<uint64_t>& seed, const py::object& size, const std::optional<int64_t>& steps,
            const std::string& precision, const std::optional<std::string>& color) {
    OpenRunOptions options;
    options.backend = backend;
    options.precision = precision;
    options.config = config_of(preset);
    RunConfig& c = options.config;
    if (seed) c.training.seed = *seed;
    if (steps) {
      if (*steps < 0) throw py::value_error("steps: must not be negative");
      c.training.steps = *steps;
    }
    set_size(c, size);
    if (color) c.data.color_mode = parse_color_mode(*color);
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

  /// Up to n steps, or until seconds of training time pass or callback returns False.
  std::optional<MetricsRow> train(int64_t n, double seconds, const py::object& callback) {
    BusyGuard busy(m_busy);
    Trainer& t = trainer();
    const bool has_callback = !callback.is_none();
    const double start_seconds = t.clock().elapsed();
    const bool timed = std::isfinite(seconds);
    if (timed) t.set_time_budget(seconds); // the schedule anneals to the deadline, as train --time-limit
    std::optional<MetricsRow> last;
    int64_t done = 0;
    bool stop = false;
    const auto finish = [&] {
      py::gil_scoped_release unlocked;
      for (const MetricsRow& r : t.flush_metrics()) last = r;
      t.pause_clock();
      t.ensure_finite();
      if (timed) t.set_time_budget(0);
    };
    try {
      while (done < n && !stop) {
        std::vector<MetricsRow> rows;
        {
          py::gil_scoped_release unlocked;
          const auto slice_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
          while (done < n) {
            if (timed && t.clock().elapsed() - start_seconds >= seconds) {
              stop = true;
              break;
            }
            const std::optional<MetricsRow> row = t.step();
            ++done;
            if (row) {
              rows.push_back(*row);
              if (has_callback) break; // the callback sees each row at once and may stop here
            }
            if (std::chrono::steady_clock::now() >= slice_end) break;
          }
        }
        for (const MetricsRow& r : rows) {
          last = r;
          if (has_callback) {
            // The trainer is idle while the callback runs: it may render or predict (a live view).
            m_busy = false;
            py::object go;
            try {
              go = callback(r.step, r.loss, r.psnr_db);
            } catch (...) {
              m_busy = true; // BusyGuard's to release
              throw;
            }
            if (m_busy.exchange(true)) throw py::value_error("Trainer: another thread is using this trainer");
            if (!go.is_none() && !go.cast<bool>()) stop = true;
          }
        }
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      }
    } catch (...) {
      finish();
      throw;
    }
    finish();
    return last;
  }

  py::array_t<float> render(const std::optional<int32_t>& w, const std::optional<int32_t>& h) {
    BusyGuard busy(m_busy);
    int32_t rw = 0, rh = 0;
    render_size(w, h, trainer().dataset().image.width, trainer().dataset().image.height, rw, rh);
    Image img;
    {
      py::gil_scoped_release unlocked;
      img = trainer().render(rw, rh);
    }
    return array_from_image(std::move(img));
  }

  py::array_t<float> predict(const py::object& coords) {
    BusyGuard busy(m_busy);
    {
      py::gil_scoped_release unlocked;
      trainer().ensure_finite(); // never a diverged network (as render)
    }
    return predict_array(trainer().backend(), bound_network(trainer().config().model), coords);
  }

  void save(const py::object& path) {
    BusyGuard busy(m_busy);
    const std::string file = path_of(path, "path");
    py::gil_scoped_release unlocked;
    AtomicFileWriter out(file);
    trainer().with_checkpoint(m_run.source_image, [&](const Checkpoint& c) { write_checkpoint(out, c); });
    out.commit();
  }

  void export_weights(const py::object& path) {
    BusyGuard busy(m_busy);
    const std::string file = path_of(path, "path");
    py::gil_scoped_release unlocked;
    trainer().ensure_finite();
    const std::vector<float> params = trainer().parameters();
    const Image& img = trainer().dataset().image;
    export_weights_safetensors(file, {&trainer().config(), params, img.width, img.height, trainer().current_step()});
  }

  /// The metrics rows so far (refused while another thread trains: the history grows then).
  py::dict metrics() {
    BusyGuard busy(m_busy);
    return history_arrays(trainer().record().rows());
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
  static void set_size(RunConfig& c, const py::object& size) {
    if (size.is_none()) return;
    if (py::isinstance<py::int_>(size)) {
      const int64_t side = size.cast<int64_t>();
      if (side < 0) throw py::value_error("size: must be a longest side >= 1, 0 for full resolution, or (width, height)");
      c.data.max_side = int32_t(std::min<int64_t>(side, std::numeric_limits<int32_t>::max()));
      c.data.width = c.data.height = 0;
      return;
    }
    const auto wh = size.cast<std::vector<int64_t>>();
    if (wh.size() != 2 || wh[0] < 1 || wh[1] < 1 || wh[0] > k_max_train_side || wh[1] > k_max_train_side)
      throw py::value_error("size: (width, height) must each be in 1.." + std::to_string(k_max_train_side));
    c.data.width = int32_t(wh[0]);
    c.data.height = int32_t(wh[1]);
  }

  OpenedRun m_run;
  std::vector<std::string> m_notices;
  std::atomic<bool> m_busy{false};
};

} // namespace

void bind_trainer(py::module_& m) {
  py::class_<PyTrainer>(m, "Trainer", "One training run on an image (docs/python.md)")
      .def(py::init<const py::object&, const py::object&, const std::string&, const std::optional<uint64_t>&,
                    const py::object&, const std::optional<int64_t>&, const std::string&,
                    const std::optional<std::string>&>(),
           py::arg("image"), py::arg("preset") = "instant", py::arg("backend") = k_auto_backend, py::arg("seed") = py::none(),
           py::arg("size") = py::none(), py::arg("steps") = py::none(), py::arg("precision") = "",
           py::arg("color") = py::none(),
           "image: a file path or an (H, W[, C]) array (float in [0, 1], uint8 or uint16; C = 1..4). "
           "preset: a preset name, a JSON config path or a config dict. seed: None keeps the config's. "
           "size: None (the config's), a longest side (0: full resolution) or (width, height). "
           "steps: the run's total steps (None: the config's). color: auto, rgb, gray or binary (None: the config's).")
      .def(
          "step",
          [](PyTrainer& t, int64_t n) {
            if (n < 0) throw py::value_error("step: n must not be negative");
            const auto row = t.train(n, std::numeric_limits<double>::infinity(), py::none());
            return row ? py::object(row_dict(*row)) : py::object(py::none());
          },
          py::arg("n") = 1, "Runs n steps; returns the last metrics row they produced, or None.")
      .def(
          "train",
          [](PyTrainer& t, const std::optional<int64_t>& steps, const std::optional<double>& seconds,
             const py::object& callback) {
            if (steps && *steps < 0) throw py::value_error("train: steps must not be negative");
            if (seconds && !(*seconds > 0)) throw py::value_error("train: seconds must be positive");
            Trainer& tr = t.trainer();
            int64_t n = steps ? *steps : std::max<int64_t>(0, tr.total_steps() - tr.current_step());
            if (steps && tr.current_step() + n > tr.total_steps()) tr.set_total_steps(tr.current_step() + n);
            const auto row = t.train(n, seconds ? *seconds : std::numeric_limits<double>::infinity(), callback);
            return row ? py::object(row_dict(*row)) : py::object(py::none());
          },
          py::arg("steps") = py::none(), py::arg("seconds") = py::none(), py::arg("callback") = py::none(),
          "Trains `steps` more steps (default: to the run's total), for at most `seconds` of training time "
          "(the schedule anneals to it), calling callback(step, loss, psnr_db) at each metrics row; a callback "
          "returning False stops. Returns the last row.")
      .def_property_readonly("metrics", &PyTrainer::metrics,
                             "The metrics rows as a dict of numpy arrays: step, loss, psnr_db, lr, seconds, psnr_exact.")
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
