#include "ui/panels/insight_views.h"

#include "engine/atomic_file.h"
#include "engine/metric_columns.h"
#include "engine/model_family.h"
#include "ui/panels/primitives_view.h"
#include "ui/widgets/image_views.h"
#include "ui/session/training_session.h"

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <numeric>
#include <string_view>

namespace redraw {
namespace {

constexpr double k_duty = 9.0; ///< idle time after a job, as a multiple of its duration
/// While the run trains, the views refresh at most every 2 s (each refresh is a job and a texture
/// upload, and on two cores a neuron-map job stalls the trainer's whole team); paused, they catch
/// up at once.
constexpr double k_training_refresh_s = 2.0;
constexpr size_t k_max_history_rows = 4000; ///< then every other row is dropped
constexpr int32_t k_max_heat_columns = 512;

void put_rgba(std::vector<uint8_t>& out, size_t i, std::array<uint8_t, 3> c) {
  out[i * 4 + 0] = c[0];
  out[i * 4 + 1] = c[1];
  out[i * 4 + 2] = c[2];
  out[i * 4 + 3] = 255;
}

/// Drops rows at or past `step` (a recovery or branch went back), keeps the history bounded.
void append_row(SpectrumViewState& s, SpectrumRow row) {
  while (!s.history.empty() && s.history.back().step >= row.step)
    s.history.pop_back();
  s.history.push_back(std::move(row));
  if (s.history.size() > k_max_history_rows) {
    std::vector<SpectrumRow> kept;
    for (size_t i = 0; i < s.history.size(); i += 2)
      kept.push_back(std::move(s.history[i]));
    if (kept.back().step != s.history.back().step) kept.push_back(std::move(s.history.back()));
    s.history = std::move(kept);
  }
  s.heat_dirty = true;
}

void rebuild_heat(SpectrumViewState& s, PreviewTexture* tex) {
  s.heat_dirty = false;
  if (s.history.empty() || s.bins.empty()) return;
  const int32_t bands = int32_t(s.bins.size());
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t r = 0; r < s.history.size(); ++r)
    for (int32_t b = 0; b < bands; ++b) {
      const double v = spectrum_heat_value(s, r, b);
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (!(hi >= lo)) return;
  if (hi - lo < 1e-6) hi = lo + 1;
  s.heat_lo = lo;
  s.heat_hi = hi;
  const int32_t cols = std::min<int32_t>(k_max_heat_columns, int32_t(s.history.size()));
  const double first = double(s.history.front().step), last = double(s.history.back().step);
  s.heat_columns = cols;
  s.heat_rgba.assign(size_t(cols) * size_t(bands) * 4, 0);
  size_t r = 0;
  for (int32_t c = 0; c < cols; ++c) {
    // The newest row at or before the column's step (columns span the steps evenly).
    const double at = cols == 1 ? last : first + (last - first) * double(c) / double(cols - 1);
    while (r + 1 < s.history.size() && double(s.history[r + 1].step) <= at + 1e-9)
      ++r;
    for (int32_t b = 0; b < bands; ++b) {
      const double v = spectrum_heat_value(s, r, b);
      const float t = std::isfinite(v) ? float((v - lo) / (hi - lo)) : 0.0f;
      put_rgba(s.heat_rgba, size_t(bands - 1 - b) * size_t(cols) + size_t(c),
               heat_color(t)); // low frequencies at the bottom
    }
  }
  if (tex) tex->upload_host(s.heat_rgba.data(), cols, bands);
}

/// True when a result arrived (or the view was reset for a new run).
bool update_spectrum(UiState& ui, const RunView& run, TrainingSession& session, InsightResources& res) {
  SpectrumViewState& s = ui.insight.spectrum;
  bool news = false;
  if (s.run_id != run.run_id) {
    std::string path = std::move(s.export_path);
    s = SpectrumViewState{};
    s.run_id = run.run_id;
    s.export_path = std::move(path);
    news = true;
  }
  if (auto r = res.worker.take_spectrum()) {
    news = true;
    s.next_submit = ui.now + std::max(run.status.running ? k_training_refresh_s : 0.1, k_duty * r->seconds);
    if (r->run_id == s.run_id && r->error.empty()) {
      s.width = r->width;
      s.height = r->height;
      s.shown_step = r->step;
      s.bins = std::move(r->bins);
      res.spectrum_truth->upload_host(r->truth_rgba.data(), r->width, r->height);
      res.spectrum_recon->upload_host(r->recon_rgba.data(), r->width, r->height);
      res.spectrum_error->upload_host(r->error_rgba.data(), r->width, r->height);
      s.truth_rgba = std::move(r->truth_rgba);
      s.recon_rgba = std::move(r->recon_rgba);
      s.error_rgba = std::move(r->error_rgba);
      append_row(s, SpectrumRow{r->step, std::move(r->band_power)});
    }
  }
  // On a GPU backend the previews skip the host: ask for a host copy about once a second.
  const bool device_path = run.tex.recon && std::string_view(run.tex.recon->kind()) == "cuda-gl";
  if (ui.settings.show_spectrum && device_path && run.status.running && ui.now - s.last_host_request > 1.0) {
    session.post(run_command::RequestHostPreview{});
    s.last_host_request = ui.now;
  }
  const auto& recon = run.reconstruction;
  const Image* truth = recon ? run.truth_for(*recon) : nullptr;
  if (truth && run.preview_step != s.submitted_step && ui.now >= s.next_submit && !res.worker.spectrum_pending()) {
    s.submitted_step = run.preview_step;
    const auto& owner = truth == run.ground_truth.get() ? run.ground_truth : run.truth_shown;
    res.worker.submit(SpectrumJob{owner, recon, run.preview_step, s.run_id});
  }
  if (s.heat_dirty && ui.settings.show_spectrum) rebuild_heat(s, res.spectrum_heat.get());
  return news;
}

/// True when a result arrived (or the maps of an old run were dropped).
bool update_neurons(UiState& ui, const RunView& run, TrainingSession& session, InsightResources& res) {
  NeuronMapViewState& n = ui.insight.neurons;
  const SessionStatus& st = run.status;
  bool news = false;
  if (n.maps_trainer != st.trainer_id && n.maps) {
    n.maps.reset();
    n.maps_step = -1;
    n.enlarged = -1;
    news = true;
  }
  const InsightView kind = model_family(st.config.model.encoding.kind).insight;
  const bool primitives = kind == InsightView::Gaussians || kind == InsightView::Sites;
  PrimitivesViewState& g = ui.insight.primitives;
  if (auto r = res.worker.take_neurons()) {
    news = true;
    const double next = ui.now + std::max(st.running ? k_training_refresh_s : 0.2, k_duty * r->seconds);
    n.error = r->error;
    if (r->primitives) {
      g.next_request = next;
      if (r->error.empty() && r->trainer_id == st.trainer_id) {
        g.view = std::move(r->primitives);
        g.trainer = r->trainer_id;
        g.owner_dirty = true;
      }
    } else {
      n.next_request = next;
      if (r->error.empty() && r->trainer_id == st.trainer_id) {
        n.maps = std::move(r->maps);
        n.maps_step = r->step;
        n.maps_trainer = r->trainer_id;
        n.order = neuron_display_order(*n.maps, n.sort_by_variance);
        n.atlas_dirty = true;
      }
    }
  }
  if (ui.insight.network) {
    auto net = std::move(ui.insight.network);
    ui.insight.network.reset();
    n.network_requested = false;
    const InsightView net_kind = model_family(net->model.encoding.kind).insight;
    if (net_kind == InsightView::Gaussians || net_kind == InsightView::Sites) {
      // The primitives view: its owner map takes a moment for many sites, so the worker makes it.
      NeuronJob job{std::move(net), st.trainer_id, 0, st.width, st.height, true, nullptr};
      if (g.view && g.trainer == st.trainer_id) job.earlier = g.view;
      res.worker.submit(std::move(job));
    } else if (ui.settings.show_neuron_maps) {
      int32_t w = 0, h = 0;
      neuron_map_size(st.width, st.height, n.side, w, h);
      n.layer = std::clamp(n.layer, 0, neuron_layer_count(net->model) - 1);
      res.worker.submit(NeuronJob{std::move(net), st.trainer_id, n.layer, w, h, false, nullptr});
    }
  }
  if (n.network_requested && ui.now - n.requested_at > 2.0) n.network_requested = false;
  if (!ui.settings.show_neuron_maps || !st.has_run || n.network_requested || res.worker.neurons_pending()) return news;
  const bool stale = primitives ? !g.view || g.trainer != st.trainer_id || g.view->step != st.step
                               : !n.maps || n.maps->layer != n.layer || n.maps_step != st.step ||
                                     n.maps_trainer != st.trainer_id;
  if (stale && ui.now >= (primitives ? g.next_request : n.next_request)) {
    session.post(run_command::RequestNetwork{});
    n.network_requested = true;
    n.requested_at = ui.now;
  }
  return news;
}

void rebuild_atlas(UiState& ui, InsightResources& res) {
  NeuronMapViewState& n = ui.insight.neurons;
  n.atlas_dirty = false;
  if (!n.maps) return;
  const int32_t pages = std::max(1, (n.maps->units + n.per_page - 1) / n.per_page);
  n.page = std::clamp(n.page, 0, pages - 1);
  const Image img = neuron_page_image(*n.maps, n.order, n.page, n.per_page, n.shared_scale, n.atlas_cols, n.atlas_rows);
  const std::vector<uint8_t> rgba = to_rgba8(img);
  res.neuron_atlas->upload_host(rgba.data(), img.width, img.height);
  n.atlas_page = n.page;
}

} // namespace

InsightResources::InsightResources()
    : spectrum_truth(make_host_texture()), spectrum_recon(make_host_texture()), spectrum_error(make_host_texture()),
      spectrum_heat(make_host_texture()), neuron_atlas(make_host_texture()),
      owner_map(make_host_texture()) {}

bool update_insight(UiState& ui, const RunView& run, TrainingSession& session) {
  InsightResources* res = ui.insight.res;
  if (!res) return false;
  const bool spectrum = update_spectrum(ui, run, session, *res);
  const bool neurons = update_neurons(ui, run, session, *res);
  if (ui.insight.neurons.atlas_dirty && ui.settings.show_neuron_maps) rebuild_atlas(ui, *res);
  PrimitivesViewState& g = ui.insight.primitives;
  if (g.owner_dirty && g.view && g.view->sites && g.owner_mode != 0 && ui.settings.show_neuron_maps) {
    const std::vector<uint8_t> rgba = owner_map_rgba(*g.view, g.owner_mode);
    res->owner_map->upload_host(rgba.data(), g.view->map_w, g.view->map_h);
    g.owner_shown = g.view->step;
    g.owner_dirty = false;
  }
  return (spectrum && ui.settings.show_spectrum) || (neurons && ui.settings.show_neuron_maps);
}

double spectrum_heat_value(const SpectrumViewState& s, size_t row, int32_t band) {
  const auto& p = s.history[row].band_power;
  if (size_t(band) >= p.size() || size_t(band) >= s.bins.size() || s.bins[size_t(band)] == 0) return NAN;
  double v = p[size_t(band)] / double(s.bins[size_t(band)]);
  if (s.heat_relative) {
    const auto& first = s.history.front().band_power;
    v = size_t(band) < first.size() && first[size_t(band)] > 0 ? p[size_t(band)] / first[size_t(band)] : NAN;
  }
  return v > 0 ? std::log10(v) : NAN;
}

std::vector<int32_t> neuron_display_order(const NeuronMaps& maps, bool by_variance) {
  std::vector<int32_t> order(size_t(maps.units));
  std::iota(order.begin(), order.end(), 0);
  // A non-finite variance (weights caught mid-divergence) sorts last, keeping the order strict.
  const auto key = [&](int32_t u) {
    const double v = maps.variance[size_t(u)];
    return std::isfinite(v) ? v : -1.0;
  };
  if (by_variance) std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return key(a) > key(b); });
  return order;
}

void neuron_unit_range(const NeuronMaps& maps, int32_t u, bool shared, float& lo, float& hi) {
  if (shared && maps.units > 0) {
    lo = *std::min_element(maps.lo.begin(), maps.lo.end());
    hi = *std::max_element(maps.hi.begin(), maps.hi.end());
  } else {
    lo = maps.lo[size_t(u)];
    hi = maps.hi[size_t(u)];
  }
}

Image neuron_page_image(const NeuronMaps& maps, const std::vector<int32_t>& order, int32_t page, int32_t per_page,
                        bool shared, int32_t& cols, int32_t& rows) {
  const int32_t first = page * per_page;
  const int32_t count = std::max(0, std::min(per_page, maps.units - first));
  cols = std::max(1, int32_t(std::ceil(std::sqrt(double(std::max(1, count)) * maps.height / maps.width))));
  rows = std::max(1, (count + cols - 1) / cols);
  constexpr int32_t gap = k_neuron_gap;
  Image img;
  img.width = cols * (maps.width + gap) - gap;
  img.height = rows * (maps.height + gap) - gap;
  img.channels = 3;
  img.pixels.assign(size_t(img.width) * size_t(img.height) * 3, 0.45f);
  for (int32_t k = 0; k < count; ++k) {
    const int32_t u = order[size_t(first + k)];
    float lo = 0, hi = 0;
    neuron_unit_range(maps, u, shared, lo, hi);
    const float inv = hi > lo ? 1.0f / (hi - lo) : 0.0f;
    const int32_t ox = (k % cols) * (maps.width + gap), oy = (k / cols) * (maps.height + gap);
    const float* m = maps.map(u);
    for (int32_t y = 0; y < maps.height; ++y)
      for (int32_t x = 0; x < maps.width; ++x) {
        const float v = m[size_t(y) * size_t(maps.width) + size_t(x)];
        const float t = std::isfinite(v) ? (hi > lo ? (v - lo) * inv : 0.5f) : 0.0f;
        const auto c = heat_color(t);
        for (int32_t ch = 0; ch < 3; ++ch)
          img.at(ox + x, oy + y, ch) = float(c[size_t(ch)]) / 255.0f;
      }
  }
  return img;
}

namespace {
Image rgba_to_image(const std::vector<uint8_t>& rgba, int32_t w, int32_t h) {
  Image img;
  img.width = w;
  img.height = h;
  img.channels = 3;
  img.pixels.resize(size_t(w) * size_t(h) * 3);
  for (size_t i = 0; i < size_t(w) * size_t(h); ++i)
    for (size_t c = 0; c < 3; ++c)
      img.pixels[i * 3 + c] = float(rgba[i * 4 + c]) / 255.0f;
  return img;
}

std::string beside(const std::string& path, const std::string& suffix_ext) {
  std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + suffix_ext)).string();
}
} // namespace

bool insight_ready(const UiState& ui, int64_t step) {
  const SpectrumViewState& s = ui.insight.spectrum;
  const NeuronMapViewState& n = ui.insight.neurons;
  if (ui.settings.show_spectrum && (s.shown_step < step || s.history.empty() || s.heat_dirty)) return false;
  if (ui.settings.show_neuron_maps && (n.maps_step < step || n.atlas_dirty || n.atlas_page < 0)) return false;
  return true;
}

std::string write_insight_sidecar(const UiState& ui, const std::string& screenshot) {
  const auto rect = [](const float r[4]) { return nlohmann::json::array({r[0], r[1], r[2], r[3]}); };
  nlohmann::json j = nlohmann::json::object();
  if (ui.settings.show_spectrum) {
    j["spectrum_recon"] = rect(ui.insight.spectrum.recon_rect);
    j["spectrum_heat"] = rect(ui.insight.spectrum.heat_rect);
    j["spectrum_step"] = ui.insight.spectrum.shown_step;
  }
  if (ui.settings.show_neuron_maps) {
    j["neuron_grid"] = rect(ui.insight.neurons.grid_rect);
    j["neuron_step"] = ui.insight.neurons.maps_step;
  }
  return write_error([&] { write_text_atomic(screenshot + ".insight.json", j.dump(2) + "\n"); });
}

void store_item_rect(float out[4]) {
  const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale, a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  out[0] = a.x * s.x;
  out[1] = a.y * s.y;
  out[2] = (b.x - a.x) * s.x;
  out[3] = (b.y - a.y) * s.y;
}

std::string insight_export_path(const UiState& ui, const char* suffix) {
  namespace fs = std::filesystem;
  const std::string& src = ui.run_a().status.source_path;
  const std::string stem = src.empty() ? std::string("redraw") : fs::path(src).stem().string();
  std::error_code ec;
  const fs::path folder = ui.settings.last_folder.empty() ? fs::current_path(ec) : fs::path(ui.settings.last_folder);
  return (folder / (stem + suffix)).string();
}

std::string export_spectrum_png(const UiState& ui, const std::string& path) {
  const SpectrumViewState& s = ui.insight.spectrum;
  if (s.truth_rgba.empty()) return "no spectrum yet";
  return write_error([&] {
    // [target | reconstruction | error], 4-pixel dark gaps; the heat map beside it as *_bands.png.
    const int32_t w = s.width, h = s.height, gap = 4;
    Image out;
    out.width = 3 * w + 2 * gap;
    out.height = h;
    out.channels = 3;
    out.pixels.assign(size_t(out.width) * size_t(h) * 3, 0.1f);
    const std::vector<uint8_t>* parts[] = {&s.truth_rgba, &s.recon_rgba, &s.error_rgba};
    for (int k = 0; k < 3; ++k) {
      const Image part = rgba_to_image(*parts[k], w, h);
      for (int32_t y = 0; y < h; ++y)
        for (int32_t x = 0; x < w; ++x)
          for (int32_t c = 0; c < 3; ++c)
            out.at(k * (w + gap) + x, y, c) = part.at(x, y, c);
    }
    write_png(path, out);
    if (!s.heat_rgba.empty()) {
      // Each band 8 pixels tall, so the picture is readable at 1:1.
      const int32_t bands = int32_t(s.bins.size()), cols = s.heat_columns, scale = 8;
      Image heat = rgba_to_image(s.heat_rgba, cols, bands), tall;
      tall.width = cols;
      tall.height = bands * scale;
      tall.channels = 3;
      tall.pixels.resize(size_t(tall.width) * size_t(tall.height) * 3);
      for (int32_t y = 0; y < tall.height; ++y)
        for (int32_t x = 0; x < cols; ++x)
          for (int32_t c = 0; c < 3; ++c)
            tall.at(x, y, c) = heat.at(x, y / scale, c);
      write_png(beside(path, "_bands.png"), tall);
    }
  });
}

std::string export_curves_csv(const UiState& ui, const std::string& path) {
  if (ui.run_a().history.empty()) return "no curves yet";
  return write_error([&] {
    // metrics.csv's writer and columns; the GUI keeps no recovery list, so `event` stays empty.
    write_text_atomic(path, metrics_csv(ui.run_a().history, {}));
  });
}

std::string export_spectrum_csv(const UiState& ui, const std::string& path) {
  const SpectrumViewState& s = ui.insight.spectrum;
  if (s.history.empty()) return "no spectrum yet";
  return write_error([&] { write_text_atomic(path, spectrum_csv(s.history, int32_t(s.bins.size()))); });
}

std::string export_neuron_png(const UiState& ui, const std::string& path) {
  const NeuronMapViewState& n = ui.insight.neurons;
  if (!n.maps) return "no neuron maps yet";
  return write_error([&] {
    int32_t cols = 0, rows = 0;
    const Image page = neuron_page_image(*n.maps, n.order, n.page, n.per_page, n.shared_scale, cols, rows);
    // 4x nearest-neighbour, so each thumbnail is readable.
    constexpr int32_t k = 4;
    Image big;
    big.width = page.width * k;
    big.height = page.height * k;
    big.channels = 3;
    big.pixels.resize(size_t(big.width) * size_t(big.height) * 3);
    for (int32_t y = 0; y < big.height; ++y)
      for (int32_t x = 0; x < big.width; ++x)
        for (int32_t c = 0; c < 3; ++c)
          big.at(x, y, c) = page.at(x / k, y / k, c);
    write_png(path, big);
  });
}

} // namespace redraw
