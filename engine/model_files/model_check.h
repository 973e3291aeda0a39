#pragma once
/// What a model file says, checked once for every consumer (the GUI's open, `info`, `render`,
/// `timelapse`, `train --resume`).
/// - load_checkpoint() checks the format: sizes, chunks, the CRC, that the weights fit the config.
/// - check_model() checks the meaning: numbers finite and of a sane magnitude, steps and history
///   monotone and within limits, strings bounded and valid UTF-8, image facts consistent.
/// - open_model() is load_checkpoint() then require_sane_model(): what every consumer but `info`
///   calls. `info` lists the problems instead, so a damaged file can still be inspected.
#include "engine/display_text.h" // is_valid_utf8
#include "engine/model_files/checkpoint.h"
#include "engine/soundness.h"

#include <filesystem>
#include <string>
#include <vector>

namespace redraw {

/// Most steps a model may record (the config's own limit on `steps`).
constexpr int64_t k_max_model_steps = 1'000'000'000'000;

/// One problem with what a model says: `field` names it as the file does ("PARM", "META.step",
/// "SNAP[3].params", ...), `what` says what is wrong with it.
struct ModelIssue {
  std::string field;
  std::string what;
};

/// Every problem with `c`, in file order; empty when the model is sane. At most a few per field.
std::vector<ModelIssue> check_model(const Checkpoint& c);
/// Throws CheckpointError "<name>: <field>: <what>" for the first problem of check_model(c).
void require_sane_model(const Checkpoint& c, const std::string& name);
/// load_checkpoint(file), then require_sane_model(): throws CheckpointError naming the field.
Checkpoint open_model(const std::filesystem::path& file);

} // namespace redraw

namespace redraw {

/// Where the image a model was trained on is now: `stored` (its META.source_image) as it is,
/// then, for a model opened from elsewhere, beside the model (`stored` relative to the model's
/// folder, then the file name alone in that folder). "" when none of these is a file.
std::string find_source_image(const std::string& stored, const std::filesystem::path& model_file);

} // namespace redraw
