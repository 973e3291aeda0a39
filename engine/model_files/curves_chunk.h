#pragma once
/// The CURV chunk of a .redraw model: the curves that came after the HIST rows, kept apart so the
/// older chunks stay as they were.
/// - Layout (little-endian): u64 count of exact-PSNR rows, then their steps (i64 each: the HIST
///   rows whose PSNR was measured over every pixel; the others were sampled); i64 first_count of
///   the loss trace, u64 value count, then that many f32 losses (engine/model_files/loss_trace.h).
/// - A reader of a model without the chunk sees every row as sampled and no loss trace.
#include "engine/model_files/loss_trace.h"
#include "engine/metrics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace redraw {

/// The chunk's body for a history and a loss trace.
std::vector<uint8_t> encode_curves_chunk(const std::vector<MetricsRow>& history, const LossTrace& trace);
/// Reads a chunk body: marks the history rows it names exact and fills `trace`. CheckpointError
/// naming `name` and the chunk for a body that is short, runs past its end or holds a step count
/// below 1.
void decode_curves_chunk(const uint8_t* body, size_t size, const std::string& name, std::vector<MetricsRow>& history,
                         LossTrace& trace);

} // namespace redraw
