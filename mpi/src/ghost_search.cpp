// The ghost search (DistributedWorld::Impl::ghostsFor): the owned balls a
// neighbour gets as ghosts, found from the balls near the border (the
// border the last migration noted, or a pass over every ball).
#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "distributed_impl.hpp"

namespace quadbin::mpi {

namespace {

// The ghost search's cell of column x and row y as a sort key (column
// first, then row).
std::uint64_t cellKey(std::int64_t x, std::int64_t y) noexcept {
  return (static_cast<std::uint64_t>(x) << 32) ^ static_cast<std::uint32_t>(y);
}

}  // namespace

// The balls of `cells` (entries of `balls`, by cell, then entry) within
// `reach` of the centre of entry k and not stamped yet, stamped and
// appended to `chosen`, cell by cell in key order.
void DistributedWorld::Impl::linked(const Reachable& balls,
                                    std::span<const std::pair<std::uint64_t, std::uint32_t>> cells,
                                    double cell, std::uint32_t k, double reach,
                                    std::vector<std::uint32_t>& chosen) {
  const std::vector<BodyId>& ids = dense;
  const Vec2 p = balls.position[k];
  const auto cx = static_cast<std::int64_t>(std::floor(p.x / cell));
  const auto cy = static_cast<std::int64_t>(std::floor(p.y / cell));
  for (std::int64_t x = cx - 1; x <= cx + 1; ++x) {
    // The column's three cells are consecutive keys (but where the low
    // word wraps): one search, then a scan, in the same order.
    const auto keyOf = [x](std::int64_t y) { return cellKey(x, y); };
    const bool together = keyOf(cy - 1) < keyOf(cy + 1);
    for (std::int64_t y = cy - 1; y <= cy + 1; y += together ? 3 : 1) {
      const std::uint64_t key = keyOf(y), last = together ? keyOf(cy + 1) : key;
      auto it = std::lower_bound(cells.begin(), cells.end(), std::make_pair(key, 0u));
      for (; it != cells.end() && it->first <= last; ++it) {
        const std::uint32_t n = it->second;
        const std::uint32_t index = ids[balls.at[n]].index;
        if (stamp[index] == stampNow) continue;
        const Vec2 q = balls.position[n];
        const double dx = double{q.x} - p.x, dy = double{q.y} - p.y;
        const double touch = reach + balls.radius[n];
        if (dx * dx + dy * dy > touch * touch) continue;
        stamp[index] = stampNow;
        chosen.push_back(n);
      }
    }
  }
}

// A pass over every ball, or the border the migration noted. With
// assertions on, the border is checked against the pass: every ball the
// pass finds is in it, where the pass sees it.
const DistributedWorld::Impl::Reachable& DistributedWorld::Impl::reachable(int q, double band) {
  const bool noted = border.valid && band <= border.width;
#ifdef NDEBUG
  if (noted) return border.balls;
#endif
  const std::vector<BodyId>& ids = denseIds();
  const auto positions = world.positions();
  const auto radii = world.radii();
  const double lo = strips.lo(q), hi = strips.hi(q);
  scan.clear();
  for (std::uint32_t i = 0; i < ids.size(); ++i) {
    const Role r = roleAt[i];
    if (r != Role::Owned && r != Role::Ghost) continue;
    const double x = positions[i].x;
    if (std::max(std::max(lo - x, x - hi), 0.0) <= band) scan.add(i, positions[i], radii[i]);
  }
  if (!noted) return scan;
  const Reachable& b = border.balls;
  for (std::size_t k = 0; k < scan.at.size(); ++k) {
    const auto it = std::lower_bound(b.at.begin(), b.at.end(), scan.at[k]);
    [[maybe_unused]] const auto e = static_cast<std::size_t>(it - b.at.begin());
    assert(it != b.at.end() && *it == scan.at[k] && "a ball near the border is not in it");
    assert(std::bit_cast<std::uint64_t>(b.position[e]) ==
               std::bit_cast<std::uint64_t>(scan.position[k]) &&
           "the border holds another position");
  }
  return border.balls;
}

// The owned balls peer `q` gets as ghosts (Halo), stamped `sent`. The
// search runs through this rank's ghosts too (as the last step left
// them), so that a cluster over three strips reaches the far one.
std::vector<BodyId> DistributedWorld::Impl::ghostsFor(int q, const Halo& h) {
  // The balls the search may reach (this rank's and its ghosts of other
  // ranks than q, within the band of q's strip), bucketed in cells as wide
  // as the farthest link, sorted by cell. A link spans at most a cell
  // along x, so the search that keeps kNarrow cells inside the narrow band
  // (the nearer part, all a short chain needs) finds what it would over
  // the whole band: only a longer one takes the rest and searches again.
  const std::vector<BodyId>& ids = denseIds();
  const double band = h.band(), cell = 2.0 * h.radius + h.link;
  const Reachable& balls = reachable(q, band);
  const double narrow = std::min(band, h.reach + (kNarrow + 1) * cell);
  const auto cellOf = [cell](Vec2 p) {
    const auto cx = static_cast<std::int64_t>(std::floor(p.x / cell));
    const auto cy = static_cast<std::int64_t>(std::floor(p.y / cell));
    return cellKey(cx, cy);
  };
  const double lo = strips.lo(q), hi = strips.hi(q);  // Strips::distance and owner, inline
  const auto distance = [lo, hi](double x) { return std::max(std::max(lo - x, x - hi), 0.0); };
  std::vector<std::pair<std::uint64_t, std::uint32_t>> cells, far;  // (cell, entry)
  std::vector<std::uint32_t> chosen;                                // entries
  for (std::uint32_t k = 0; k < balls.at.size(); ++k) {
    const Role r = roleAt[balls.at[k]];
    if (r != Role::Owned && r != Role::Ghost) continue;
    const double x = balls.position[k].x;
    const double d = distance(x);
    if (d > band || (r == Role::Ghost && x >= lo && x < hi)) continue;
    (d <= narrow ? cells : far).emplace_back(cellOf(balls.position[k]), k);
    if (d <= h.reach) chosen.push_back(k);
  }
  const std::size_t first = chosen.size();
  std::sort(cells.begin(), cells.end());
  for (bool whole = far.empty();; whole = true) {
    ++stampNow;
    chosen.resize(first);
    for (const std::uint32_t k : chosen) stamp[ids[balls.at[k]].index] = stampNow;
    bool nearEdge = false;
    std::size_t from = 0;
    for (int depth = 0; depth < kDepth && from < chosen.size() && (whole || !nearEdge); ++depth) {
      const std::size_t to = chosen.size();
      for (std::size_t k = from; k < to; ++k) {
        const std::uint32_t e = chosen[k];
        nearEdge = nearEdge || distance(balls.position[e].x) > narrow - cell;
        linked(balls, cells, cell, e, balls.radius[e] + h.link, chosen);
      }
      from = to;
    }
    if (whole || !nearEdge) break;
    cells.insert(cells.end(), far.begin(), far.end());
    std::sort(cells.begin(), cells.end());
  }
  std::vector<BodyId> out;
  for (const std::uint32_t k : chosen) {
    const std::uint32_t i = balls.at[k];
    if (roleAt[i] != Role::Owned) continue;
    out.push_back(ids[i]);
    sent[ids[i].index] = sentNow;
    sentAt[i] = 1;
  }
  std::sort(out.begin(), out.end(),
            [&](BodyId a, BodyId b) { return gidOf[a.index] < gidOf[b.index]; });
  return out;
}

}  // namespace quadbin::mpi
