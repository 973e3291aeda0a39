#pragma once
/// Copies of device arrays (the parameters, the optimizer state) to the host that make neither the
/// host nor the compute stream wait: the timelapse's frames (Backend::begin_parameter_copy).
/// - begin(): on the compute stream, a device-to-device copy of the arrays into the slot's staging
///   buffer (the arrays may change right after it) and an event; on the copier's own stream, which
///   waits for that event, the copy from staging into the slot's pinned host memory and a second
///   event. Nothing waits on the host.
/// - finish(): polls (or, with wait, waits for) the second event, then copies the pinned values
///   into the caller's vectors.
/// - Slots (staging + pinned memory + two events) are reserved with the network's shape and
///   reused; begin() makes another only when every slot holds a copy not yet finished or dropped.
///   A slot's next staging copy waits, on the device, for its previous download.
/// - Threading: the owning backend's thread only.
#include "cuda/device_buffer.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace redraw::cuda {

struct CopySource {
  const float* data = nullptr;
  size_t count = 0;
};

class ParameterCopier {
public:
  ParameterCopier();
  ~ParameterCopier();
  ParameterCopier(const ParameterCopier&) = delete;
  ParameterCopier& operator=(const ParameterCopier&) = delete;

  /// Makes `slots` slots of `floats` values each (staging from `pool` on `stream`). Throws BackendError.
  void reserve(const DevicePool& pool, cudaStream_t stream, size_t floats, int slots);
  /// Enqueues the copy of `sources` (concatenated) as they are after the work already on `stream`.
  void begin(int64_t ticket, const DevicePool& pool, cudaStream_t stream, const std::vector<CopySource>& sources);
  /// Copy `ticket`: once arrived, outs[i] (when not null) receives source i's values and the slot is
  /// free again; true. False while it is on its way (never with wait). BackendError for an unknown ticket.
  bool finish(int64_t ticket, bool wait, const std::vector<std::vector<float>*>& outs);
  /// Forgets copy `ticket`; unknown tickets are ignored.
  void drop(int64_t ticket);
  /// Copies in flight.
  int pending() const;
  /// Waits for every download, then frees every slot; never throws.
  void reset() noexcept;

private:
  struct Slot;
  Slot* slot_for(int64_t ticket);
  std::vector<std::unique_ptr<Slot>> m_slots;
  cudaStream_t m_copy_stream = nullptr;
};

} // namespace redraw::cuda
