#pragma once
/// The training timelapse: which steps to keep weights for, and a memory-capped store of them.
/// - SnapshotPolicy: dense early, when the picture changes fast, sparse later. A step is a
///   snapshot step when it is on a geometric ladder (per_octave steps per doubling, rounded:
///   1, 2, 3, 4, 6, 8, 11, 16, 23, 32, ... for 2 per octave) or a multiple of `every`.
/// - Every frame keeps a small picture (FramePicture, at most k_frame_picture_side on its longer
///   side), which is what scrubbing shows; a frame arrives with its exact weights and optimizer
///   state too (an exact continuation).
/// - SnapshotStore: frames in increasing step order under a byte cap (256 MiB by default). When a
///   new frame would go over the cap, memory is given back in three stages, each thinned evenly
///   in log(1 + step) (the candidate whose neighbouring candidates are closest together goes
///   first) and never touching the newest frame: (1) frames lose their optimizer state and their
///   weights are rounded to fp16 (a keyframe: it still renders at any size and can be branched
///   from, with a fresh optimizer); (2) keyframes with a picture lose their weights, the first
///   frame's aside (a picture only); (3) interior frames are dropped. The first and the newest
///   frames are never dropped, so a store always keeps at least those two (and may exceed a cap
///   smaller than two frames).
/// - A network whose exact frame is over k_large_frame_bytes keeps fp16 weights only at steps 0
///   and powers of two; its other frames arrive as pictures only (SnapshotKeeper::big_frames).
/// - Threading: neither type is locked; the Trainer's thread owns the store.
#include "engine/frames/snapshot.h"
#include "engine/images/image.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace redraw {

constexpr size_t k_default_snapshot_cap_bytes = size_t(256) << 20; ///< 256 MiB
/// An exact frame (weights and optimizer state) larger than this makes the frames between
/// powers of two pictures only (SnapshotKeeper::big_frames): an eighth of the default cap.
constexpr size_t k_large_frame_bytes = k_default_snapshot_cap_bytes / 8;
/// Longest side of a frame's picture (smaller images keep their size).
constexpr int32_t k_frame_picture_side = 256;
/// Frames a saved model keeps weights for (fp16; step 0 exact), spread evenly in log step; the
/// others keep their picture. Frames without a picture (read from older files) keep their weights.
constexpr size_t k_file_keyframes = 8;

struct SnapshotPolicy {
  bool enabled = true;
  bool initial = true;    ///< also keep the untrained network (step 0)
  int32_t per_octave = 2; ///< ladder density: steps round(2^(k / per_octave)); 0 = no ladder
  int64_t every = 100;    ///< plus every this many steps; 0 = none

  /// True when the network after `step` completed steps should be kept (step 0 = initial).
  bool should_snapshot(int64_t step) const;

  /// A policy for a run of `total_steps` that aims at about `regular_frames` regular frames, with
  /// `every` a multiple of metrics_every when it is at least that (the snapshots then reuse the
  /// step's measured metrics); frames are pictures and cheap, so the count wins over the reuse.
  static SnapshotPolicy for_run(int64_t total_steps, int64_t metrics_every, int64_t regular_frames = 200);
};

/// Bytes a snapshot holds in memory (its weights, optimizer state, picture and metrics).
size_t snapshot_bytes(const Snapshot& s);
/// The size of a frame's picture for a w x h image: the image's, shrunk to k_frame_picture_side.
void frame_picture_size(int32_t w, int32_t h, int32_t& pw, int32_t& ph);
/// w x h scaled down, aspect kept, to fit within max_w x max_h (never up; at least 1 x 1); a limit
/// of 0 or less is no limit on that axis.
void fit_within(int32_t w, int32_t h, int32_t max_w, int32_t max_h, int32_t& fw, int32_t& fh);
/// An 8-bit frame picture of `image` (values in [0, 1], rounded).
FramePicture to_frame_picture(const Image& image);
/// The picture as a float image (for drawing and exporting a picture-only frame).
Image from_frame_picture(const FramePicture& picture);
/// Which frames a saved model keeps weights for (see k_file_keyframes); one flag per frame.
std::vector<bool> file_keyframes(const std::vector<Snapshot>& frames, size_t keyframes = k_file_keyframes);
/// Bytes of a snapshot's optimizer state alone.
size_t optimizer_bytes(const Snapshot& s);
/// Forgets a frame's optimizer state: branching from it then restarts the optimizer.
void drop_optimizer_state(Snapshot& s);
/// Forgets the optimizer state and rounds exact weights to fp16 (kept exact when fp16 cannot hold them).
void make_keyframe(Snapshot& s);

class SnapshotStore {
public:
  explicit SnapshotStore(size_t cap_bytes = k_default_snapshot_cap_bytes) : m_cap(cap_bytes) {}

  /// Appends a frame. A frame at a step <= the newest one's replaces every frame from that step
  /// on (a branch rewrote that part of the timeline). Then thins to the cap.
  void add(Snapshot frame);
  /// Replaces every frame (e.g. from a loaded model), sorted by step, then thins to the cap.
  void assign(std::vector<Snapshot> frames);
  void clear();
  /// Drops every frame after `step` (branching from an earlier frame).
  void truncate_after(int64_t step);

  /// The cap in bytes; lowering it thins at once. At least two frames are always kept.
  void set_cap_bytes(size_t cap_bytes);
  size_t cap_bytes() const { return m_cap; }
  size_t bytes() const { return m_bytes; }     ///< what the frames hold now
  size_t thinned() const { return m_thinned; } ///< frames dropped to stay under the cap, ever

  const std::vector<Snapshot>& frames() const { return m_frames; }
  /// Lends the frames out (the store is empty until give_back(), which must follow on the same
  /// thread with the same frames): a save reads them without a copy of the whole timelapse.
  std::vector<Snapshot> lend() { return std::move(m_frames); }
  void give_back(std::vector<Snapshot>&& frames) { m_frames = std::move(frames); }
  size_t size() const { return m_frames.size(); }
  bool empty() const { return m_frames.empty(); }
  const Snapshot& operator[](size_t i) const { return m_frames[i]; }
  /// Index of the newest frame at or before `step` (0 when all are later); the store must not be empty.
  size_t index_at_step(int64_t step) const;

private:
  void thin();
  std::vector<Snapshot> m_frames;
  size_t m_cap;
  size_t m_bytes = 0;
  size_t m_thinned = 0;
};

/// Thins `frames` (sorted by step) in place until their snapshot_bytes fit in cap_bytes, in the
/// three stages above; returns how many frames were dropped. Exposed for tests and tools.
size_t thin_snapshots(std::vector<Snapshot>& frames, size_t cap_bytes);

} // namespace redraw
