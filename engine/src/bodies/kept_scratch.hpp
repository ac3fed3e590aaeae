#pragma once
// Internal to the engine: per-body scratch kept between calls in a known
// state, so that a call about k bodies of n touches O(k) of it, not an
// n-long fill: index maps kept at the identity, marks kept at zero.

#include <cstdint>
#include <span>
#include <vector>

namespace quadbin {

/// v at least n long, v[i] == i for every i it gains (the identity kept:
/// its existing entries are assumed to be). May throw; v is then still
/// the identity.
inline void growIdentity(std::vector<std::uint32_t>& v, std::uint32_t n) {
  const auto had = static_cast<std::uint32_t>(v.size());
  if (had >= n) return;
  v.resize(n);
  for (std::uint32_t i = had; i < n; ++i) v[i] = i;
}

/// The marks at `at` set back to 0 on every way out of a scope (a
/// refusal's exception included): marks kept at zero between calls, so a
/// call marks and clears only the bodies it names.
class ClearedMarks {
 public:
  ClearedMarks(std::vector<std::uint8_t>& marks, std::span<const std::uint32_t> at) noexcept
      : marks_(marks), at_(at) {}
  ClearedMarks(const ClearedMarks&) = delete;
  ClearedMarks& operator=(const ClearedMarks&) = delete;
  ~ClearedMarks() {
    for (const std::uint32_t i : at_) marks_[i] = 0;
  }

 private:
  std::vector<std::uint8_t>& marks_;
  std::span<const std::uint32_t> at_;
};

}  // namespace quadbin
