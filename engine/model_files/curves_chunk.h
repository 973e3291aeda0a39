#pragma once
/// The CURV chunk of a .redraw model: the curves that came after the HIST rows, kept apart so the
/// older chunks stay as they were.
/// - Layout (little-endian): u64 count of exact-PSNR rows, then their steps (i64 each: the HIST
///   rows whose PSNR was measured over every pixel; the others were sampled); i64 first_count of
///   the loss trace, u64 value count, then that many f32 losses (engine/model_files/loss_trace.h).
/// - A reader of a model without the chunk sees every row as sampled and no loss trace.
/// The MCOL chunk (written only when engine/metric_columns.h has Extra columns): u64 column count,
/// then per column a u16 name length, the name, and one f64 per HIST row. A reader fills the Extra
/// columns it knows by name and skips the others; a column the file lacks stays NaN.
#include "engine/model_files/loss_trace.h"
#include "engine/metric_columns.h"

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

/// The MCOL chunk's body for a history; empty when no column is coded Extra (then no chunk is written).
std::vector<uint8_t> encode_metric_columns_chunk(const std::vector<MetricsRow>& history);
/// Reads an MCOL body into `history`'s Extra columns (NaN first, for any the file lacks).
/// CheckpointError naming `name` for a body that is short or runs past its end.
void decode_metric_columns_chunk(const uint8_t* body, size_t size, const std::string& name,
                                 std::vector<MetricsRow>& history);
/// Sets every Extra column of `history` to NaN (a model without an MCOL chunk).
void clear_extra_metric_columns(std::vector<MetricsRow>& history);

} // namespace redraw
