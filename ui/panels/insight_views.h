#pragma once
/// The insight views' upkeep: feeds the InsightWorker, folds its results into InsightState and
/// the textures, and writes the views' exports. GUI thread only, GL context current.
/// - Spectrum: each new host preview of the run (a new step) is analysed on the worker: the three
///   log-magnitude pictures, and a row of the error's band powers appended to the history (rows
///   at the previews' steps; a recovery or branch that goes back drops the later rows). The worker
///   is kept busy at most ~10% of the time (the next job waits 9x the last one's duration, and at
///   least 2 s while training), so training keeps its throughput with the window open.
/// - Neuron maps: while the window is open, the session is asked for the parameters, and the
///   worker computes the chosen layer's maps from them, with the same duty cycle and cap.
#include "ui/session/insight_worker.h"
#include "ui/widgets/preview_texture.h"
#include "ui/state/ui_state.h"

#include <memory>

namespace redraw {

class TrainingSession;

/// The worker and the textures of the insight views; made and destroyed with the GL context current.
class InsightResources {
public:
  InsightResources();
  InsightWorker worker;
  std::unique_ptr<PreviewTexture> spectrum_truth, spectrum_recon, spectrum_error, spectrum_heat, neuron_atlas,
      owner_map; ///< the primitives view's owner map (sites)
};

/// Every time the frame loop wakes, after absorb_snapshot: results in, new jobs out for `run` (the
/// run the views show: run A), through `session`, its session. True when a
/// result changed what an open view shows (the frame loop then draws a frame).
bool update_insight(UiState& ui, const RunView& run, TrainingSession& session);

/// The heat map's value for a history row's band: log10 of the radially averaged power, or with
/// heat_relative log10 of the band's power over its power in the first row.
double spectrum_heat_value(const SpectrumViewState& s, size_t row, int32_t band);

/// Units of the neuron maps in display order (by variance, largest first, when asked).
std::vector<int32_t> neuron_display_order(const NeuronMaps& maps, bool by_variance);
/// The colour range of unit u under the view's scale choice (shared: every unit's min and max).
void neuron_unit_range(const NeuronMaps& maps, int32_t u, bool shared, float& lo, float& hi);
/// Pixels between two thumbnails of the neuron grid.
constexpr int32_t k_neuron_gap = 2;
/// The page's thumbnails tiled cols x rows with a k_neuron_gap grey gap, as RGB floats (the export and the texture).
Image neuron_page_image(const NeuronMaps& maps, const std::vector<int32_t>& order, int32_t page, int32_t per_page,
                        bool shared, int32_t& cols, int32_t& rows);

/// The screenshot mode's wait: every open insight view shows step >= `step`.
bool insight_ready(const UiState& ui, int64_t step);
/// Writes FILE.insight.json beside a screenshot: the open views' rectangles (framebuffer
/// pixels) and steps, for tests/gui/gui_insight_check.cpp. Returns "" or the error.
std::string write_insight_sidecar(const UiState& ui, const std::string& screenshot);
/// Stores the last ImGui item's rectangle in framebuffer pixels.
void store_item_rect(float out[4]);
/// Where the views' export fields start: the last folder, named after the run's source + suffix.
std::string insight_export_path(const UiState& ui, const char* suffix);
/// File exports; each returns "" or the error. PNG files are written atomically.
std::string export_spectrum_png(const UiState& ui, const std::string& path);
std::string export_spectrum_csv(const UiState& ui, const std::string& path);
std::string export_neuron_png(const UiState& ui, const std::string& path);
/// The curves on screen as metrics.csv (engine/metric_columns.h's metrics_csv; `event` empty).
std::string export_curves_csv(const UiState& ui, const std::string& path);

} // namespace redraw
