#include "ui/widgets/bounded_text.h"
#include "ui/panels/config_summary.h"
#include "ui/panels/field_hint.h"
#include "ui/session/frame_pacing.h"
#include "ui/panels/panels.h"
#include "ui/widgets/plot_widgets.h"
#include "ui/widgets/ui_scale.h"

#include "engine/backend_names.h"
#include "engine/model_family.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>

namespace redraw {
namespace {

/// A combo of fixed text choices for a string setting; `width`: the widget's, without its label.
void choice_combo(const char* label, std::string& value, const std::vector<std::string>& choices, float width) {
  ImGui::SetNextItemWidth(std::max(60.0f, width));
  if (ImGui::BeginCombo(label, value.c_str())) {
    for (const std::string& c : choices)
      if (ImGui::Selectable(c.c_str(), value == c)) value = c;
    ImGui::EndCombo();
  }
}

template <class E> bool enum_combo(const char* label, E& value, int count, const char* (*name)(E)) {
  bool changed = false;
  if (ImGui::BeginCombo(label, name(value))) {
    for (int i = 0; i < count; ++i) {
      const E e = E(i);
      if (ImGui::Selectable(name(e), e == value)) {
        changed = e != value;
        value = e;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

bool input_i64(UiState& ui, const char* label, int64_t& v, int64_t lo, int64_t hi, int64_t step = 1) {
  const int64_t fast = step * 10;
  const bool changed = ImGui::InputScalar(label, ImGuiDataType_S64, &v, &step, &fast);
  check_field(ui, label, v, lo, hi);
  return changed;
}

/// A learning rate in [lo, hi]. With lo = 0 (lr_min) a negative value becomes 0; with lo > 0
/// (lr_max) a value <= 0 would stop training, so it is refused and the last good value kept.
bool input_lr(UiState& ui, const char* label, double& v, double lo, double hi = 100.0) {
  const double k_max_lr = hi;
  const double before = v;
  const bool changed = ImGui::InputDouble(label, &v, 0, 0, "%.3g");
  if (lo > 0 && ImGui::IsItemEdited() && !(v > 0)) {
    const double typed = v;
    v = before > 0 ? before : 1e-3;
    char text[160];
    std::snprintf(text, sizeof text, "%s must be > 0 (at most %g): %g would not train; kept %g", label, k_max_lr, typed,
                  v);
    set_field_hint(ui, label, text);
    return changed;
  }
  check_field(ui, label, v, lo, k_max_lr);
  return changed;
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

void draw_run_buttons(UiState& ui) {
  const SessionStatus& st = ui.run_a().status;
  const float w = (ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3;
  const bool training = ui.run_a().running_as_asked(); // the label follows a click at once
  ImGui::BeginDisabled(!st.has_run);
  ImGui::PushStyleColor(ImGuiCol_Button, training ? ImVec4(0.55f, 0.35f, 0.10f, 1) : ImVec4(0.15f, 0.45f, 0.25f, 1));
  if (ImGui::Button(training ? "Pause (Space)" : "Train (Space)", ImVec2(w, 0))) ui.push(intent::ToggleRun{});
  ImGui::PopStyleColor();
  ImGui::SameLine();
  ImGui::BeginDisabled(st.running);
  if (ImGui::Button("Step (.)", ImVec2(w, 0))) ui.push(run_command::StepOnce{});
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Reset (R)", ImVec2(w, 0))) ui.push(run_command::Reset{});
  ImGui::EndDisabled();
  ImGui::SetNextItemWidth(ui_px(110));
  ImGui::InputInt("preview every N steps", &ui.settings.preview_every, 1, 10);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("While training, the live picture is drawn every N steps, no faster than the screen\n"
                      "shows it, and spaced so that drawing it takes at most %.0f%% of the training time\n"
                      "(on the CPU a picture costs a few training steps).",
                      100 * k_preview_share);
  check_field(ui, "preview every N steps", ui.settings.preview_every, 1, 100000);
}

/// What the preset box shows: the preset's name, "custom", or a config file's name (its folder
/// would fill the box with a path of the machine, not the config).
std::string preset_box_text(const std::string& preset) {
  if (preset.empty()) return "custom";
  const std::string file = std::filesystem::path(preset).filename().string();
  return file.empty() ? preset : file;
}

void draw_preset(UiState& ui) {
  const std::string current = preset_box_text(ui.edit.preset);
  if (ImGui::BeginCombo("preset", widget_text(current, 60).c_str())) {
    for (const auto& name : ui.preset_names)
      if (ImGui::Selectable(name.c_str(), name == ui.edit.preset)) ui.push(intent::LoadPreset{name});
    ImGui::EndCombo();
  }
}

void draw_layers(UiState& ui) {
  ModelSpec& m = ui.edit.config.model;
  bool changed = false;
  ImGui::TextUnformatted("hidden layers (width)");
  int remove = -1, up = -1;
  for (int i = 0; i < int(m.hidden.size()); ++i) {
    ImGui::PushID(i);
    ImGui::Text("%2d", i + 1);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ui_px(110));
    int32_t w = m.hidden[size_t(i)];
    const bool edited = ImGui::InputInt("##width", &w, 16, 64);
    const bool active = ImGui::IsItemActive();
    // The hint goes under the row (after the buttons beside the field).
    char key[32];
    std::snprintf(key, sizeof key, "layer %d width", i + 1);
    ImGui::SameLine();
    ImGui::BeginDisabled(i == 0);
    if (ImGui::ArrowButton("##up", ImGuiDir_Up)) up = i;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(i + 1 == int(m.hidden.size()));
    if (ImGui::ArrowButton("##down", ImGuiDir_Down)) up = i + 1;
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(m.hidden.size() <= 1);
    if (ImGui::Button("x")) remove = i;
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("remove layer %d", i + 1);
    check_field(ui, key, w, 1, 8192, edited, active);
    if (edited) {
      m.hidden[size_t(i)] = w;
      changed = true;
    }
    ImGui::PopID();
  }
  if (up > 0) {
    std::swap(m.hidden[size_t(up)], m.hidden[size_t(up - 1)]);
    changed = true;
  }
  if (remove >= 0) {
    m.hidden.erase(m.hidden.begin() + remove);
    changed = true;
  }
  if (m.hidden.size() < 64 && ImGui::Button("+ add layer")) {
    m.hidden.push_back(m.hidden.empty() ? 64 : m.hidden.back());
    changed = true;
  }
  if (changed || m.hidden_activations.size() != m.hidden.size()) {
    const Activation a = m.hidden_activations.empty() ? Activation::Relu : m.hidden_activations.front();
    m.hidden_activations.assign(m.hidden.size(), a);
  }
}

/// The hash grid's parameters, with the table's size and memory beside them.
/// One of a family's fields (engine/model_family.h), as its widget says.
void draw_family_field(UiState& ui, const FamilyField& f, EncodingSpec& e) {
  const int lo = int(f.lo), hi = int(f.hi), step = int(f.step);
  switch (f.widget) {
  case FieldWidget::Slider: ImGui::SliderInt(f.label, &(e.*f.i32), lo, hi); break;
  case FieldWidget::Input:
    if (f.i64) {
      input_i64(ui, f.label, e.*f.i64, int64_t(f.lo), int64_t(f.hi), int64_t(f.step));
    } else {
      ImGui::InputInt(f.label, &(e.*f.i32), step, step * 4);
      check_field(ui, f.label, e.*f.i32, lo, hi);
    }
    break;
  case FieldWidget::LogSlider:
    ImGui::SliderFloat(f.label, &(e.*f.f32), float(f.lo), float(f.hi), "%.2f", ImGuiSliderFlags_Logarithmic);
    break;
  case FieldWidget::PowerOfTwo:
    if (ImGui::BeginCombo(f.label, std::to_string(e.*f.i32).c_str())) {
      for (int v = lo; v <= hi; v *= 2)
        if (ImGui::Selectable(std::to_string(v).c_str(), v == e.*f.i32)) e.*f.i32 = v;
      ImGui::EndCombo();
    }
    break;
  }
}

/// The cosine carrier (model.encoding.carrier, engine/gaussian_math.h) of a family whose primitives
/// take one. Like the other model fields it edits the settings: a run takes it at Apply & reset.
void draw_carrier(EncodingSpec& e) {
  ImGui::Checkbox("cosine carrier", &e.carrier);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Each Gaussian's colour is multiplied by cos(w . z): a wave with its own trained\n"
                      "frequency and direction across the Gaussian (as the gaussians-wipes preset).\n"
                      "10 floats a Gaussian instead of 8. A new network: takes effect with Apply & reset.");
}

/// The hash grid's table group: its size, resolutions and interpolation, each with its auto choice.
void draw_hash_grid_table(UiState& ui, EncodingSpec& e) {
  // Auto sizes follow the training image (the run's size; the defaults until an image is open).
  const int32_t tw = ui.run_a().status.width, th = ui.run_a().status.height;
  if (tw > 0) size_hash_grid_to_image(e, tw, th);
  ImGui::Checkbox("auto##table", &e.auto_table_size);
  ImGui::SameLine();
  if (e.auto_table_size) {
    const std::string pixels = tw > 0 ? format_count(int64_t(tw) * th) + " pixels" : "the image's pixels";
    ImGui::TextDisabled("table: auto: 2^%d for %s", e.log2_hashmap_size, pixels.c_str());
  } else {
    ImGui::SliderInt("log2 table size", &e.log2_hashmap_size, 10, 24);
  }
  help_marker("At most 2^this entries per level. Coarse levels whose grid fits are stored densely;\n"
              "finer levels share their entries through a spatial hash. Bigger tables suit bigger images:\n"
              "auto picks the power of two nearest the pixel count (2^12 .. 2^19, which bounds memory and step time).");
  ImGui::InputInt("base resolution", &e.base_resolution, 1, 8);
  check_field(ui, "base resolution", e.base_resolution, 2, 1 << 20);
  bool from_finest = e.finest_resolution > 0 || e.auto_finest_resolution;
  if (ImGui::Checkbox("scale from the finest resolution", &from_finest)) {
    e.finest_resolution = from_finest ? std::max(e.base_resolution, 2048) : 0;
    if (!from_finest) e.auto_finest_resolution = false;
  }
  if (from_finest) {
    ImGui::Checkbox("auto##finest", &e.auto_finest_resolution);
    ImGui::SameLine();
    if (e.auto_finest_resolution)
      ImGui::TextDisabled("finest: auto: %d, the image's longer side", e.finest_resolution);
    else
      ImGui::InputInt("finest resolution", &e.finest_resolution, 16, 256);
    check_field(ui, "finest resolution", e.finest_resolution, e.base_resolution, 1 << 20);
    ImGui::TextDisabled("per-level scale %.4f", hash_grid_per_level_scale(e));
  } else {
    ImGui::SliderFloat("per-level scale", &e.per_level_scale, 1.0f, 4.0f, "%.3f");
  }
  enum_combo("interpolation", e.interpolation, 2, interpolation_name);
  e.n_levels = std::clamp(e.n_levels, 1, k_hash_grid_max_levels);
  e.log2_hashmap_size = std::clamp(e.log2_hashmap_size, 10, 24);
  try {
    const HashGridParams g = hash_grid_params(e);
    int dense = 0;
    for (int32_t l = 0; l < g.n_levels; ++l)
      dense += int(g.dense[l]);
    ImGui::TextDisabled("%d inputs; cells per side %u .. %u; %d dense levels", g.n_levels * g.n_features,
                        g.resolution[0], g.resolution[g.n_levels - 1], dense);
    ImGui::TextDisabled("table: %s parameters, %s", format_count(encoding_parameter_count(e)).c_str(),
                        format_bytes(uint64_t(encoding_parameter_count(e)) * sizeof(float)).c_str());
  } catch (const std::exception& ex) {
    bounded_text_colored(ImVec4(1, 0.4f, 0.4f, 1), ex.what());
  }
}

void draw_network(UiState& ui) {
  ModelSpec& m = ui.edit.config.model;
  draw_layers(ui);
  Activation act = m.hidden_activations.empty() ? Activation::Relu : m.hidden_activations.front();
  if (enum_combo("activation", act, k_activation_count, activation_name)) {
    m.hidden_activations.assign(m.hidden.size(), act);
    m.init = paper_init(act, m.init);
  }
  ImGui::BeginDisabled(act != Activation::Sine && act != Activation::Finer && act != Activation::Gabor);
  ImGui::InputFloat("omega_0", &m.omega_0, 1, 5, "%.1f");
  check_field(ui, "omega_0", m.omega_0, 0.001f, 10000.0f);
  ImGui::EndDisabled();
  ImGui::BeginDisabled(act != Activation::Gauss && act != Activation::Gabor);
  ImGui::InputFloat("gauss scale s", &m.gauss_scale, 1, 5, "%.1f");
  check_field(ui, "gauss scale s", m.gauss_scale, 0.001f, 10000.0f);
  ImGui::EndDisabled();
  enum_combo("output activation", m.output_activation, k_activation_count, activation_name);
  enum_combo("initialisation", m.init, k_init_count, init_name);
  if (m.init == InitKind::Finer) {
    ImGui::InputFloat("first bias scale", &m.first_bias_scale, 0.5f, 5, "%.2f");
    check_field(ui, "first bias scale", m.first_bias_scale, 0.0f, 10000.0f);
  }

  ImGui::Spacing();
  enum_combo("encoding", m.encoding.kind, model_family_count(), encoding_name);
  const ModelFamily& family = model_family(m.encoding.kind);
  for (const FamilyField& f : family.fields) draw_family_field(ui, f, m.encoding);
  if (family.carries)
    draw_carrier(m.encoding);
  else
    m.encoding.carrier = false; // another family refuses it: a switch away from the Gaussians drops it
  if (family.panel == FamilyPanel::HashGridTable) draw_hash_grid_table(ui, m.encoding);
}

void draw_loss_optimizer(UiState& ui) {
  RunConfig& c = ui.edit.config;
  enum_combo("loss", c.loss.kind, 4, loss_name);
  if (c.loss.kind == LossKind::Huber) ImGui::InputFloat("huber delta", &c.loss.huber_delta, 0, 0, "%.3g");
  enum_combo("optimizer", c.optimizer.kind, 2, optimizer_name);
  if (c.optimizer.kind == OptimizerKind::Sgd) {
    ImGui::SliderFloat("momentum", &c.optimizer.sgd.momentum, 0.0f, 0.99f, "%.2f");
  } else {
    ImGui::InputFloat("beta1", &c.optimizer.adam.beta1, 0, 0, "%.3f");
    check_field(ui, "beta1", c.optimizer.adam.beta1, 0.0f, 0.999999f);
    ImGui::InputFloat("beta2", &c.optimizer.adam.beta2, 0, 0, "%.4f");
    check_field(ui, "beta2", c.optimizer.adam.beta2, 0.0f, 0.99999999f);
    ImGui::InputFloat("epsilon", &c.optimizer.adam.epsilon, 0, 0, "%.1e");
    check_field(ui, "epsilon", c.optimizer.adam.epsilon, 0.0f, 1.0f);
  }
}

/// The time budget: off, or the training seconds the schedule anneals to. It reaches the session
/// when toggled or when the seconds field is left after an edit (each counts from then).
void draw_time_budget(UiState& ui) {
  EditState& e = ui.edit;
  bool apply = ImGui::Checkbox("time budget", &e.time_budget_on);
  if (e.time_budget_on) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ui_px(110));
    ImGui::InputDouble("##budget_seconds", &e.time_budget_s, 10, 60, "%.0f s");
    apply |= ImGui::IsItemDeactivatedAfterEdit();
    check_field(ui, "time budget", e.time_budget_s, 1.0, 1e7);
  }
  help_marker("As redraw train --time-limit: the learning rate is annealed to lr_min over this much training "
              "time (or over the steps, when they run out first), and training pauses when it is spent. It "
              "counts from when it is set, and from the start of each run opened, reset or branched "
              "afterwards. Off: the schedule follows the steps.");
  if (apply) ui.push(run_command::SetTimeBudget{edit_time_budget(e)});
}

void draw_schedule(UiState& ui) {
  RunConfig& c = ui.edit.config;
  ScheduleSpec& s = c.schedule;
  bool changed = enum_combo("schedule", s.kind, 3, schedule_name);
  changed |= input_lr(ui, "lr_max", s.lr_max, 1e-9);
  ImGui::BeginDisabled(s.kind == ScheduleKind::Constant);
  changed |= input_lr(ui, "lr_min", s.lr_min, 0.0, s.lr_max);
  changed |= input_i64(ui, "cycle length", s.period, 0, int64_t(1e12), 100);
  help_marker("Steps of one cosine cycle (the first cycle with restarts). 0 = the whole run.");
  ImGui::EndDisabled();
  ImGui::BeginDisabled(s.kind != ScheduleKind::WarmRestarts);
  float mult = float(s.period_mult);
  if (ImGui::SliderFloat("restarts: period x", &mult, 1.0f, 4.0f, "%.2f")) {
    s.period_mult = mult;
    changed = true;
  }
  help_marker("Warm restarts (SGDR): each cycle is this many times longer than the one before.");
  ImGui::EndDisabled();
  changed |= input_i64(ui, "warm-up steps", s.warmup_steps, 0, int64_t(1e12), 10);
  changed |= input_i64(ui, "steps", c.training.steps, 1, int64_t(1e12), 100);
  if (s.lr_min > s.lr_max) s.lr_min = s.lr_max;
  // Schedule changes reach a running trainer at once (Trainer::set_schedule).
  if (changed) ui.push(intent::ApplySchedule{});
  draw_time_budget(ui);

  const std::vector<float> lr = sample_schedule(s, c.training.steps, 240);
  std::vector<float> xs(lr.size());
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = float(double(i) * double(c.training.steps) / double(lr.size()));
  PlotSeries series{xs, lr, IM_COL32(255, 170, 60, 255)};
  PlotOptions opts;
  opts.title = "learning rate (schedule preview)";
  opts.log_y = s.lr_min > 0 || s.kind == ScheduleKind::Constant;
  opts.marker_x = float(ui.run_a().status.step);
  draw_line_plot("lr_preview", ImVec2(ImGui::GetContentRegionAvail().x, ui_px(150)), std::span(&series, 1), opts);
}

void draw_training(UiState& ui) {
  RunConfig& c = ui.edit.config;
  EditState& e = ui.edit;
  ImGui::Checkbox("full batch", &e.full_batch);
  if (!e.full_batch) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ui_px(120));
    ImGui::InputInt("batch size", &e.batch_size, 1024, 16384);
    check_field(ui, "batch size", e.batch_size, 1, 1 << 26);
  }
  c.training.batch_size = e.full_batch ? 0 : e.batch_size;
  if (c.training.cpu_batch_size >= 0) {
    // A preset may train the CPU on smaller batches (training.batch_cpu).
    int cpu_batch = int(std::min<int64_t>(c.training.cpu_batch_size, 1 << 26));
    ImGui::SetNextItemWidth(ui_px(120));
    const bool cpu_edited = ImGui::InputInt("batch on the CPU", &cpu_batch, 1024, 16384);
    const bool cpu_active = ImGui::IsItemActive();
    help_marker("The CPU backend trains with this batch (0 = full batch); a GPU with the one above.");
    check_field(ui, "batch on the CPU", cpu_batch, 0, 1 << 26, cpu_edited, cpu_active);
    if (cpu_edited) c.training.cpu_batch_size = cpu_batch;
  }
  bool full = c.data.max_side == 0; // max_side 0: the image's own size
  if (ImGui::Checkbox("Full resolution", &full)) c.data.max_side = full ? 0 : 512;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Train on every pixel of the image at its own size. A minibatch preset (instant) costs the same "
                      "per step at any size; a full-batch one grows with the image.");
  if (!full) {
    ImGui::InputInt("training size", &c.data.max_side, 16, 64);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The image is resized so its longest side is this many pixels (8..4096) for training.");
    check_field(ui, "training size", c.data.max_side, 8, 4096);
  }
  c.data.width = c.data.height = 0;
  enum_combo("colour", c.data.color_mode, 4, color_mode_name);
  if (c.data.color_mode == ColorMode::Binary) ImGui::SliderFloat("threshold", &c.data.threshold, 0.0f, 1.0f, "%.2f");
  const uint64_t one = 1;
  ImGui::InputScalar("seed", ImGuiDataType_U64, &c.training.seed, &one);
}

/// The footer pinned below the scrolling settings: what the edited network costs, where it runs,
/// and Apply & reset, so an edit anywhere above shows its count and the "apply" prompt at once.
void draw_summary(UiState& ui) {
  const SessionStatus& st = ui.run_a().status;
  int32_t w = 0, h = 0;
  edited_training_size(st.image_width, st.image_height, st.width, st.height, ui.edit.config.data, w, h);
  // Auto resolves from the image: the running auto run already knows its channel count.
  const ColorMode mode = ui.edit.config.data.color_mode;
  const int32_t channels = mode == ColorMode::Auto && st.has_run && st.config.data.color_mode == ColorMode::Auto
                               ? st.config.model.output_channels
                               : channels_of(mode);
  // The batch of the backend that trains: the chosen one, else the running run's (auto), else the CPU's.
  const std::string backend = ui.settings.backend != k_auto_backend ? ui.settings.backend
                              : st.has_run                           ? st.backend
                                                                     : k_cpu_backend.name;
  const ConfigSummary s = summarize_config(ui.edit.config, w, h, channels, backend);
  if (!s.valid) {
    ImGui::PushTextWrapPos(0);
    bounded_text_colored(ImVec4(1, 0.4f, 0.4f, 1), "invalid network: " + s.problem);
    ImGui::PopTextWrapPos();
  } else {
    ImGui::Text("parameters: %s", format_count(s.parameters).c_str());
    ImGui::SameLine(0, ui_px(16));
    ImGui::Text("memory (est.): %s", format_bytes(s.total_bytes()).c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("parameters + gradients + optimizer state: %s\n"
                        "their last good copy (rolled back to if training diverges): %s\n"
                        "activations for a batch of %lld: %s\ndataset (%dx%d): %s\n"
                        "and the timelapse frames, up to the frame memory cap",
                        format_bytes(s.parameter_bytes).c_str(), format_bytes(s.recovery_bytes).c_str(),
                        static_cast<long long>(s.batch), format_bytes(s.activation_bytes).c_str(), w, h,
                        format_bytes(s.dataset_bytes).c_str());
    ImGui::TextDisabled("%.2f GFLOP per step (%dx%d, batch %lld)", s.gflop_per_step, w, h,
                        static_cast<long long>(s.batch));
    if (s.table_parameters > 0) // the encoding's trainable floats: a hash grid's table, or the Gaussians
      ImGui::TextDisabled("%s: %s of the parameters (%s; %s with gradients and optimizer state)",
                          model_family(ui.edit.config.model.encoding.kind).trained_noun,
                          format_count(s.table_parameters).c_str(), format_bytes(s.table_bytes).c_str(),
                          format_bytes(s.table_state_bytes).c_str());
  }

  // Backend and precision side by side, each half the row.
  const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
  const float label_w = ImGui::CalcTextSize("precision").x + ImGui::GetStyle().ItemInnerSpacing.x;
  choice_combo("backend", ui.settings.backend, backend_choices(), half - label_w);
  ImGui::SameLine();
  ImGui::BeginDisabled(!may_use_gpu(ui.settings.backend)); // the CPU computes in fp32 only
  choice_combo("precision", ui.settings.precision, precision_choices(), half - label_w);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Matrix products on the GPU. auto: narrow networks (hidden layers all 16..128 wide)\n"
                      "run fully fused on the tensor cores in fp16, the rest in fp32. fp32, or the tensor\n"
                      "cores in tf32 / bf16 (fp32 storage and accumulation; compute capability 8.0+).\n"
                      "The CPU always computes in fp32. Takes effect with Apply & reset.");
  const bool backend_changed = st.has_run && ui.settings.backend != k_auto_backend && ui.settings.backend != st.backend;
  const bool dirty = st.has_run && (requires_new_trainer(ui.edit.config, st.config) || backend_changed);
  ImGui::PushStyleColor(ImGuiCol_Button,
                        dirty ? ImVec4(0.60f, 0.42f, 0.10f, 1) : ImGui::GetStyleColorVec4(ImGuiCol_Button));
  ImGui::BeginDisabled(!st.has_run && ui.last_image.empty());
  if (ImGui::Button(dirty ? "Apply & reset: the network or data changed" : "Apply & reset", ImVec2(-1, 0)))
    ui.push(intent::ApplyReset{});
  ImGui::EndDisabled();
  ImGui::PopStyleColor();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Builds a new network from these settings and starts training from step 0.\n"
                      "Schedule and step edits apply at once, without a reset.");
}

} // namespace

void draw_controls(UiState& ui) {
  // The settings scroll; the summary and Apply & reset stay pinned below them. The footer's
  // height is measured each frame (it grows when an error wraps) and used the next.
  const ImGuiStyle& style = ImGui::GetStyle();
  float& footer_h = ui.edit.footer_height;
  if (footer_h <= 0)
    footer_h = 2 * ImGui::GetTextLineHeightWithSpacing() + 2 * ImGui::GetFrameHeightWithSpacing() + style.ItemSpacing.y;
  const float scroll_h = std::max(ImGui::GetFrameHeightWithSpacing() * 3, ImGui::GetContentRegionAvail().y - footer_h);
  ImGui::BeginChild("settings", ImVec2(0, scroll_h), false);
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 10);
  draw_run_buttons(ui);
  draw_eta_hint(ui, ui.run_a());
  ImGui::Separator();
  draw_preset(ui);
  if (ImGui::CollapsingHeader("Network", ImGuiTreeNodeFlags_DefaultOpen)) draw_network(ui);
  if (ImGui::CollapsingHeader("Loss and optimizer", ImGuiTreeNodeFlags_DefaultOpen)) draw_loss_optimizer(ui);
  if (ImGui::CollapsingHeader("Learning-rate schedule", ImGuiTreeNodeFlags_DefaultOpen)) draw_schedule(ui);
  if (ImGui::CollapsingHeader("Training data", ImGuiTreeNodeFlags_DefaultOpen)) draw_training(ui);
  if (ImGui::CollapsingHeader("Machine")) {
    draw_cpu_threads(ui);
    draw_image_memory(ui);
  }
  ImGui::PopItemWidth();
  ImGui::EndChild();
  const float top = ImGui::GetCursorPosY();
  ImGui::Separator();
  draw_summary(ui);
  footer_h = ImGui::GetCursorPosY() - top;
}

} // namespace redraw
