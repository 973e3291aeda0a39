#pragma once
/// The .redraw model file: everything needed to render, inspect or resume a run.
/// Layout (little-endian): "RDRWMODL" magic, u32 version, u32 chunk count, then chunks of
/// { char tag[4], u64 byte length, bytes }, then a CRC-32 (zlib) of every byte before it.
/// Chunks: META (JSON: config, step, optimizer_step (optional), seconds, image size, source), PARM (f32 parameters),
/// OPTM (f32 optimizer state arrays), HIST (metrics rows), SNAP (timelapse frames), RCOV (JSON list of
/// the recoveries from divergence; absent in files written before it). From format 3 the frames
/// are FRAM (per frame: metrics, what it keeps, picture size), FPIC (the pictures) and FWGT (the
/// keyframes' weights), and every chunk body is packed (checkpoint_codec.h; docs/model-file.md).
/// Unknown chunks are skipped, so older readers open newer files of the same major version.
/// Writes are atomic (temp file, fsync, rename); any defect on load throws CheckpointError
/// naming the file and the problem, before anything is allocated from an untrusted size.
/// A checkpoint whose weights, optimizer state or snapshots are not all finite is never written
/// (CheckpointError), nor one whose weights or optimizer state are past the bounds a model may
/// hold (count_unsound); a frame whose weights are past them keeps its picture only. One written by an older redraw may still hold them: load_checkpoint reads it
/// (so `info` can say so), and count_nonfinite tells the callers that must refuse it.
#include "engine/frames/snapshot.h"
#include "engine/model_files/loss_trace.h"
#include "engine/metrics.h"
#include "engine/run_config.h"
#include "engine/soundness.h"

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace redraw {

class AtomicFileWriter;

/// Format versions: 1 (the first); 2 adds the HashGrid encoding, whose config keys a version-1
/// reader would refuse and whose table leads PARM; 3 packs the chunks (zstd) and stores frames as
/// pictures with fp16 keyframes. Files of every older version are read.
constexpr uint32_t k_checkpoint_version = 3;

/// What a model file may hold beside its network, so that opening any file costs what its
/// declared network needs plus a bounded amount (a few hundred MiB at most), however its chunks
/// are packed. The writer keeps within them (it thins what a very long run would put over).
constexpr uint64_t k_max_meta_bytes = uint64_t(1) << 20;          ///< META's and RCOV's JSON, each
constexpr uint64_t k_max_file_frames = 65536;                     ///< timelapse frames
constexpr uint64_t k_max_file_weight_frames = 256;                ///< frames that keep weights
constexpr uint64_t k_max_file_picture_bytes = uint64_t(256) << 20; ///< the frames' pictures together
constexpr uint64_t k_max_file_history_rows = uint64_t(1) << 21;   ///< metrics rows
constexpr uint64_t k_max_file_loss_values = uint64_t(1) << 24;    ///< the loss trace's values (the newest kept)

struct Checkpoint {
  RunConfig config;
  int32_t image_width = 0, image_height = 0; ///< training size
  std::string source_image;                  ///< path the run was trained on (informational)
  int64_t step = 0;
  int64_t optimizer_step = -1; ///< updates since the optimizer state was zeroed; -1 = `step`
  double seconds = 0;
  double lr_scale = 1; ///< learning-rate multiplier left by recoveries from divergence
  double initial_psnr_db = std::numeric_limits<double>::quiet_NaN(); ///< the untrained network's (NaN: unknown)
  std::vector<float> params;
  OptimizerState optimizer;
  std::vector<MetricsRow> history;
  LossTrace loss_trace; ///< every step's loss where the backend reported it (CURV chunk)
  std::vector<Snapshot> snapshots;
  std::vector<RecoveryEvent> recoveries;
};

/// The soundness bounds (k_max_model_weight, k_max_optimizer_value) and the counts over one array
/// (count_nonfinite, count_unsound) are engine/soundness.h's; these count over a whole model.
/// Unsound values in the weights (k_max_model_weight) and optimizer state (k_max_optimizer_value)
/// of `c`, all together; its frames are not counted (the writer keeps a frame's picture without
/// weights that are not sound).
int64_t count_unsound(const Checkpoint& c);
/// Non-finite values in the weights, optimizer state and snapshots of `c`, all together.
int64_t count_nonfinite(const Checkpoint& c);
/// 64-bit FNV-1a of the parameters' fp32 bit patterns (little-endian bytes, in order): equal
/// fingerprints mean bit-identical weights (what `info` prints to compare two runs).
uint64_t parameter_fingerprint(std::span<const float> params);

void save_checkpoint(const std::filesystem::path& file, const Checkpoint& ckpt);
Checkpoint load_checkpoint(const std::filesystem::path& file);
/// The file's bytes in format `version` (older formats for tests and tools: they store every
/// frame's weights in fp32 and leave picture-only frames out).
std::vector<uint8_t> serialize_checkpoint(const Checkpoint& ckpt, uint32_t version = k_checkpoint_version);
/// The same file (the current version) written to `out` chunk by chunk: saving holds the packed
/// chunks, not a second copy of the whole file. The caller commits `out`.
void write_checkpoint(AtomicFileWriter& out, const Checkpoint& ckpt);
Checkpoint deserialize_checkpoint(const uint8_t* data, size_t size, const std::string& name);
/// The file checked as deserialize_checkpoint checks it (magic, CRC, version, chunk table), and
/// its META chunk alone: config, steps, sizes and source; no weights, history or frames.
Checkpoint read_checkpoint_meta(const uint8_t* data, size_t size, const std::string& name);

} // namespace redraw
