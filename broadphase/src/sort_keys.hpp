#pragma once
// Internal helpers shared by the sorting broad phases: floats as integer
// keys that sort in the same order, and a stable radix sort on them.

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace quadbin::detail {

/// Bits of f that sort as unsigned integers in the order of the floats.
/// -0 is folded onto +0 first, so equal floats get equal bits and ties fall
/// to whatever the low half of a key holds (the proxy index).
[[nodiscard]] inline std::uint32_t sortableBits(float f) noexcept {
  const auto u = std::bit_cast<std::uint32_t>(f + 0.0f);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}

/// The float whose sortableBits are s.
[[nodiscard]] inline float floatOfSortable(std::uint32_t s) noexcept {
  return std::bit_cast<float>((s & 0x80000000u) != 0 ? (s & 0x7fffffffu) : ~s);
}

/// Key of (value, index): one 64-bit compare orders by value, then index.
[[nodiscard]] inline std::uint64_t sortKey(float value, std::uint32_t index) noexcept {
  return (std::uint64_t{sortableBits(value)} << 32) | index;
}

/// Stable LSD radix sort of keys on their high 32 bits (11-bit digits).
/// Keys given in increasing order of their low 32 bits come out in the
/// order of the full 64-bit keys. scratch is working space.
inline void radixSortByHigh32(std::vector<std::uint64_t>& keys,
                              std::vector<std::uint64_t>& scratch) {
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  const std::size_t n = keys.size();
  if (n == 0) return;
  scratch.resize(n);
  std::array<std::uint32_t, kBuckets> count{};
  for (int shift = 32; shift < 64; shift += kBits) {
    count.fill(0);
    for (const std::uint64_t k : keys) ++count[(k >> shift) & (kBuckets - 1)];
    // A digit every key shares (common for the exponent bits) sorts nothing.
    if (count[(keys[0] >> shift) & (kBuckets - 1)] == n) continue;
    std::uint32_t sum = 0;
    for (auto& c : count) {
      const std::uint32_t here = c;
      c = sum;
      sum += here;
    }
    for (const std::uint64_t k : keys) scratch[count[(k >> shift) & (kBuckets - 1)]++] = k;
    keys.swap(scratch);
  }
}

}  // namespace quadbin::detail
