#pragma once
/// The insight views' background thread: spectrum analyses, neuron maps and the primitives view (its owner map) run here, one job at a
/// time, so neither the GUI nor the training thread waits for them.
/// - One slot per kind of job: a new job replaces a queued one of its kind that has not started
///   (the newest preview or parameters win). A running neuron-map job is abandoned between bands
///   when a newer one arrives.
/// - The thread runs at a lower priority (nice +10), so the training thread keeps the cores; the
///   caller also spaces jobs out (ui/panels/insight_views.cpp keeps the worker busy <= ~10% of the time).
/// - submit/take: GUI thread. Results are plain data; textures are made by the caller.
#include "engine/images/image.h"
#include "engine/insight/neuron_maps.h"
#include "engine/insight/primitive_view.h"
#include "engine/insight/spectrum.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace redraw {

struct SpectrumJob {
  std::shared_ptr<const Image> truth, recon;
  int64_t step = 0;
  uint64_t run_id = 0;
};

struct SpectrumResult {
  int64_t step = 0;
  uint64_t run_id = 0;
  int32_t width = 0, height = 0;
  std::vector<uint8_t> truth_rgba, recon_rgba, error_rgba; ///< log magnitudes on the target's scale
  std::vector<double> band_power;                          ///< the error's (engine/insight/spectrum.h)
  std::vector<int64_t> bins;
  double seconds = 0; ///< how long the job took
  std::string error;
};

/// A layer's neuron maps (width x height each), or, for a model of primitives, the primitives
/// view over a width x height picture (`earlier`, the same run's last, gives the change).
struct NeuronJob {
  std::shared_ptr<const NetworkSnapshot> net;
  uint64_t trainer_id = 0;
  int32_t layer = 0, width = 0, height = 0;
  bool primitives = false;
  std::shared_ptr<const PrimitiveView> earlier;
};

struct NeuronResult {
  std::shared_ptr<const NeuronMaps> maps;
  std::shared_ptr<const PrimitiveView> primitives; ///< a primitives job's view
  int64_t step = 0;
  uint64_t trainer_id = 0;
  double seconds = 0;
  std::string error;
};

class InsightWorker {
public:
  InsightWorker();
  ~InsightWorker(); ///< abandons queued jobs and joins the thread
  InsightWorker(const InsightWorker&) = delete;
  InsightWorker& operator=(const InsightWorker&) = delete;

  void submit(SpectrumJob job);
  void submit(NeuronJob job);
  std::optional<SpectrumResult> take_spectrum();
  std::optional<NeuronResult> take_neurons();
  bool spectrum_pending() const; ///< queued or running
  bool neurons_pending() const;

private:
  void thread_main();
  SpectrumResult run_spectrum(const SpectrumJob& job);
  NeuronResult run_neurons(const NeuronJob& job);

  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_quit = false;
  std::optional<SpectrumJob> m_spectrum_job;
  std::optional<NeuronJob> m_neuron_job;
  bool m_spectrum_running = false, m_neurons_running = false;
  std::optional<SpectrumResult> m_spectrum_result;
  std::optional<NeuronResult> m_neuron_result;
  uint64_t m_neuron_generation = 0; ///< bumped by each neuron submit (cancels the running one)

  // Worker thread only.
  std::unique_ptr<SpectrumAnalyzer> m_analyzer;

  std::thread m_thread; // last: starts after every member above exists
};

} // namespace redraw
