#include "query_delta.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "body_store.hpp"

namespace quadbin {

namespace {

constexpr std::size_t kSample = 256;         // boxes sampled for the cell size
constexpr std::uint64_t kMaxCellScan = 100;  // more cells: scan the entries instead
// Buckets per entry, at least: most buckets a query looks at are empty,
// rather than holding the entries of other cells.
constexpr std::size_t kLoad = 4;

double extentOf(const AABB& b) noexcept {
  return std::max(static_cast<double>(b.max.x) - b.min.x, static_cast<double>(b.max.y) - b.min.y);
}

}  // namespace

std::int64_t QueryDelta::cell(float x) const noexcept {
  // Coordinates are bounded (limits::kMaxCoordinate) and the cell no
  // smaller than 1e-3, so this fits easily.
  return static_cast<std::int64_t>(std::floor(static_cast<double>(x) * invCellSize_));
}

std::uint64_t QueryDelta::rowHash(std::int64_t cy) noexcept {
  // splitmix64's finalizer: every bit of the row reaches the low bits the
  // table uses.
  auto h = static_cast<std::uint64_t>(cy) * 0x9E3779B97F4A7C15ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

std::uint32_t QueryDelta::bucket(std::int64_t cx, std::int64_t cy) const noexcept {
  // A row's cells take consecutive buckets from a random start: the cells
  // of a query's row are one hash and adjacent heads.
  return static_cast<std::uint32_t>((rowHash(cy) + static_cast<std::uint64_t>(cx)) &
                                    (heads_.size() - 1));
}

namespace {
// v sized n, every element `value`; its capacity grows geometrically, so a
// world that grows by a quarter between refills does not reallocate (and
// fault in fresh pages) at every refill.
template <class T>
void refill(std::vector<T>& v, std::size_t n, T value) {
  if (n > v.capacity()) v.reserve(std::max(n, 2 * v.capacity()));
  v.assign(n, value);
}
}  // namespace

void QueryDelta::rebuilt(const BodyStore& bodies) {
  built_ = false;
  const auto n = static_cast<std::uint32_t>(bodies.size());
  refill(stale_, n, std::uint8_t{0});
  refill(entryOf_, n, kNone);
  entries_.clear();
  big_.clear();
  // The table starts small and doubles with the entries (growTable).
  refill(heads_, kLoad * kMinLimit, kNone);
  // Cells about twice the median body: most changed bodies fit one cell,
  // and a query near a body looks at a few cells.
  sample_.clear();
  const std::size_t stride = std::max<std::size_t>(1, n / kSample);
  for (std::size_t i = 0; i < n; i += stride) {
    sample_.push_back(extentOf(bodies.tightBox(static_cast<std::uint32_t>(i))));
  }
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
  invCellSize_ = 1.0 / cellSize_;
  count_ = n;
  built_ = true;
}

void QueryDelta::growTable() {
  // Twice the buckets, every entry in the grid hashed again (in entry
  // order, as add() did): O(entries), so O(1) per change amortized.
  heads_.assign(heads_.size() * 2, kNone);
  for (std::uint32_t e = 0; e < entries_.size(); ++e) {
    Entry& entry = entries_[e];
    if (!(extentOf(entry.box) < cellSize_)) continue;  // in big_
    const std::uint32_t b = bucket(entry.cellX, entry.cellY);
    entry.next = heads_[b];
    heads_[b] = e;
  }
}

void QueryDelta::add(std::uint32_t body, const AABB& box) {
  if (body >= entryOf_.size()) entryOf_.resize(std::size_t{body} + 1, kNone);
  if (kLoad * (entries_.size() + 1) > heads_.size()) growTable();
  const auto e = static_cast<std::uint32_t>(entries_.size());
  Entry entry{box, cell(box.min.x), cell(box.min.y), body, kNone};
  if (!(extentOf(box) < cellSize_)) {
    big_.push_back(e);
  } else {
    const std::uint32_t b = bucket(entry.cellX, entry.cellY);
    entry.next = heads_[b];
    heads_[b] = e;
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
    invalidate();  // out of memory: the next query rebuilds
  }
}

void QueryDelta::dropStale(std::uint32_t n, std::vector<std::uint32_t>& found) const {
  std::erase_if(found, [&](std::uint32_t p) { return p >= n || stale_[p] != 0; });
}

void QueryDelta::mergeBox(const AABB& box, std::uint32_t n,
                          std::vector<std::uint32_t>& found) const {
  if (clean(n)) return;
  dropStale(n, found);
  auto take = [&](std::uint32_t e) {
    if (live(e, n) && touches(entries_[e].box, box)) found.push_back(entries_[e].body);
  };
  for (const std::uint32_t e : big_) take(e);
  // A body in the grid has an extent below a cell (exactly: the rounded
  // difference is below the cell, so the exact one is too), so one that
  // touches `box` has box.min - cellSize < its min <= box.max on each axis:
  // its min corner lies in the cells from box.min's minus one to box.max's.
  // With a power-of-two cell, coordinate * invCellSize_ is exact.
  const double minX = std::floor(static_cast<double>(box.min.x) * invCellSize_) - 1;
  const double minY = std::floor(static_cast<double>(box.min.y) * invCellSize_) - 1;
  const double maxX = std::floor(static_cast<double>(box.max.x) * invCellSize_);
  const double maxY = std::floor(static_cast<double>(box.max.y) * invCellSize_);
  const double cells = (maxX - minX + 1) * (maxY - minY + 1);
  if (!(cells <= static_cast<double>(kMaxCellScan))) {
    // A large box (or an infinite one): every entry, once.
    for (std::uint32_t e = 0; e < entries_.size(); ++e) {
      if (extentOf(entries_[e].box) < cellSize_) take(e);
    }
    return;
  }
  const std::uint64_t mask = heads_.size() - 1;
  for (auto cy = static_cast<std::int64_t>(minY); cy <= static_cast<std::int64_t>(maxY); ++cy) {
    const std::uint64_t row = rowHash(cy);
    for (auto cx = static_cast<std::int64_t>(minX); cx <= static_cast<std::int64_t>(maxX); ++cx) {
      const std::uint32_t head = heads_[(row + static_cast<std::uint64_t>(cx)) & mask];
      for (std::uint32_t e = head; e != kNone; e = entries_[e].next) {
        // Other cells share the bucket: only this cell's entries, so each
        // entry is taken once.
        if (entries_[e].cellX == cx && entries_[e].cellY == cy) take(e);
      }
    }
  }
}

void QueryDelta::mergeAll(std::uint32_t n, std::vector<std::uint32_t>& found) const {
  if (clean(n)) return;
  dropStale(n, found);
  for (std::uint32_t e = 0; e < entries_.size(); ++e) {
    if (live(e, n)) found.push_back(entries_[e].body);
  }
}

}  // namespace quadbin
