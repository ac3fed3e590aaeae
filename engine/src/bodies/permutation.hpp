// A renumbering of the bodies applied in place, column by column, and
// undone the same way (World::optimizeLayout, WorldDef::autoLayout): no
// column is copied, so a renumbering of a large world touches no fresh
// memory but its cycle list, and a step that fails after it can put every
// body back where it was, bit for bit.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace quadbin {

class Permutation {
 public:
  /// Which way a column is moved: Apply makes body order[k] body k; Undo
  /// moves it back.
  enum class Direction : std::uint8_t { Apply, Undo };

  /// The renumbering in which body order[k] becomes body k (order lists
  /// each index below its size once). May throw (allocation); the rest
  /// cannot.
  void assign(std::vector<std::uint32_t> order);
  /// Index maps kept between renumberings of few bodies: the identity, of
  /// any length (assign grows them to n).
  struct Spare {
    std::vector<std::uint32_t> order, newIndex;
  };
  /// The renumbering of n bodies in which body from[k] becomes body at[k]
  /// and every other body keeps its index (the `from` are the `at` in
  /// another order, each once), on the spare's maps, which it takes: no
  /// n-long allocation and fill, only the moved entries written and their
  /// cycles found from the moved indices alone. giveBack returns them. May
  /// throw (allocation, the spare left as it was).
  void assign(std::uint32_t n, std::span<const std::uint32_t> at,
              std::span<const std::uint32_t> from, Spare& spare);
  /// The index maps back to `spare`, the identity again (only the moved
  /// entries rewritten); this renumbering is then empty.
  void giveBack(Spare& spare) noexcept;
  /// Indices the renumbering moves (those of its cycles).
  [[nodiscard]] std::size_t movedCount() const noexcept { return cycles_.size(); }
  [[nodiscard]] std::uint32_t size() const noexcept {
    return static_cast<std::uint32_t>(order_.size());
  }
  /// Body i's index after Apply (before Undo).
  [[nodiscard]] std::uint32_t newIndex(std::uint32_t i) const noexcept { return newIndex_[i]; }
  /// The body that becomes body k under Apply.
  [[nodiscard]] std::uint32_t oldIndex(std::uint32_t k) const noexcept { return order_[k]; }
  /// An index `i` under the renumbering: newIndex(i) when applying,
  /// oldIndex(i) when undoing.
  [[nodiscard]] std::uint32_t map(std::uint32_t i, Direction d) const noexcept {
    return d == Direction::Apply ? newIndex_[i] : order_[i];
  }

  /// f(k) for every index k the renumbering moves (those of its cycles).
  template <class F>
  void forEachMoved(F&& f) const {
    for (const std::uint32_t k : cycles_) f(k);
  }

  /// Moves a column's entries (one per body, v.size() == size()): each
  /// cycle of the renumbering is walked once, an entry at a time, with one
  /// held aside.
  template <class T>
  void move(std::vector<T>& v, Direction d) const noexcept {
    for (std::size_t c = 0; c + 1 < cycleStart_.size(); ++c) {
      const std::uint32_t* first = cycles_.data() + cycleStart_[c];
      const std::uint32_t* last = cycles_.data() + cycleStart_[c + 1] - 1;
      if (d == Direction::Apply) {  // v[c_j] = v[c_j+1], the first to the last
        T held = std::move(v[*first]);
        for (const std::uint32_t* at = first; at != last; ++at) v[at[0]] = std::move(v[at[1]]);
        v[*last] = std::move(held);
      } else {  // v[c_j+1] = v[c_j], the last to the first
        T held = std::move(v[*last]);
        for (const std::uint32_t* at = last; at != first; --at) v[at[0]] = std::move(v[at[-1]]);
        v[*first] = std::move(held);
      }
    }
  }

 private:
  std::vector<std::uint32_t> order_, newIndex_;
  // order and newIndex as the renumbering's, with its cycles found from
  // the indices starts(f) passes to f, in increasing order.
  template <class Starts>
  void take(std::vector<std::uint32_t> order, std::vector<std::uint32_t> newIndex, Starts&& starts);

  // The cycles of length > 1, each listed from its lowest index c0 on as
  // c0, order[c0], order[order[c0]], ...; cycleStart_[c] is where cycle c
  // begins in cycles_ (and cycleStart_.back() == cycles_.size()).
  std::vector<std::uint32_t> cycles_, cycleStart_;
};

}  // namespace quadbin
