#pragma once
/// IEEE 754 binary16 ("fp16") conversions done with integer operations, so every compiler and
/// CPU gives the same bits: round to nearest, ties to even; subnormals kept; values beyond the
/// fp16 range become infinities (callers check with fits_half).
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace redraw {

/// fp32 -> fp16 bits, round to nearest even.
inline uint16_t float_to_half(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u)); // inf, nan
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u); // rounds to beyond 65504: inf
  if (abs < 0x38800000u) { // below fp16's smallest normal: a subnormal (or zero)
    if (abs < 0x33000000u) return uint16_t(sign); // under half the smallest subnormal
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - int(abs >> 23); // 14..24: into units of 2^-24
    const uint32_t q = mant >> shift, rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    return uint16_t(sign | (q + ((rest > half || (rest == half && (q & 1u))) ? 1u : 0u)));
  }
  const uint32_t e = (abs >> 23) - 112; // rebias 127 -> 15
  const uint32_t q = (e << 10) | ((abs >> 13) & 0x3ffu), rest = abs & 0x1fffu;
  return uint16_t(sign | (q + ((rest > 0x1000u || (rest == 0x1000u && (q & 1u))) ? 1u : 0u)));
}

/// fp16 bits -> fp32 (exact).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t x = 0;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    x = sign | ((e + 112) << 23) | (m << 13);
  } else if (m == 0) {
    x = sign;
  } else { // subnormal: normalise
    int shift = 0;
    uint32_t mm = m;
    while ((mm & 0x400u) == 0) {
      mm <<= 1;
      ++shift;
    }
    x = sign | (uint32_t(113 - shift) << 23) | ((mm & 0x3ffu) << 13);
  }
  float f = 0;
  std::memcpy(&f, &x, 4);
  return f;
}

/// True when x is finite and within fp16's range (|x| <= 65504).
inline bool in_half_range(float x) { return x >= -65504.0f && x <= 65504.0f; }

/// True when every value is in_half_range.
inline bool fits_half(std::span<const float> v) {
  for (const float x : v)
    if (!in_half_range(x)) return false;
  return true;
}

/// float_to_half with a branch-free path for results that are normal fp16 numbers (nearly every
/// weight), the same bits: the exponent rebiased by subtracting 112 << 23, then round to nearest
/// even by adding 0xfff plus the kept mantissa's last bit before the shift (a carry out of the
/// mantissa steps the exponent, as rounding up should). Keyframing a 7-million-weight network
/// took 40 ms with float_to_half's branches.
inline uint16_t float_to_half_fast(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs - 0x38800000u >= 0x477ff000u - 0x38800000u) return float_to_half(f); // subnormal, zero, inf, nan, overflow
  return uint16_t(((x >> 16) & 0x8000u) | ((abs - 0x37fff001u + ((abs >> 13) & 1u)) >> 13));
}

inline std::vector<uint16_t> to_half(std::span<const float> v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = float_to_half_fast(v[i]);
  return out;
}

inline std::vector<float> from_half(std::span<const uint16_t> v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = half_to_float(v[i]);
  return out;
}

} // namespace redraw
