// The session's commands that write files: models (save, autosave, a kept copy) and exports.
#include "ui/live_run.h"
#include "ui/training_session.h"

#include <string>

namespace redraw {

void TrainingSession::save_model(const std::string& path) {
  post([this, path] {
    if (!m_run) return report_error("save: nothing to save yet (open an image first)");
    try {
      write_model(path, false);
      m_saved_change = m_change;
      m_model_path = path;
      m_mailbox.saved(path);
      report_notice("saved " + path);
    } catch (const std::exception& e) {
      report_error(std::string("save: ") + e.what());
      m_mailbox.save_failed(path);
    }
  });
}

void TrainingSession::autosave(const std::string& path) {
  post([this, path] {
    if (!m_run) return;
    Trainer& t = *m_run->trainer;
    if (m_autosaved_trainer == m_trainer_id && m_autosaved_step == t.current_step()) return;
    try {
      write_model(path, true);
      m_autosaved_trainer = m_trainer_id;
      m_autosaved_step = t.current_step();
      m_autosave_failed = false;
      std::lock_guard lock(m_mutex);
      m_autosave_error.clear();
    } catch (const std::exception& e) {
      if (!m_autosave_failed) report_error(std::string("autosave failed: ") + e.what());
      m_autosave_failed = true;
      std::lock_guard lock(m_mutex);
      m_autosave_error = e.what();
    }
  });
}

std::string TrainingSession::autosave_error() const {
  std::lock_guard lock(m_mutex);
  return m_autosave_error;
}

void TrainingSession::keep_copy(const std::string& path) {
  post_to_run("could not keep a copy of the discarded run", [this, path] {
    write_model(path, true);
    report_notice("the discarded run is kept in " + path);
  });
}

void TrainingSession::write_model(const std::string& path, bool make_folder) {
  m_run->write_model(path, make_folder);
  report_recoveries(); // a diverged state is recovered before it is saved
}

void TrainingSession::run_export(const std::string& what, const std::string& path,
                                 const std::function<void(const std::function<bool(double)>&)>& work) {
  m_cancel = false;
  m_run->run_export(m_mailbox, what, path, work, [this] {
    std::lock_guard lock(m_mutex);
    return !m_quit && !m_cancel;
  });
}

void TrainingSession::export_image(const std::string& path, int32_t w, int32_t h, int bit_depth,
                                   int64_t snapshot_step) {
  post([this, path, w, h, bit_depth, snapshot_step] {
    if (!m_run) return report_error("export: nothing to export yet (open an image first)");
    run_export(m_run->export_image_what(w, h, snapshot_step), path, [&](const std::function<bool(double)>& progress) {
      m_run->export_image(path, w, h, bit_depth, snapshot_step, progress);
    });
  });
}

void TrainingSession::export_comparison(const std::string& path, int32_t w, int32_t h, int bit_depth) {
  post([this, path, w, h, bit_depth] {
    if (!m_run) return report_error("comparison: nothing to export yet (open an image first)");
    if (m_run->image.empty()) return report_error("comparison: the original image of this run is not available");
    run_export("comparison " + std::to_string(2 * w) + "x" + std::to_string(h), path,
               [&](const std::function<bool(double)>& progress) {
                 m_run->export_comparison(path, w, h, bit_depth, progress);
               });
  });
}

void TrainingSession::export_timelapse(const std::string& path, TimelapseOptions opts) {
  post([this, path, opts] {
    if (!m_run) return report_error("timelapse: nothing to export yet (open an image first)");
    run_export("timelapse (" + std::to_string(m_run->trainer->snapshot_count()) + " frames)", path,
               [&](const std::function<bool(double)>& progress) { m_run->export_timelapse(path, opts, progress); });
  });
}

} // namespace redraw
