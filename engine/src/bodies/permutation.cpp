// Permutation::assign: the renumbering's inverse and its cycles.
#include "bodies/permutation.hpp"

#include <algorithm>

#include "bodies/kept_scratch.hpp"

namespace quadbin {

void Permutation::assign(std::vector<std::uint32_t> order) {
  const auto n = static_cast<std::uint32_t>(order.size());
  std::vector<std::uint32_t> newIndex(n);
  for (std::uint32_t k = 0; k < n; ++k) newIndex[order[k]] = k;
  take(std::move(order), std::move(newIndex), [n](auto&& f) {
    for (std::uint32_t c0 = 0; c0 < n; ++c0) f(c0);
  });
}

void Permutation::assign(std::uint32_t n, std::span<const std::uint32_t> at,
                         std::span<const std::uint32_t> from, Spare& spare) {
  std::vector<std::uint32_t> moved(at.begin(), at.end());
  std::sort(moved.begin(), moved.end());
  std::vector<std::uint8_t> seen(moved.size(), 0);  // by rank in `moved`
  std::vector<std::uint32_t> cycles, cycleStart;
  cycles.reserve(moved.size());
  cycleStart.reserve(moved.size() / 2 + 1);
  // The spare grown to n, the identity (the growth is all that allocates
  // of it, and it is the spare's even if a later step throws).
  growIdentity(spare.order, n);
  growIdentity(spare.newIndex, n);
  // Nothing below throws.
  order_ = std::move(spare.order);
  newIndex_ = std::move(spare.newIndex);
  order_.resize(n);
  newIndex_.resize(n);
  for (std::size_t k = 0; k < at.size(); ++k) {
    order_[at[k]] = from[k];
    newIndex_[from[k]] = at[k];
  }
  auto rank = [&moved](std::uint32_t i) {
    return static_cast<std::size_t>(std::lower_bound(moved.begin(), moved.end(), i) -
                                    moved.begin());
  };
  // A cycle's indices are all in `at` (the `from` are the `at` in another
  // order), from its lowest on, as take() lists them.
  for (const std::uint32_t c0 : moved) {
    if (seen[rank(c0)] != 0 || order_[c0] == c0) continue;
    cycleStart.push_back(static_cast<std::uint32_t>(cycles.size()));
    for (std::uint32_t i = c0; seen[rank(i)] == 0; i = order_[i]) {
      seen[rank(i)] = 1;
      cycles.push_back(i);
    }
  }
  cycleStart.push_back(static_cast<std::uint32_t>(cycles.size()));
  cycles_ = std::move(cycles);
  cycleStart_ = std::move(cycleStart);
}

void Permutation::giveBack(Spare& spare) noexcept {
  for (const std::uint32_t k : cycles_) order_[k] = newIndex_[k] = k;
  spare.order = std::move(order_);
  spare.newIndex = std::move(newIndex_);
  order_.clear();
  newIndex_.clear();
  cycles_.clear();
  cycleStart_.clear();
}

template <class Starts>
void Permutation::take(std::vector<std::uint32_t> order, std::vector<std::uint32_t> newIndex,
                       Starts&& starts) {
  const auto n = static_cast<std::uint32_t>(order.size());
  std::vector<std::uint32_t> cycles, cycleStart;
  std::vector<bool> seen(n, false);
  starts([&](std::uint32_t c0) {
    if (seen[c0] || order[c0] == c0) return;
    cycleStart.push_back(static_cast<std::uint32_t>(cycles.size()));
    for (std::uint32_t i = c0; !seen[i]; i = order[i]) {
      seen[i] = true;
      cycles.push_back(i);
    }
  });
  cycleStart.push_back(static_cast<std::uint32_t>(cycles.size()));
  order_ = std::move(order);
  newIndex_ = std::move(newIndex);
  cycles_ = std::move(cycles);
  cycleStart_ = std::move(cycleStart);
}

}  // namespace quadbin
