#include "cpu/cpu_backend.h"
#include "engine/soundness.h"

#include "cpu/cpu_chunked_pass.h"
#include "cpu/cpu_family_encoders.h"
#include "cpu/cpu_hash_grid.h"
#include "cpu/cpu_kernels.h"
#include "cpu/cpu_passes.h"
#include "cpu/flushed_team.h"
#include "cpu/openblas_kernels.h"
#include "engine/thread_budget.h"
#include "cpu/team_sizer.h"
#include "engine/errors.h"
#include "engine/model_family.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

namespace redraw {

using namespace cpu;

namespace {
/// Samples ahead whose target pixel a minibatch gather prefetches (a 24 MP image's pixels are
/// scattered over 288 MB: each one a cache and TLB miss without it).
constexpr int64_t k_gather_ahead = 16;
} // namespace

/// The bound training state.
struct CpuBackend::State {
  TrainSetup setup;
  std::vector<DenseLayer> layers;
  int32_t encoding_width = 0;
  int64_t n = 0;
  const float* targets = nullptr;  ///< the dataset's pixels, read in place (Backend::configure)
  int32_t width = 0, height = 0;   ///< the dataset's grid: sample i is pixel (i % width, i / width)
  std::vector<float> chunk_coords; ///< one chunk's coordinates, made when needed
  std::vector<float> encoded;      ///< whole dataset encoded (full batch, when it fits)
  std::vector<float> fourier_b;
  std::vector<float> params, grads, first, second;
  /// grads[0] is this parameter's gradient: a hash-grid minibatch keeps no table gradients (its
  /// levels' gradients go through level_grads), so its grads start at the network's first weight.
  int64_t grads_first = 0;
  std::vector<float> batch_coords, batch_targets; ///< minibatch gather buffers
  /// A hash-grid minibatch's coordinates and dLoss/dEncoding (batch x encoding width), kept for the
  /// next step: the table's gradient is scattered from them level by level (DeferredTableUpdate).
  std::vector<float> pending_coords, pending_encoding_grad;
  /// The table gradient of a group of levels (one level per member of the team): a level's
  /// gradient is scattered here just before its update reads and clears it, so these few MiB
  /// stay in cache instead of a whole-table gradient going through memory every step.
  std::vector<float> level_grads;
  CpuWorkspace ws;
  std::vector<float> scratch;
  std::optional<LossSample> pending;
  /// A trained family's kernels (null: a closed-form family), and the hash grid's levels when a
  /// minibatch defers its table's update (State::DeferredTableUpdate; null otherwise).
  std::unique_ptr<CpuTrainedEncoding> trained;
  const HashGridParams* grid = nullptr;
  int64_t table_floats = 0;
  bool nonfinite = false; ///< a step since the last sample had a non-finite loss
  /// Without a deferred update (full batch): the table's gradients are all zero (the last update
  /// cleared them). A deferred run keeps no table gradients (grads_first).
  bool table_grads_clean = true;
  /// A minibatch step on a hash grid leaves its table's gradient and optimizer update for the next
  /// step to apply level by level, each level just before that step encodes it (train_step_impl):
  /// the level's gradient is scattered into level_grads and the update then streams the level's
  /// entries through the cache, where the lookups find them. Everything else that reads or writes
  /// the bound state applies it first (settle()). The arithmetic is the same as scattering into the
  /// whole table at the end of the step: each entry's contributions in row order, then Adam.
  struct DeferredTableUpdate {
    bool pending = false;
    float lr = 0;
    int64_t bias_step = 0;
  } deferred;
  std::vector<float> batch_encoded; ///< a hash-grid minibatch's encoding (batch x encoding width)
  StepProfile profile;    ///< phase times since the last take_step_profile()
  int threads_setting = cpu_threads_setting();
  TeamSizer sizer{cpu_core_count(), threads_setting, cpu_reserved_threads()}; ///< the team size, measured or fixed

  NetView view() const {
    return NetView{&setup.model, &layers, params.data(), fourier_b.data(), trained.get()};
  }
  /// Sample i's coordinate, as Dataset::coordinate makes it.
  void coordinate(int64_t i, float& x, float& y) const {
    x = pixel_centre<float>(i % width, width);
    y = pixel_centre<float>(i / width, height);
  }
  /// The coordinates of samples [r0, r0 + rows) into chunk_coords.
  const float* chunk(int64_t r0, int64_t rows) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < rows; ++i)
      coordinate(r0 + i, chunk_coords[size_t(2 * i)], chunk_coords[size_t(2 * i + 1)]);
    return chunk_coords.data();
  }
  int64_t batch() const { return setup.batch_size > 0 ? setup.batch_size : n; }
  /// Levels a group of the deferred update takes at once: one for each thread's scatter.
  int32_t levels_per_group() const {
    return int32_t(std::clamp<int64_t>(omp_get_max_threads(), 1, std::min<int64_t>(grid->n_levels, 64)));
  }
  /// The deferred update of levels [l0, l1): each level's gradient scattered by one thread into
  /// its part of level_grads (laid out as the levels are in the table, so the group's gradients
  /// are one range), in row order; then the group's update in one sweep, which clears them again.
  void apply_deferred_levels(int32_t l0, int32_t l1) {
    const HashGridParams& g = *grid;
    const int64_t F = g.n_features, rows = batch();
    const int64_t begin = int64_t(g.offset[l0]) * F, end = int64_t(g.offset[l1]) * F;
    if (int64_t(level_grads.size()) < end - begin) resize_checked(level_grads, end - begin, "table gradients");
#pragma omp parallel for schedule(dynamic, 1)
    for (int32_t l = l0; l < l1; ++l)
      hash_grid_backward_level(g, l, pending_coords.data(), pending_encoding_grad.data(), rows,
                               level_grads.data() + (int64_t(g.offset[l]) * F - begin));
    optimizer_table_slice(setup.optimizer, params.data() + begin, level_grads.data(),
                          first.empty() ? nullptr : first.data() + begin,
                          second.empty() ? nullptr : second.data() + begin, end - begin, deferred.lr,
                          deferred.bias_step);
  }
  /// Applies a deferred table update now: the state is then exactly the last step's.
  void settle() {
    if (!deferred.pending) return;
    const FlushedTeam flushed = use_team(sizer.team()); // the calling thread's regions (it may not be the one that trains)
    const int32_t group = levels_per_group();
    for (int32_t l0 = 0; l0 < grid->n_levels; l0 += group)
      apply_deferred_levels(l0, std::min(grid->n_levels, l0 + group));
    deferred.pending = false;
  }
  /// A minibatch's n coordinates encoded into batch_encoded level by level, a deferred update
  /// applied to each group of levels just before they are encoded; returns the seconds the update
  /// took.
  double encode_levels_settling(const float* coords, int64_t n) {
    const HashGridParams& g = *grid;
    const int32_t group = levels_per_group();
    double update_s = 0;
    for (int32_t l0 = 0; l0 < g.n_levels; l0 += group) {
      const int32_t l1 = std::min(g.n_levels, l0 + group);
      if (deferred.pending) {
        const auto t0 = std::chrono::steady_clock::now();
        apply_deferred_levels(l0, l1);
        update_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      for (int32_t l = l0; l < l1; ++l)
        hash_grid_encode_level(g, l, params.data(), coords, n, batch_encoded.data());
    }
    deferred.pending = false; // every level has had it
    return update_s;
  }
  /// Step `step`'s minibatch of `total` samples into batch_coords and batch_targets (C channels).
  void gather_minibatch(int64_t step, int32_t C, int64_t total) {
    const uint64_t seed = setup.seed;
    const uint32_t count = uint32_t(n);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < total; ++i) {
      if (i + k_gather_ahead < total) { // its pixel fetched ahead: a large image's are cache misses
        const float* t = targets + size_t(minibatch_index(seed, step, i + k_gather_ahead, count)) * C;
        __builtin_prefetch(t);
        __builtin_prefetch(t + C - 1);
      }
      const uint32_t k = minibatch_index(seed, step, i, count);
      coordinate(k, batch_coords[size_t(2 * i)], batch_coords[size_t(2 * i + 1)]);
      for (int32_t c = 0; c < C; ++c)
        batch_targets[size_t(i * C + c)] = targets[size_t(k) * C + c];
    }
  }
  /// The optimizer's update of the step's gradients: a deferred hash table's waits for the next
  /// step's encoding (with the step's coordinates), the rest is applied now.
  void update(const StepArgs& args, bool defer) {
    float* m1 = first.empty() ? nullptr : first.data();
    float* m2 = second.empty() ? nullptr : second.data();
    const int64_t count = int64_t(params.size()), table = table_floats;
    if (defer) {
      optimizer_all(setup.optimizer, params.data() + table, grads.data(), m1 ? m1 + table : nullptr,
                    m2 ? m2 + table : nullptr, count - table, args.learning_rate, args.bias_step());
      deferred = {true, args.learning_rate, args.bias_step()};
      pending_coords.swap(batch_coords); // the step's coordinates wait with its gradient
    } else {
      optimizer_ranges(setup.optimizer, params.data(), grads.data(), m1, m2, count, args.learning_rate,
                       args.bias_step(), table, trained_lane_step(setup.model.encoding));
      table_grads_clean = true;
    }
  }
  /// The step's time to the team sizer; REDRAW_TEAM_LOG=1 prints each change of the measured team
  /// on stderr (why a run trains on fewer cores).
  void record_team(int64_t step, double seconds) {
    const int before = sizer.team();
    sizer.record(seconds);
    static const bool team_log = std::getenv("REDRAW_TEAM_LOG") != nullptr;
    if (team_log && sizer.team() != before)
      std::fprintf(stderr, "cpu team: step %lld, %d -> %d threads%s\n", static_cast<long long>(step), before,
                   sizer.team(), sizer.probing() ? " (probing)" : "");
  }
};

CpuBackend::CpuBackend() {
  // Every parallel region is ours (OpenMP); OpenBLAS runs single-threaded inside them, so its own
  // thread pool never spins against ours on the same cores.
  openblas_set_num_threads(1);
}
CpuBackend::~CpuBackend() = default;

std::string CpuBackend::device_description() const {
  const int fixed = cpu_threads_setting();
  const std::string team = fixed > 0 ? std::to_string(fixed) + (fixed == 1 ? " thread" : " threads")
                                     : "threads measured, up to " + std::to_string(cpu_core_count());
  return std::to_string(cpu_core_count()) + " CPU cores (" + team + "), " + openblas_kernel_description();
}

int CpuBackend::team_size() const {
  if (m_state) return m_state->sizer.team();
  const int fixed = cpu_threads_setting();
  return fixed > 0 ? fixed : cpu_core_count();
}

bool CpuBackend::supports(BackendFeature f) const {
  return f == BackendFeature::Training || f == BackendFeature::Rendering || f == BackendFeature::StepProfile;
}

StepProfile CpuBackend::take_step_profile() {
  if (!m_state) return {};
  StepProfile p = m_state->profile;
  m_state->profile = StepProfile{};
  return p;
}

void CpuBackend::configure_impl(const TrainSetup& setup, const Dataset& data) {
  auto s = std::make_unique<State>();
  s->setup = setup;
  s->layers = dense_layers(setup.model);
  s->encoding_width = setup.model.encoding.width();
  s->n = data.size();
  const int32_t C = data.channels();
  s->targets = data.targets();
  s->width = data.image.width;
  s->height = data.image.height;
  s->fourier_b = fourier_matrix(setup.model.encoding, setup.seed);
  s->trained = cpu_trained_encoding(setup.model.encoding);
  // A hash-grid minibatch defers its table's gradient (State::DeferredTableUpdate).
  s->grid = setup.batch_size > 0 && s->trained ? s->trained->deferred_levels() : nullptr;
  s->table_floats = encoding_parameter_count(setup.model.encoding);
  const int64_t count = redraw::parameter_count(setup.model);
  resize_checked(s->params, count, "parameters");
  s->grads_first = s->grid ? s->table_floats : 0;
  resize_checked(s->grads, count - s->grads_first, "gradients");
  const int arrays = optimizer_state_arrays(setup.optimizer);
  if (arrays >= 1) resize_checked(s->first, count, "optimizer state");
  if (arrays >= 2) resize_checked(s->second, count, "optimizer state");
  if (setup.batch_size > 0) {
    resize_checked(s->batch_coords, setup.batch_size * 2, "minibatch");
    resize_checked(s->batch_targets, setup.batch_size * C, "minibatch");
    if (s->grid) {
      resize_checked(s->batch_encoded, setup.batch_size * s->encoding_width, "encoded minibatch");
      resize_checked(s->pending_encoding_grad, setup.batch_size * s->encoding_width, "minibatch gradients");
      resize_checked(s->pending_coords, setup.batch_size * 2, "minibatch");
      // A step grows the buffer only if a fixed thread count exceeds the cores.
      resize_checked(s->level_grads, cpu_deferred_group_floats(*s->grid), "table gradients");
    }
  }
  // Keep the encoded dataset when every step encodes the same coordinates (and it is big enough
  // to matter): full batch, or the dataset for dataset_mse. A trained family's encoding changes every step.
  // A chunk's rows follow the network, never the team (cpu_chunk_rows).
  const int64_t chunk = cpu_chunk_rows(s->layers, s->encoding_width);
  if (!s->trained && s->n * s->encoding_width * int64_t(sizeof(float)) <= k_max_cached_encoding_bytes) {
    resize_checked(s->encoded, s->n * s->encoding_width, "encoded dataset");
    resize_checked(s->chunk_coords, std::min(chunk, s->n) * 2, "coordinates");
    for (int64_t r0 = 0; r0 < s->n; r0 += chunk) {
      const int64_t rows = std::min(chunk, s->n - r0);
      encode_rows(setup.model.encoding.params(), s->fourier_b.data(), s->chunk(r0, rows), rows,
                  s->encoded.data() + r0 * s->encoding_width);
    }
  }
  s->ws.reserve(s->layers, s->encoding_width, std::min(chunk, std::max(s->batch(), s->n)));
  resize_checked(s->chunk_coords, s->ws.rows * 2, "coordinates");
  m_state = std::move(s);
}

void CpuBackend::synchronize() {
  if (!m_state) return;
  const auto t0 = std::chrono::steady_clock::now();
  const bool pending = m_state->deferred.pending;
  m_state->settle();
  if (pending) m_state->profile.update_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void CpuBackend::set_parameters_impl(std::span<const float> p) {
  m_state->settle(); // the optimizer state must hold the last step's update, whatever the weights become
  std::copy(p.begin(), p.end(), m_state->params.begin());
  if (m_state->trained) m_state->trained->parameters_replaced();
  m_state->nonfinite = false;
}
void CpuBackend::set_moved_parameters_impl(std::span<const float> p) {
  m_state->settle();
  std::copy(p.begin(), p.end(), m_state->params.begin());
  if (m_state->trained) {
    const FlushedTeam flushed = use_team(team_size()); // a sad refresh pass runs here
    m_state->trained->parameters_moved(m_state->params.data());
  }
  m_state->nonfinite = false;
}

bool CpuBackend::bound_site_lists_impl(std::vector<int32_t>& out) {
  return m_state->trained && m_state->trained->site_lists(out);
}

void CpuBackend::get_parameters_impl(std::vector<float>& out) {
  m_state->settle();
  out = m_state->params;
}

void CpuBackend::set_optimizer_state_impl(const OptimizerState& st) {
  m_state->settle();
  if (!m_state->first.empty()) std::copy(st.first.begin(), st.first.end(), m_state->first.begin());
  if (!m_state->second.empty()) std::copy(st.second.begin(), st.second.end(), m_state->second.begin());
}

void CpuBackend::get_optimizer_state_impl(OptimizerState& out) {
  m_state->settle();
  out.first = m_state->first;
  out.second = m_state->second;
}

void CpuBackend::train_step_impl(const StepArgs& args) {
  State& s = *m_state;
  using PhaseClock = std::chrono::steady_clock;
  const auto t_start = PhaseClock::now();
  auto lap = [](PhaseClock::time_point& mark) { // and moves the mark to now
    const auto now = PhaseClock::now();
    const double d = std::chrono::duration<double>(now - mark).count();
    mark = now;
    return d;
  };
  auto mark = t_start;
  if (const int setting = cpu_threads_setting(); setting != s.threads_setting) {
    s.threads_setting = setting;
    s.sizer = TeamSizer(cpu_core_count(), setting, cpu_reserved_threads());
  }
  const FlushedTeam flushed = use_team(s.sizer.team()); // this thread's regions; the GUI trains on its own thread
  const auto started = std::chrono::steady_clock::now();
  NetView net = s.view();
  const int32_t C = s.layers.back().out;
  const int64_t total = s.batch();
  const float* coords = nullptr; // a minibatch's; full batch makes each chunk's
  const float* targets = s.targets;
  const bool minibatch = s.setup.batch_size > 0;
  // A hash-grid minibatch is encoded whole before the chunks, level by level, and its table's
  // update waits for the next step's encoding (State::deferred).
  const bool defer = s.grid != nullptr;
  net.grads_first = s.grads_first; // table_floats when deferring, else 0
  if (!defer) s.settle();
  if (s.trained) s.trained->step_begins(s.params.data());
  if (minibatch) {
    s.gather_minibatch(args.step, C, total);
    coords = s.batch_coords.data();
    targets = s.batch_targets.data();
  }
  if (defer) {
    const double update_s = s.encode_levels_settling(coords, total);
    s.profile.update_s += update_s; // the last step's, counted where it ran
    s.profile.forward_s -= update_s;
  }
  net.table_grads_zeroed = s.table_grads_clean; // else (a step cut short) the first chunk clears them
  s.table_grads_clean = false;
  const float inv_count = float(1.0 / (double(total) * C));
  double loss_sum = 0;
  // A stop request is looked at between chunks: at full resolution a full-batch step runs for
  // seconds, and nothing of it is applied until the update after the last chunk.
  const auto stop_requested = [&] { return args.stop && args.stop->load(std::memory_order_relaxed); };
  for (int64_t r0 = 0; r0 < total; r0 += s.ws.rows) {
    if (stop_requested()) return abandon_step();
    const int64_t rows = std::min(s.ws.rows, total - r0);
    const bool cached = !minibatch && !s.encoded.empty();
    // A trained family's backward needs the coordinates too; a cached encoding needs none.
    const float* chunk_coords = minibatch ? coords + 2 * r0 : cached ? nullptr : s.chunk(r0, rows);
    const float* input;
    if (defer) {
      input = s.batch_encoded.data() + r0 * s.encoding_width;
      net.encoding_grad = s.pending_encoding_grad.data() + r0 * s.encoding_width; // for the next step's scatter
    } else if (cached) {
      input = s.encoded.data() + r0 * s.encoding_width;
    } else {
      encode_input(net, chunk_coords, rows, s.ws.input.data());
      input = s.ws.input.data();
    }
    forward_rows(net, s.ws, input, rows);
    s.profile.forward_s += lap(mark); // with the gather and encoding before it
    loss_sum += backward_rows(net, s.ws, chunk_coords, input, targets + r0 * C, rows, s.setup.loss, inv_count,
                              s.grads.data(), r0 == 0, s.scratch);
    s.profile.backward_s += lap(mark);
  }
  if (stop_requested()) return abandon_step();
  reduce_weight_slots(s.layers, s.ws, std::min(s.ws.rows, total), s.grads.data(), s.grads_first);
  s.update(args, defer);
  s.profile.update_s += lap(mark);
  s.profile.step_s += std::chrono::duration<double>(mark - t_start).count();
  ++s.profile.steps;
  s.record_team(args.step, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!std::isfinite(loss_sum)) s.nonfinite = true;
  if (args.record_loss) {
    s.pending = LossSample{args.step, loss_sum * double(inv_count), s.nonfinite};
    s.nonfinite = false;
  }
}

std::optional<LossSample> CpuBackend::poll_loss_impl() {
  auto p = m_state->pending;
  m_state->pending.reset();
  return p;
}

double CpuBackend::dataset_mse_impl() {
  State& s = *m_state;
  const auto t_start = std::chrono::steady_clock::now();
  struct Timed { // adds the call's wall time to the profile on every way out
    StepProfile& p;
    std::chrono::steady_clock::time_point start;
    ~Timed() {
      p.metrics_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ++p.metrics_calls;
    }
  } timed{s.profile, t_start};
  const FlushedTeam flushed = use_team(team_size());
  s.settle();
  const NetView net = s.view();
  const int32_t C = s.layers.back().out;
  double sum = 0;
  for (int64_t r0 = 0; r0 < s.n; r0 += s.ws.rows) {
    const int64_t rows = std::min(s.ws.rows, s.n - r0);
    const float* input;
    if (!s.encoded.empty()) {
      input = s.encoded.data() + r0 * s.encoding_width;
    } else {
      encode_input(net, s.chunk(r0, rows), rows, s.ws.input.data());
      input = s.ws.input.data();
    }
    forward_rows(net, s.ws, input, rows);
    const float* pred = s.ws.y.back().data();
    const float* t = s.targets + r0 * C;
    const int64_t nb = blocks_of(rows);
    s.ws.partial.assign(size_t(nb), 0.0);
#pragma omp parallel for schedule(static)
    for (int64_t blk = 0; blk < nb; ++blk) {
      double acc = 0;
      const int64_t e1 = std::min(rows, (blk + 1) * k_block_rows) * C;
      for (int64_t e = blk * k_block_rows * C; e < e1; ++e) {
        const double d = double(rd_clamp(pred[e], 0.0f, 1.0f)) - double(t[e]);
        acc += d * d;
      }
      s.ws.partial[size_t(blk)] = acc;
    }
    for (double p : s.ws.partial)
      sum += p;
  }
  return sum / (double(s.n) * C);
}

namespace {
/// Every value finite and within `limit` in magnitude (count_unsound's rule, in parallel).
bool all_sound(const std::vector<float>& v, float limit) {
  const float* p = v.data();
  const int64_t n = int64_t(v.size());
  int64_t bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (int64_t i = 0; i < n; ++i) bad += std::abs(p[i]) <= limit ? 0 : 1; // false for NaN too
  return bad == 0;
}
} // namespace

bool CpuBackend::parameters_sound_impl(bool with_optimizer) {
  const FlushedTeam flushed = use_team(team_size());
  m_state->settle();
  const State& s = *m_state;
  return all_sound(s.params, k_max_model_weight) &&
         (!with_optimizer || (all_sound(s.first, k_max_optimizer_value) && all_sound(s.second, k_max_optimizer_value)));
}

bool CpuBackend::copy_state_if_sound_impl(std::vector<float>& params, OptimizerState& optimizer) {
  const FlushedTeam flushed = use_team(team_size());
  m_state->settle();
  const State& s = *m_state;
  if (!all_sound(s.params, k_max_model_weight) || !all_sound(s.first, k_max_optimizer_value) ||
      !all_sound(s.second, k_max_optimizer_value))
    return false;
  params = s.params; // assignments reuse the buffers' memory
  optimizer.first = s.first;
  optimizer.second = s.second;
  return true;
}

void CpuBackend::predict_bound_impl(const float* coords, int64_t n, float* out) {
  // The training workspace and weights in place: between steps the workspace holds nothing the
  // next step needs (it recomputes every activation), and no copy of a large table is made.
  State& s = *m_state;
  const FlushedTeam flushed = use_team(team_size());
  s.settle();
  predict_chunks(s.view(), s.ws, coords, n, out);
}

} // namespace redraw
