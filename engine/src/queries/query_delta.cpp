#include "queries/query_delta.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>

#include "bodies/body_store.hpp"
#include "bodies/capacity.hpp"

namespace quadbin {

namespace {

constexpr std::size_t kSample = 256;  // boxes sampled for the cell size
// Buckets per entry, at least. A query reads the bucket of a cell only
// where the cell's occupancy bits are set, so buckets shared with other
// cells cost little, and a sparser table would only cost memory (and fresh
// pages faulted in as the delta grows).
constexpr std::size_t kLoad = 1;
// Occupancy bits per body in the structure, in each of the two tables (at
// least kMinBits): the delta may add 3 times as many bodies, so at most
// about 1 bit in 8 is set in each, and a cell in empty space looks
// occupied with a chance of about 1 in 64.
constexpr std::size_t kBitsPerBody = 32;
constexpr std::size_t kMinBits = 2048;
// clearFor clears only the entries' marks when they are at most one in
// this many bodies (a mark costs a cache miss; a cleared line, 64 bytes).
constexpr std::uint32_t kSparseShare = 8;
// Large bodies of the structure that answerForStructure tests itself.
constexpr std::size_t kMaxBigHeld = 32;

// floor(v) for |v| < 2^52: the libm call costs more than a query's cells.
std::int64_t floorToInt(double v) noexcept {
  const auto i = static_cast<std::int64_t>(v);  // toward zero
  return static_cast<double>(i) > v ? i - 1 : i;
}

double extentOf(const AABB& b) noexcept {
  return std::max(static_cast<double>(b.max.x) - b.min.x, static_cast<double>(b.max.y) - b.min.y);
}

}  // namespace

std::int64_t QueryDelta::cell(float x, std::uint32_t level) const noexcept {
  // Coordinates are bounded (limits::kMaxCoordinate) and the cell no
  // smaller than 1e-3, so this fits easily; a level's scale is a power of
  // two, so the product is exact.
  return floorToInt(static_cast<double>(x) * levelScale_[level]);
}

std::uint32_t QueryDelta::levelOf(const AABB& box) const noexcept {
  const double extent = extentOf(box);
  double size = cellSize_;
  std::uint32_t level = 0;
  while (level < kLevels && !(extent < size)) {
    size *= 4.0;
    ++level;
  }
  return level;
}

std::uint64_t QueryDelta::rowHash(std::int64_t cy) noexcept {
  // splitmix64's finalizer: every bit of the row reaches the low bits the
  // table uses.
  auto h = static_cast<std::uint64_t>(cy) * 0x9E3779B97F4A7C15ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

std::uint32_t QueryDelta::bucket(const Entry& e) const noexcept {
  // A row's cells take consecutive buckets from a random start: the cells
  // of a query's row are one hash and adjacent heads.
  return static_cast<std::uint32_t>(
      (levelRow(e.level, e.cellY) + static_cast<std::uint64_t>(e.cellX)) & (heads_.size() - 1));
}

namespace {
// v sized n, every element `value`; its capacity grows geometrically, so a
// world that grows by a quarter between refills does not reallocate (and
// fault in fresh pages) at every refill.
template <class T>
void refill(std::vector<T>& v, std::size_t n, T value) {
  reserveGrowing(v, n);
  v.assign(n, value);
}
}  // namespace

void QueryDelta::clearFor(std::uint32_t n) {
  built_ = false;
  // Buckets for as many entries as the structure holds bodies: a delta
  // that grows past that doubles the table (growTable).
  const std::size_t most = std::size_t{std::max(n, kMinLimit)} + 1;
  const std::size_t buckets = std::bit_ceil(kLoad * most);
  // Where every mark in the tables is an entry's (the delta of an
  // adoption, not a refill's grid) and the entries are few, only their
  // marks are cleared: a step's adoption then costs O(changes), not
  // O(n) cleared memory.
  const bool sparse = onlyEntries_ && entries_.size() <= n / kSparseShare;
  occupancyClear_ = sparse && occupied_.size() == occupancyWords(n);
  if (sparse) {
    const bool sameBuckets = heads_.size() == buckets;
    for (const Entry& e : entries_) {
      if (e.body < stale_.size()) stale_[e.body] = 0;
      entryOf_[e.body] = kNone;
      if (e.level == kLevels) continue;
      if (sameBuckets) heads_[bucket(e)] = kNone;
      if (occupancyClear_) vacate(levelRow(e.level, e.cellY), e.cellX);
    }
    reserveGrowing(stale_, n);
    stale_.resize(n, std::uint8_t{0});
    reserveGrowing(entryOf_, n);
    entryOf_.resize(n, kNone);
    if (!sameBuckets) refill(heads_, buckets, kNone);
  } else {
    refill(stale_, n, std::uint8_t{0});
    refill(entryOf_, n, kNone);
    refill(heads_, buckets, kNone);
  }
  entries_.clear();
  big_.clear();
  levelsUsed_ = 0;
  sample_.clear();
}

void QueryDelta::rebuilt(std::span<const AABB> boxes) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  clearFor(n);
  // Cells about twice the median body: most changed bodies fit one cell,
  // and a query near a body looks at a few cells.
  const std::size_t stride = std::max<std::size_t>(1, n / kSample);
  for (std::size_t i = 0; i < n; i += stride) {
    sample_.push_back(extentOf(boxes[i]));
  }
  setCellSize();
  fillOccupancy(boxes);
  count_ = n;
  built_ = true;
}

void QueryDelta::adopted(const BodyStore& bodies) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  clearFor(n);
  const std::size_t stride = std::max<std::size_t>(1, n / kSample);
  for (std::size_t i = 0; i < n; i += stride) {
    sample_.push_back(extentOf(bodies.tightBox(static_cast<std::uint32_t>(i))));
  }
  setCellSize();
  clearOccupancy(n);  // for the delta's bodies alone
  heldGrid_ = false;
  count_ = n;
  built_ = true;
}

void QueryDelta::setCellSize() {
  double size = 1.0;
  if (!sample_.empty()) {
    const auto mid = sample_.begin() + static_cast<std::ptrdiff_t>(sample_.size() / 2);
    std::nth_element(sample_.begin(), mid, sample_.end());
    size = 2.0 * *mid;
  }
  if (!(std::isfinite(size) && size > 1e-3)) size = 1.0;
  // A power of two (the nearest): a coordinate times its inverse is then
  // exact, which mergeBox's cell range relies on.
  cellSize_ = std::exp2(std::round(std::log2(size)));
  levelScale_ = levelScales(1.0 / cellSize_);
}

std::size_t QueryDelta::occupancyWords(std::uint32_t n) noexcept {
  return 2 * (std::bit_ceil(std::max(kMinBits, std::size_t{n} * kBitsPerBody)) / 64);
}

void QueryDelta::clearOccupancy(std::uint32_t n) {
  const std::size_t words = occupancyWords(n);
  if (!occupancyClear_) refill(occupied_, words, std::uint64_t{0});  // else clearFor emptied it
  occupancyClear_ = false;
  onlyEntries_ = true;  // no mark left, no entry
  const std::size_t bits = words / 2 * 64;
  bitMask_ = bits - 1;
  secondTable_ = bits / 64;
  bigHeld_.clear();
  bigHeldBoxes_.clear();
  tooManyBig_ = false;
}

void QueryDelta::fillOccupancy(std::span<const AABB> boxes) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  clearOccupancy(n);
  heldGrid_ = true;
  onlyEntries_ = false;  // the structure's bodies set bits too
  // The small bodies by cell, as the buckets of a hash grid kept in one
  // array (a counting sort, in body order within a bucket).
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(n, kMinLimit));
  refill(heldStart_, buckets + 2, 0u);
  refill(heldKey_, n, kNone);
  for (std::uint32_t i = 0; i < n; ++i) {
    const AABB& b = boxes[i];
    if (extentOf(b) < cellSize_) {
      const std::int64_t cx = cell(b.min.x);
      const std::uint64_t row = rowHash(cell(b.min.y));
      occupy(row, cx);
      heldKey_[i] =
          static_cast<std::uint32_t>((row + static_cast<std::uint64_t>(cx)) & (buckets - 1));
      ++heldStart_[heldKey_[i] + 2];
    } else if (bigHeld_.size() < kMaxBigHeld) {
      bigHeld_.push_back(i);
      bigHeldBoxes_.push_back(b);
    } else {
      tooManyBig_ = true;
    }
  }
  // heldStart_[k + 2] counted bucket k; after the sums, heldStart_[k + 1] is
  // where bucket k starts, and the fill below moves it to where k ends.
  for (std::size_t k = 2; k < heldStart_.size(); ++k) heldStart_[k] += heldStart_[k - 1];
  refill(held_, heldStart_.back(), Held{});
  for (std::uint32_t i = 0; i < n; ++i) {
    if (heldKey_[i] != kNone) held_[heldStart_[heldKey_[i] + 1]++] = {boxes[i], i};
  }
}

bool QueryDelta::cellRange(const AABB& box, CellRange& range, std::uint32_t level) const noexcept {
  // A small body has an extent below a cell (exactly: the rounded
  // difference is below the cell, so the exact one is too), so one that
  // touches `box` has box.min - cellSize < its min <= box.max on each axis:
  // its min corner lies in the cells from box.min's minus one to box.max's.
  // With a power-of-two cell, coordinate * its level's scale (a power of
  // two too) is exact.
  const double scale = levelScale_[level];
  const double x0 = static_cast<double>(box.min.x) * scale;
  const double y0 = static_cast<double>(box.min.y) * scale;
  const double x1 = static_cast<double>(box.max.x) * scale;
  const double y1 = static_cast<double>(box.max.y) * scale;
  // Far outside any body (a box near the float range, or infinite, or a
  // NaN): no cell numbers.
  constexpr double kFar = 0x1p52;
  if (!(std::abs(x0) < kFar && std::abs(y0) < kFar && std::abs(x1) < kFar && std::abs(y1) < kFar)) {
    return false;
  }
  range = {floorToInt(x0) - 1, floorToInt(y0) - 1, floorToInt(x1), floorToInt(y1), level};
  const double cells =
      static_cast<double>(range.x1 - range.x0 + 1) * static_cast<double>(range.y1 - range.y0 + 1);
  return cells <= static_cast<double>(kMaxCellScan);
}

std::uint64_t QueryDelta::firstBits(std::uint64_t first, std::uint32_t len) const noexcept {
  const std::uint64_t a = first & bitMask_;
  const std::uint64_t word = a >> 6, shift = a & 63;
  std::uint64_t bits = occupied_[word] >> shift;
  if (shift + len > 64) bits |= occupied_[(word + 1) & (bitMask_ >> 6)] << (64 - shift);
  return len == 64 ? bits : bits & ((std::uint64_t{1} << len) - 1);
}

std::size_t QueryDelta::occupiedCells(const CellRange& r, Cell* out) const noexcept {
  std::size_t count = 0;
  // A range has two rows at least, so a row of at most kMaxCellScan / 2
  // cells: they fit one 64-bit window.
  static_assert(kMaxCellScan / 2 <= 64);
  const auto len = static_cast<std::uint64_t>(r.x1 - r.x0 + 1);
  assert(len <= kMaxCellScan / 2);
  for (std::int64_t cy = r.y0; cy <= r.y1; ++cy) {
    const std::uint64_t row = levelRow(r.level, cy);
    // The row's cells are adjacent bits of the first table: one or two
    // words say which of them may be occupied (usually none).
    std::uint64_t bits =
        firstBits(row + static_cast<std::uint64_t>(r.x0), static_cast<std::uint32_t>(len));
    while (bits != 0) {
      const std::int64_t cx = r.x0 + std::countr_zero(bits);
      bits &= bits - 1;
      const std::uint64_t b = secondBit(row, cx);
      if (((occupied_[secondTable_ + (b >> 6)] >> (b & 63)) & 1) != 0) {
        out[count++] = {row + static_cast<std::uint64_t>(cx), cx, cy};
      }
    }
  }
  return count;
}

bool QueryDelta::answer(const AABB& box, std::uint32_t n, std::vector<std::uint32_t>& found) const {
  CellRange r;
  if (!built_ || !heldGrid_ || tooManyBig_ || !cellRange(box, r)) return false;
  // The cells that may hold a small body (of the structure or the delta).
  std::array<Cell, kMaxCellScan> cells;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  const std::size_t count = occupiedCells(r, cells.data());
  // The bodies the structure holds, as it would give them less the stale
  // ones: its large bodies from their list, its small ones from the cells.
  for (std::size_t k = 0; k < bigHeld_.size(); ++k) {
    if (!stale(bigHeld_[k], n) && touches(bigHeldBoxes_[k], box)) found.push_back(bigHeld_[k]);
  }
  const std::uint64_t heldMask = heldStart_.size() - 3;  // buckets - 1
  for (std::size_t k = 0; k < count; ++k) {
    const Cell& c = cells[k];
    const std::uint64_t bucket = c.key & heldMask;
    for (std::uint32_t at = heldStart_[bucket]; at < heldStart_[bucket + 1]; ++at) {
      const Held& h = held_[at];
      // Other cells share the bucket: only this cell's bodies.
      if (cell(h.box.min.x) == c.cx && cell(h.box.min.y) == c.cy && !stale(h.body, n) &&
          touches(h.box, box)) {
        found.push_back(h.body);
      }
    }
  }
  if (!clean(n)) appendChanged(box, n, cells.data(), count, found);
  return true;
}

void QueryDelta::appendChanged(const AABB& box, std::uint32_t n, const Cell* cells,
                               std::size_t count, std::vector<std::uint32_t>& found) const {
  for (const std::uint32_t e : big_) {
    if (live(e, n) && touches(entries_[e].box, box)) found.push_back(entries_[e].body);
  }
  if ((levelsUsed_ & 1u) != 0) appendLevel(box, n, 0, cells, count, found);
  std::array<Cell, kMaxCellScan> coarse;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  for (std::uint32_t used = levelsUsed_ & ~1u; used != 0; used &= used - 1) {
    const auto level = static_cast<std::uint32_t>(std::countr_zero(used));
    // A level's range has no more cells than level 0's, which fit.
    CellRange r;
    [[maybe_unused]] const bool fits = cellRange(box, r, level);
    assert(fits);
    appendLevel(box, n, level, coarse.data(), occupiedCells(r, coarse.data()), found);
  }
}

void QueryDelta::appendLevel(const AABB& box, std::uint32_t n, std::uint32_t level,
                             const Cell* cells, std::size_t count,
                             std::vector<std::uint32_t>& found) const {
  const std::uint64_t mask = heads_.size() - 1;
  for (std::size_t k = 0; k < count; ++k) {
    const Cell& c = cells[k];
    for (std::uint32_t e = heads_[c.key & mask]; e != kNone; e = entries_[e].next) {
      // Other cells share the bucket: only this cell's entries, so each
      // entry is taken once.
      const Entry& entry = entries_[e];
      if (entry.cellX == c.cx && entry.cellY == c.cy && entry.level == level && live(e, n) &&
          touches(entry.box, box)) {
        found.push_back(entry.body);
      }
    }
  }
}

void QueryDelta::growTable() {
  // Twice the buckets, every entry in the grid hashed again (in entry
  // order, as add() did): O(entries), so O(1) per change amortized.
  heads_.assign(heads_.size() * 2, kNone);
  for (std::uint32_t e = 0; e < entries_.size(); ++e) {
    Entry& entry = entries_[e];
    if (entry.level == kLevels) continue;  // in big_
    const std::uint32_t b = bucket(entry);
    entry.next = heads_[b];
    heads_[b] = e;
  }
}

void QueryDelta::add(std::uint32_t body, const AABB& box) {
  if (body >= entryOf_.size()) entryOf_.resize(std::size_t{body} + 1, kNone);
  if (kLoad * (entries_.size() + 1) > heads_.size()) growTable();
  const auto e = static_cast<std::uint32_t>(entries_.size());
  const std::uint32_t level = levelOf(box);
  Entry entry{box, 0, 0, body, kNone, level};
  if (level == kLevels) {
    big_.push_back(e);
  } else {
    entry.cellX = cell(box.min.x, level);
    entry.cellY = cell(box.min.y, level);
    occupy(levelRow(level, entry.cellY), entry.cellX);
    const std::uint32_t b = bucket(entry);
    entry.next = heads_[b];
    heads_[b] = e;
    levelsUsed_ |= 1u << level;
  }
  entries_.push_back(entry);
  entryOf_[body] = e;  // an earlier entry of this body is dead from now on
}

void QueryDelta::changed(std::uint32_t first, std::uint32_t end, const BodyStore& bodies) noexcept {
  if (!built_) return;
  end = std::min(end, static_cast<std::uint32_t>(bodies.size()));
  try {
    for (std::uint32_t i = first; i < end; ++i) {
      if (i < count_) stale_[i] = 1;
      add(i, bodies.tightBox(i));
      if (entries_.size() > limit()) {
        invalidate();  // full: the next query refills the structure
        return;
      }
    }
  } catch (...) {
    invalidate();          // out of memory: the next query rebuilds
    onlyEntries_ = false;  // add may have marked an entry it could not keep
  }
}

void QueryDelta::dropStale(std::uint32_t n, std::vector<std::uint32_t>& found) const {
  std::erase_if(found, [&](std::uint32_t p) { return stale(p, n); });
}

void QueryDelta::mergeBox(const AABB& box, std::uint32_t n,
                          std::vector<std::uint32_t>& found) const {
  if (clean(n)) return;
  dropStale(n, found);
  CellRange r;
  if (!cellRange(box, r)) {
    // A large box (or an infinite or far one): every entry, once.
    for (std::uint32_t e = 0; e < entries_.size(); ++e) {
      if (live(e, n) && touches(entries_[e].box, box)) found.push_back(entries_[e].body);
    }
    return;
  }
  // The cells whose occupancy bits are set (a bit, not a bucket, read).
  std::array<Cell, kMaxCellScan> cells;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  appendChanged(box, n, cells.data(), occupiedCells(r, cells.data()), found);
}

void QueryDelta::mergeAll(std::uint32_t n, std::vector<std::uint32_t>& found) const {
  if (clean(n)) return;
  dropStale(n, found);
  for (std::uint32_t e = 0; e < entries_.size(); ++e) {
    if (live(e, n)) found.push_back(entries_[e].body);
  }
}

}  // namespace quadbin
