// libFuzzer target: reading a .redraw model (the CRC is fixed up, see fuzz_support.h), then writing
// it back: what loads must serialize and load again to the same weights.
#include "engine/model_files/checkpoint.h"
#include "engine/errors.h"
#include "fuzz_support.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::optional<redraw::Checkpoint> read = redraw::fuzz::read_checkpoint(data, size);
  if (!read) return 0;
  const redraw::Checkpoint& c = *read;
  // Readable, but never written again: weights or optimizer values that are not sound; a frame
  // whose weights are not is written without them (a picture), or left out.
  if (redraw::count_unsound(c) > 0) return 0;
  for (const redraw::Snapshot& s : c.snapshots)
    if (redraw::frame_weights_unsound(s)) return 0;
  try {
    const std::vector<uint8_t> again = redraw::serialize_checkpoint(c);
    const redraw::Checkpoint back = redraw::deserialize_checkpoint(again.data(), again.size(), "fuzz (again)");
    if (back.params != c.params || back.step != c.step || back.snapshots.size() != c.snapshots.size()) std::abort();
  } catch (const redraw::Error&) {
    std::abort(); // a model that loaded must round-trip
  }
  return 0;
}
