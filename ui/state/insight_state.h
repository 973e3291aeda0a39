#pragma once
/// State of the insight views (the Spectrum and Neuron maps windows), as plain structs owned by
/// UiState. GUI thread only; the computations run on an InsightWorker (ui/session/insight_worker.h).
#include "engine/insight/primitive_view.h"
#include "engine/insight/neuron_maps.h"
#include "engine/insight/spectrum.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace redraw {

class InsightResources;

/// The Spectrum window: the three log-magnitude pictures and the error's band-power history.
struct SpectrumViewState {
  uint64_t run_id = 0;              ///< run the history belongs to
  std::vector<SpectrumRow> history; ///< one row per analysed preview, in step order
  std::vector<int64_t> bins;        ///< DFT bins per band (for the radially averaged power)
  int64_t shown_step = -1;          ///< step of the magnitude pictures on screen
  int64_t submitted_step = -1;      ///< step of the preview last handed to the worker
  double next_submit = 0;           ///< glfwGetTime() before which no new job starts (duty cycle)
  double last_host_request = 0;
  int32_t width = 0, height = 0;   ///< size of the magnitude pictures
  bool heat_dirty = false;         ///< rebuild the heat-map texture
  bool heat_relative = false;      ///< colour each band relative to its first row (its own convergence)
  double heat_lo = 0, heat_hi = 0; ///< log10 range of the heat map's colours
  int32_t heat_columns = 0;        ///< columns of the heat-map texture (history resampled)
  std::string export_path;         ///< PNG path; the CSV and heat map go beside it
  std::vector<uint8_t> truth_rgba, recon_rgba, error_rgba; ///< the pictures on screen (for the export)
  std::vector<uint8_t> heat_rgba;                          ///< the heat map on screen, heat_columns x bands
  float recon_rect[4] = {0, 0, 0, 0}; ///< last frame's reconstruction spectrum, x y w h in framebuffer pixels
  float heat_rect[4] = {0, 0, 0, 0};  ///< last frame's heat map, likewise
};

/// The Neuron maps window: one thumbnail per unit of the chosen layer.
struct NeuronMapViewState {
  int32_t layer = 1;         ///< 0 encoding, 1..H hidden, H + 1 output
  int32_t side = 64;         ///< thumbnail's longest side
  bool shared_scale = false; ///< one colour scale for every unit (else each its own)
  bool sort_by_variance = false;
  int32_t page = 0, per_page = 64;
  int32_t enlarged = -1; ///< unit shown large, -1 none
  std::shared_ptr<const NeuronMaps> maps;
  int64_t maps_step = -1;
  uint64_t maps_trainer = 0;      ///< trainer the maps were computed for
  bool network_requested = false; ///< asked the session for parameters, not yet arrived
  double requested_at = 0;        ///< when; a request unanswered for 2 s is given up (no run, an error)
  double next_request = 0;        ///< duty cycle, as for the spectrum
  bool atlas_dirty = false;       ///< rebuild the page's texture
  std::vector<int32_t> order;     ///< units in display order (sorted or not)
  int32_t atlas_cols = 0, atlas_rows = 0, atlas_page = -1;
  std::string error; ///< the last computation's error, shown in the window
  std::string export_path;
  float grid_rect[4] = {0, 0, 0, 0}; ///< last frame's grid, x y w h in framebuffer pixels
};

/// The primitives view, in the Neuron maps window's place when the model is `gaussians` or `sad`:
/// its Gaussians or sites as ellipses over run A's picture, and the sites' owner map
/// (ui/panels/primitives_view.h).
struct PrimitivesViewState {
  bool overlay = true;   ///< draw the ellipses over the picture
  int32_t colour_by = 0; ///< PrimitiveColour: size, colour or change
  std::shared_ptr<const PrimitiveView> view;
  uint64_t trainer = 0;           ///< trainer the view was made for
  double next_request = 0;        ///< duty cycle, as for the maps
  int64_t visible = 0, drawn = 0; ///< last frame: ellipses in the pane, and those outlined
  int32_t owner_mode = 1;         ///< the owner map: 0 off, 1 the sites' colours, 2 distinct colours
  float owner_alpha = 0.85f;      ///< its opacity over the picture
  bool owner_dirty = false;       ///< the view or the mode changed: the texture is remade
  int64_t owner_shown = -1;       ///< the view step the owner map's texture holds
};

struct InsightState {
  SpectrumViewState spectrum;
  NeuronMapViewState neurons;
  PrimitivesViewState primitives;
  std::shared_ptr<const NetworkSnapshot> network; ///< parameters from the session, not yet used
  InsightResources* res = nullptr;                ///< worker and textures (owned by run_gui)
};

} // namespace redraw
