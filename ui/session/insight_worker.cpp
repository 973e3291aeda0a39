#include "ui/session/insight_worker.h"

#include "engine/errors.h"
#include "ui/widgets/image_views.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace redraw {
namespace {
/// Log magnitude through the heat colours, divided by `top` (the target's largest log value).
std::vector<uint8_t> magnitude_rgba(const std::vector<float>& mag, float top) {
  std::vector<uint8_t> out(mag.size() * 4);
  const float inv = top > 0 ? 1.0f / top : 0.0f;
  for (size_t i = 0; i < mag.size(); ++i) {
    const auto c = heat_color(std::log1p(mag[i]) * inv);
    out[i * 4 + 0] = c[0];
    out[i * 4 + 1] = c[1];
    out[i * 4 + 2] = c[2];
    out[i * 4 + 3] = 255;
  }
  return out;
}
} // namespace

InsightWorker::InsightWorker() : m_thread([this] { thread_main(); }) {}

InsightWorker::~InsightWorker() {
  {
    std::lock_guard lock(m_mutex);
    m_quit = true;
    ++m_neuron_generation;
  }
  m_cv.notify_all();
  m_thread.join();
}

void InsightWorker::submit(SpectrumJob job) {
  {
    std::lock_guard lock(m_mutex);
    m_spectrum_job = std::move(job);
  }
  m_cv.notify_all();
}

void InsightWorker::submit(NeuronJob job) {
  {
    std::lock_guard lock(m_mutex);
    m_neuron_job = std::move(job);
    ++m_neuron_generation;
  }
  m_cv.notify_all();
}

std::optional<SpectrumResult> InsightWorker::take_spectrum() {
  std::lock_guard lock(m_mutex);
  auto r = std::move(m_spectrum_result);
  m_spectrum_result.reset();
  return r;
}

std::optional<NeuronResult> InsightWorker::take_neurons() {
  std::lock_guard lock(m_mutex);
  auto r = std::move(m_neuron_result);
  m_neuron_result.reset();
  return r;
}

bool InsightWorker::spectrum_pending() const {
  std::lock_guard lock(m_mutex);
  return m_spectrum_job.has_value() || m_spectrum_running;
}

bool InsightWorker::neurons_pending() const {
  std::lock_guard lock(m_mutex);
  return m_neuron_job.has_value() || m_neurons_running;
}

void InsightWorker::thread_main() {
  // Linux gives each thread its own nice value: this one yields the cores to training.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  pthread_setname_np(pthread_self(), "redraw-insight"); // named for top -H and bench/insight_bench.sh
  for (;;) {
    std::optional<SpectrumJob> spectrum;
    std::optional<NeuronJob> neurons;
    {
      std::unique_lock lock(m_mutex);
      m_cv.wait(lock, [this] { return m_quit || m_spectrum_job || m_neuron_job; });
      if (m_quit) return;
      if (m_spectrum_job) {
        spectrum = std::move(m_spectrum_job);
        m_spectrum_job.reset();
        m_spectrum_running = true;
      } else {
        neurons = std::move(m_neuron_job);
        m_neuron_job.reset();
        m_neurons_running = true;
      }
    }
    if (spectrum) {
      SpectrumResult r = run_spectrum(*spectrum);
      std::lock_guard lock(m_mutex);
      m_spectrum_result = std::move(r);
      m_spectrum_running = false;
    } else if (neurons) {
      NeuronResult r = run_neurons(*neurons);
      std::lock_guard lock(m_mutex);
      if (r.error != "cancelled") m_neuron_result = std::move(r);
      m_neurons_running = false;
    }
  }
}

SpectrumResult InsightWorker::run_spectrum(const SpectrumJob& job) {
  const auto t0 = std::chrono::steady_clock::now();
  SpectrumResult r;
  r.step = job.step;
  r.run_id = job.run_id;
  try {
    if (job.truth->width != job.recon->width || job.truth->height != job.recon->height ||
        job.truth->channels != job.recon->channels)
      throw ConfigError("the preview and the target differ in size");
    // A large picture is analysed on its view (at most k_spectrum_view_side a side).
    const Image t = spectrum_view(*job.truth);
    const Image p = spectrum_view(*job.recon);
    if (!m_analyzer || m_analyzer->width() != t.width || m_analyzer->height() != t.height)
      m_analyzer = std::make_unique<SpectrumAnalyzer>(t.width, t.height);
    Image err = p;
    for (size_t i = 0; i < err.pixels.size(); ++i)
      err.pixels[i] = p.pixels[i] - t.pixels[i];
    const std::vector<float> mt = m_analyzer->magnitude(t);
    const float top = std::log1p(*std::max_element(mt.begin(), mt.end()));
    r.truth_rgba = magnitude_rgba(mt, top);
    r.recon_rgba = magnitude_rgba(m_analyzer->magnitude(p), top);
    r.error_rgba = magnitude_rgba(m_analyzer->magnitude(err), top);
    r.band_power = m_analyzer->error_band_power(t, p);
    r.bins = m_analyzer->band_bin_counts();
    r.width = t.width;
    r.height = t.height;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

NeuronResult InsightWorker::run_neurons(const NeuronJob& job) {
  const auto t0 = std::chrono::steady_clock::now();
  NeuronResult r;
  r.step = job.net->step;
  r.trainer_id = job.trainer_id;
  uint64_t generation;
  {
    std::lock_guard lock(m_mutex);
    generation = m_neuron_generation;
  }
  try {
    const NetworkSnapshot& n = *job.net;
    if (job.primitives)
      r.primitives = std::make_shared<const PrimitiveView>(primitive_view(n, job.width, job.height, job.earlier.get()));
    else
      r.maps = std::make_shared<NeuronMaps>(
        compute_neuron_maps(n.model, n.params, n.fourier_b, job.layer, job.width, job.height, [this, generation] {
          std::lock_guard lock(m_mutex);
          return m_neuron_generation != generation;
        }));
  } catch (const CancelledError&) {
    r.error = "cancelled";
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

} // namespace redraw
