#pragma once
/// Shared by the checkpoint fuzz targets: the fuzzer's bytes become a .redraw file whose CRC-32 is
/// right, so the mutations reach the chunk parser instead of stopping at the checksum.
#include "engine/model_files/checkpoint.h"
#include "engine/errors.h"

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace redraw::fuzz {

inline std::vector<uint8_t> with_valid_crc(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  if (bytes.size() < 4) return bytes;
  const uint32_t crc = uint32_t(crc32(crc32(0L, Z_NULL, 0), bytes.data(), uInt(bytes.size() - 4)));
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
  return bytes;
}

/// Bytes a network may declare and still be read under the fuzzers' memory limit: the reader
/// bounds everything but the declared network itself (weights and optimizer state) by its file
/// limits, so a mutated config that declares a huge network is left out, not counted as a leak.
constexpr uint64_t k_fuzz_network_bytes = uint64_t(64) << 20;

/// The model in the fuzzer's bytes (CRC fixed up), or nothing when the reader refuses them.
inline std::optional<Checkpoint> read_checkpoint(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes = with_valid_crc(data, size);
  try {
    const Checkpoint meta = read_checkpoint_meta(bytes.data(), bytes.size(), "fuzz");
    if (uint64_t(parameter_count(meta.config.model)) * 4 * 3 > k_fuzz_network_bytes) return std::nullopt;
    return deserialize_checkpoint(bytes.data(), bytes.size(), "fuzz");
  } catch (const CheckpointError&) {
    return std::nullopt;
  }
}

} // namespace redraw::fuzz
