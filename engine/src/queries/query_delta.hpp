#pragma once
// How spatial queries see the bodies that changed since the query structure
// was last filled (docs/queries.md): the structure keeps answering for the
// bodies it holds, minus the ones that changed since, and the changed ones
// (the "delta") are found in a small hash grid of their own. The structure
// is refilled only when the delta grows past limit(n), so a loop of one
// change and one query costs O(1) per query (amortized) instead of a full
// rebuild each time.

#include <algorithm>
#include <array>
#include <cstdint>
#include <quadbin/geometry.hpp>
#include <span>
#include <vector>

namespace quadbin {

struct BodyStore;

class QueryDelta {
 public:
  /// The structure no longer holds the bodies' tight boxes (a step, a new
  /// broad phase, a restore): the next query refills it.
  void invalidate() noexcept { built_ = false; }
  /// The tight boxes of dense bodies [first, end) changed (created, moved,
  /// or another body swapped into their place); `bodies` holds the new
  /// ones. Falls back to invalidate() when it cannot record them.
  void changed(std::uint32_t first, std::uint32_t end, const BodyStore& bodies) noexcept;
  /// Whether a box or radius query must refill the structure first: the
  /// delta holds more changes than limit().
  [[nodiscard]] bool needsRebuild() const noexcept { return !built_ || entries_.size() > limit(); }
  /// Whether a ray over `n` bodies must refill the structure first: a ray
  /// tests every changed body, so it allows only rayLimit(n) of them.
  [[nodiscard]] bool needsRebuildForRays(std::uint32_t n) const noexcept {
    return !built_ || entries_.size() > rayLimit(n);
  }
  /// The structure was just filled with `boxes`, the tight boxes of all
  /// bodies (boxes[i] of dense body i).
  void rebuilt(std::span<const AABB> boxes);
  /// The structure holds a box for each of the n bodies that contains its
  /// tight box (a step's swept boxes), but for the bodies then given to
  /// changed(): the delta starts empty, and box and radius queries ask
  /// the structure (answer() gives way: the small bodies are not in a
  /// grid of the delta's own). O(n) memory cleared, no pass over the
  /// structure's bodies but a sample of them.
  void adopted(const BodyStore& bodies);

  /// The most changes the delta may hold before a box or radius query
  /// refills the structure: max(64, 3 x bodies in the structure). A refill
  /// costs O(n) (O(n log n) for a structure that rebuilds), so refilling
  /// every 3 n changes keeps it O(1) per change, amortized, and a third of
  /// what refilling every n changes costs; a small box query's cost in the
  /// delta does not grow with its size (its cells' occupancy bits).
  [[nodiscard]] std::uint32_t limit() const noexcept {
    const std::uint64_t most = std::uint64_t{kGrowth} * count_;
    return most > kMinLimit
               ? static_cast<std::uint32_t>(std::min<std::uint64_t>(most, UINT32_MAX - 1))
               : kMinLimit;
  }
  static constexpr std::uint32_t kGrowth = 3;
  /// The most changes a ray allows: max(64, n / 4).
  [[nodiscard]] static std::uint32_t rayLimit(std::uint32_t n) noexcept {
    return n / 4 > kMinLimit ? n / 4 : kMinLimit;
  }
  static constexpr std::uint32_t kMinLimit = 64;

  /// The bodies (n of them) whose tight box may touch `box`, appended to
  /// `found`, as the structure's answer merged with the delta would give
  /// them (broad.query then mergeBox), without asking the structure: the
  /// refill keeps the structure's small bodies in a hash grid of its own,
  /// so a small query costs a few bit tests and the bodies of the cells it
  /// reaches, whatever the structure. False (found untouched) where the
  /// structure must answer: a box over more than kMaxCellScan cells, more
  /// than kMaxBigHeld large bodies, or nothing built. The order of `found`
  /// is not kept.
  [[nodiscard]] bool answer(const AABB& box, std::uint32_t n,
                            std::vector<std::uint32_t>& found) const;
  /// Turns the structure's answer `found` (proxies whose box touches
  /// `box`) into the current bodies' (n of them): drops the proxies that
  /// are stale and appends the changed bodies whose tight box touches
  /// `box`. The order of `found` is not kept.
  void mergeBox(const AABB& box, std::uint32_t n, std::vector<std::uint32_t>& found) const;
  /// As mergeBox, appending every changed body (for rays: the caller tests
  /// each candidate exactly).
  void mergeAll(std::uint32_t n, std::vector<std::uint32_t>& found) const;

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  // The changed bodies' grid has levels: level L's cells are 4^L times
  // the base cell, and a changed body goes to the first level where it is
  // smaller than a cell (one cell, by its min corner), so that a query
  // reads a few cells per level used whatever the bodies' sizes; only a
  // body too large for the last level is listed apart (big_).
  static constexpr std::uint32_t kLevels = 20;  // 4^19 cells of 1e-3 span every coordinate
  struct Entry {
    AABB box;
    std::int64_t cellX = 0, cellY = 0;  // the cell of box.min at its level
    std::uint32_t body = kNone;         // dense index
    std::uint32_t next = kNone;         // next entry of the bucket
    std::uint32_t level = kLevels;      // kLevels: in big_
  };
  [[nodiscard]] bool clean(std::uint32_t n) const noexcept {
    return entries_.empty() && n == count_;
  }
  // The cells that may hold the min corner of a small body touching a box.
  struct CellRange {
    std::int64_t x0 = 0, y0 = 0, x1 = -1, y1 = -1;
    std::uint32_t level = 0;
  };
  // False when the box spans more than kMaxCellScan cells of `level` (or
  // is infinite or far outside every body).
  [[nodiscard]] bool cellRange(const AABB& box, CellRange& range,
                               std::uint32_t level = 0) const noexcept;
  // The level of a changed body's box (kLevels: too large for any).
  [[nodiscard]] std::uint32_t levelOf(const AABB& box) const noexcept;
  // The row hash of cell row cy at a level: level 0's is rowHash(cy), so
  // that the structure's bodies (level 0) and the delta's share the tables.
  [[nodiscard]] static std::uint64_t levelRow(std::uint32_t level, std::int64_t cy) noexcept {
    return rowHash(cy) ^ (std::uint64_t{level} * 0xA24BAED4963EE407ull);
  }
  // Two bit tables (a Bloom filter): the first hashed as the buckets are,
  // so the cells of a row are adjacent bits; the second, read only where
  // the first is set, by a hash of both coordinates.
  [[nodiscard]] std::uint64_t secondBit(std::uint64_t rowHash, std::int64_t cx) const noexcept {
    std::uint64_t h = rowHash ^ (static_cast<std::uint64_t>(cx) * 0xD6E8FEB86659FD93ull);
    h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93ull;
    return (h ^ (h >> 32)) & bitMask_;
  }
  // Bits [first, first + len) of the first table (wrapping around its end)
  // in the low bits; len in [1, 64].
  [[nodiscard]] std::uint64_t firstBits(std::uint64_t first, std::uint32_t len) const noexcept;
  // A cell that may hold a small body: its bucket key and numbers.
  struct Cell {
    std::uint64_t key;
    std::int64_t cx, cy;
  };
  static constexpr std::size_t kMaxCellScan = 100;  // more cells: scan the entries instead
  // The cells of r whose occupancy bits are set, into out (r.cells() of
  // them at most); returns their count.
  std::size_t occupiedCells(const CellRange& r, Cell* out) const noexcept;
  void occupy(std::uint64_t row, std::int64_t cx) noexcept {
    const std::uint64_t a = (row + static_cast<std::uint64_t>(cx)) & bitMask_;
    occupied_[a >> 6] |= std::uint64_t{1} << (a & 63);
    const std::uint64_t b = secondBit(row, cx);
    occupied_[secondTable_ + (b >> 6)] |= std::uint64_t{1} << (b & 63);
  }
  // occupy's bits cleared (clearFor, where every set bit is an entry's).
  void vacate(std::uint64_t row, std::int64_t cx) noexcept {
    const std::uint64_t a = (row + static_cast<std::uint64_t>(cx)) & bitMask_;
    occupied_[a >> 6] &= ~(std::uint64_t{1} << (a & 63));
    const std::uint64_t b = secondBit(row, cx);
    occupied_[secondTable_ + (b >> 6)] &= ~(std::uint64_t{1} << (b & 63));
  }
  // The words of both occupancy tables for n bodies.
  [[nodiscard]] static std::size_t occupancyWords(std::uint32_t n) noexcept;
  void fillOccupancy(std::span<const AABB> boxes);
  // Both occupancy tables cleared, sized for n bodies, and no large body
  // of the structure listed.
  void clearOccupancy(std::uint32_t n);
  // rebuilt's and adopted's start: the delta empty for n bodies; and the
  // cell size from sample_.
  void clearFor(std::uint32_t n);
  void setCellSize();
  [[nodiscard]] std::int64_t cell(float x, std::uint32_t level = 0) const noexcept;
  [[nodiscard]] static std::uint64_t rowHash(std::int64_t cy) noexcept;
  [[nodiscard]] std::uint32_t bucket(const Entry& e) const noexcept;
  // Whether entry e is its body's current one (a body that changes twice
  // leaves a dead entry behind) and the body still exists.
  [[nodiscard]] bool live(std::uint32_t e, std::uint32_t n) const noexcept {
    const std::uint32_t b = entries_[e].body;
    return b < n && entryOf_[b] == e;
  }
  void add(std::uint32_t body, const AABB& box);
  void growTable();
  // Whether the structure's proxy p no longer answers for dense body p (n
  // bodies now): it changed since the refill, or the body is gone.
  [[nodiscard]] bool stale(std::uint32_t p, std::uint32_t n) const noexcept {
    return p >= n || stale_[p] != 0;
  }
  void dropStale(std::uint32_t n, std::vector<std::uint32_t>& found) const;
  // The changed bodies (n bodies now) whose tight box touches `box`,
  // appended: level 0's from `cells` (count of them, the occupied cells of
  // the box's level-0 range), the other levels' from their own cells, and
  // big_.
  void appendChanged(const AABB& box, std::uint32_t n, const Cell* cells, std::size_t count,
                     std::vector<std::uint32_t>& found) const;
  // Level `level`'s entries in `cells` (count of them) touching `box`.
  void appendLevel(const AABB& box, std::uint32_t n, std::uint32_t level, const Cell* cells,
                   std::size_t count, std::vector<std::uint32_t>& found) const;

  bool built_ = false;
  std::uint32_t count_ = 0;          // bodies in the structure: [0, count_)
  std::vector<std::uint8_t> stale_;  // per structure proxy: changed since
  // The changed bodies, in a hash grid of square cells of side cellSize_
  // (about twice a typical body, a power of two) and coarser levels of
  // them (Entry): each entry in the bucket of its box's min corner at its
  // level.
  double cellSize_ = 1.0;
  // Per level, 1 / (its cell's side): 1 / (cellSize_ 4^level), powers of two.
  static constexpr std::array<double, kLevels> levelScales(double inverseCell) noexcept {
    std::array<double, kLevels> scale{};
    for (double& l : scale) {
      l = inverseCell;
      inverseCell *= 0.25;
    }
    return scale;
  }
  std::array<double, kLevels> levelScale_ = levelScales(1.0);
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> entryOf_;  // per dense body: its live entry or kNone
  std::vector<std::uint32_t> heads_;    // per bucket: first entry or kNone (at
                                        // least twice the entries, a power of two)
  std::vector<std::uint32_t> big_;      // entries too large for every level
  std::uint32_t levelsUsed_ = 0;        // bit L: level L holds an entry
  std::vector<double> sample_;          // rebuilt's scratch
  // Two bits per cell (about 16 per body in each table): set where a small body of the structure or
  // of the delta has its min corner; a clear bit proves the cell empty. The structure's bodies not
  // smaller than a cell are listed in bigHeld_ (answer gives up when
  // there are more than kMaxBigHeld).
  std::vector<std::uint64_t> occupied_;
  std::uint64_t bitMask_ = 0;    // bits per table - 1
  std::size_t secondTable_ = 0;  // the second table's first word
  // The structure's small bodies by cell (filled at the refill): bucket k
  // (hashed as the delta's buckets, over heldStart_.size() - 3 buckets)
  // holds held_[heldStart_[k], heldStart_[k + 1]).
  struct Held {
    AABB box;
    std::uint32_t body = kNone;
  };
  std::vector<std::uint32_t> heldStart_;
  std::vector<Held> held_;
  std::vector<std::uint32_t> heldKey_;  // the refill's scratch: per body, its bucket or kNone
  std::vector<std::uint32_t> bigHeld_;
  std::vector<AABB> bigHeldBoxes_;
  bool tooManyBig_ = false;
  bool heldGrid_ = false;  // the structure's small bodies are in held_ (rebuilt, not adopted)
  // Every mark in stale_, entryOf_, heads_ and occupied_ is one of
  // entries_' (add's): clearFor may clear them alone.
  bool onlyEntries_ = true;
  bool occupancyClear_ = false;  // clearFor left occupied_ all zero, at its size
};

}  // namespace quadbin
