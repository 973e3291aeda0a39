// What a TrainingSession writes: model files (save, autosave, a kept copy) and the exports
// (picture, comparison, timelapse), each queued to the session's thread.
#include "ui/training_session.h"
#include "ui/training_session_run.h"

#include "engine/comparison.h"
#include "engine/errors.h"
#include "engine/render_export.h"
#include "engine/renderer.h"
#include "engine/trainer.h"

#include <cstdio>
#include <filesystem>
#include <string>

namespace redraw {

void TrainingSession::save_model(const std::string& path) {
  post([this, path] {
    if (!m_run) return report_error("save: nothing to save yet (open an image first)");
    try {
      save_checkpoint(path, m_run->trainer->checkpoint(m_run->source_image));
      report_recoveries();
      m_saved_change = m_change;
      m_model_path = path;
      {
        std::lock_guard lock(m_mutex);
        m_back.saved_models.push_back(path);
      }
      report_notice("saved " + path);
    } catch (const std::exception& e) {
      report_error(std::string("save: ") + e.what());
      std::lock_guard lock(m_mutex);
      m_back.failed_saves.push_back(path);
    }
  });
}

void TrainingSession::autosave(const std::string& path) {
  post([this, path] {
    if (!m_run) return;
    Trainer& t = *m_run->trainer;
    if (m_autosaved_trainer == m_trainer_id && m_autosaved_step == t.current_step()) return;
    try {
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
      save_checkpoint(path, t.checkpoint(m_run->source_image));
      report_recoveries(); // a diverged state is recovered before it is saved
      m_autosaved_trainer = m_trainer_id;
      m_autosaved_step = t.current_step();
      m_autosave_failed = false;
    } catch (const std::exception& e) {
      if (!m_autosave_failed) report_error(std::string("autosave failed: ") + e.what());
      m_autosave_failed = true;
    }
  });
}

void TrainingSession::keep_copy(const std::string& path) {
  post([this, path] {
    if (!m_run) return;
    try {
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
      save_checkpoint(path, m_run->trainer->checkpoint(m_run->source_image));
      report_recoveries();
      report_notice("the discarded run is kept in " + path);
    } catch (const std::exception& e) {
      report_error(std::string("could not keep a copy of the discarded run: ") + e.what());
    }
  });
}

void TrainingSession::run_export(const std::string& what, const std::string& path,
                                 const std::function<void(const std::function<bool(double)>&)>& work) {
  m_cancel = false;
  {
    std::lock_guard lock(m_mutex);
    m_back.status.busy = true;
    m_back.status.busy_what = what;
    m_back.status.busy_progress = 0;
  }
  const auto progress = [this](double f) {
    std::lock_guard lock(m_mutex);
    m_back.status.busy_progress = f;
    return !m_quit && !m_cancel;
  };
  try {
    work(progress);
    report_notice(what + " done: " + path);
  } catch (const CancelledError&) {
    report_notice(what + " cancelled; nothing was written");
  } catch (const std::bad_alloc&) {
    report_error(what + ": out of memory; nothing was written");
  } catch (const std::exception& e) {
    report_error(what + ": " + e.what());
  }
  std::lock_guard lock(m_mutex);
  m_back.status.busy = false;
  m_back.status.busy_progress = 0;
}

void TrainingSession::export_image(const std::string& path, int32_t w, int32_t h, int bit_depth,
                                   int64_t snapshot_step) {
  post([this, path, w, h, bit_depth, snapshot_step] {
    if (!m_run) return report_error("export: nothing to export yet (open an image first)");
    Trainer& t = *m_run->trainer;
    std::string what = "export " + std::to_string(w) + "x" + std::to_string(h);
    std::vector<float> params;
    if (snapshot_step >= 0 && t.snapshot_count() > 0) {
      const Snapshot& s = t.snapshot(t.snapshots().index_at_step(snapshot_step));
      params = s.params;
      what += " (step " + std::to_string(s.metrics.step) + ")";
    } else {
      params = t.parameters();
    }
    run_export(what, path, [&](const std::function<bool(double)>& progress) {
      RenderOptions opts;
      opts.progress = progress;
      const NetworkView net{&t.config().model, params, t.fourier_b()};
      export_render_png(t.backend(), net, w, h, path, bit_depth, opts);
    });
  });
}

void TrainingSession::export_comparison(const std::string& path, int32_t w, int32_t h, int bit_depth) {
  post([this, path, w, h, bit_depth] {
    if (!m_run) return report_error("comparison: nothing to export yet (open an image first)");
    if (m_run->image.empty()) return report_error("comparison: the original image of this run is not available");
    Trainer& t = *m_run->trainer;
    run_export("comparison " + std::to_string(2 * w) + "x" + std::to_string(h), path,
               [&](const std::function<bool(double)>& progress) {
                 const Image original = comparison_original(load_image(m_run->image), t.config().data);
                 const std::vector<float> params = t.parameters();
                 const NetworkView net{&t.config().model, params, t.fourier_b()};
                 RenderOptions opts;
                 opts.progress = progress;
                 export_comparison_png(t.backend(), net, original, w, h, path, bit_depth, opts);
               });
  });
}

void TrainingSession::export_timelapse(const std::string& path, TimelapseOptions opts) {
  post([this, path, opts]() mutable {
    if (!m_run) return report_error("timelapse: nothing to export yet (open an image first)");
    Trainer& t = *m_run->trainer;
    run_export("timelapse (" + std::to_string(t.snapshot_count()) + " frames)", path,
               [&](const std::function<bool(double)>& progress) {
                 opts.progress = progress;
                 redraw::export_timelapse(t.backend(), t.config().model, t.fourier_b(), t.snapshots().frames(), path,
                                          opts);
               });
  });
}

} // namespace redraw
