// The ghost search (DistributedWorld::Impl::ghostsFor): the owned balls a
// neighbour gets as ghosts, found from the balls near the border (the
// border the last migration noted, or a pass over every ball).
#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "distributed_impl.hpp"

namespace quadbin::mpi {

void DistributedWorld::Impl::CellTable::build(std::span<const std::uint32_t> list) {
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(16, 2 * list.size()));
  mask = buckets - 1;
  start.assign(buckets + 1, 0);
  for (const std::uint32_t k : list) ++start[bucketOf(cellX[k], cellY[k]) + 1];
  for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  entries.resize(list.size());
  std::vector<std::uint32_t>& at = scratch;
  at.assign(start.begin(), start.end() - 1);
  for (const std::uint32_t k : list) entries[at[bucketOf(cellX[k], cellY[k])]++] = k;
}

// The balls of the table within `reach` of the centre of entry k and not
// stamped yet, stamped and appended to `chosen`, cell by cell (columns,
// then rows, in increasing order).
void DistributedWorld::Impl::linked(const Reachable& balls, std::uint32_t k, double reach,
                                    std::vector<std::uint32_t>& chosen) {
  const std::vector<BodyId>& ids = dense;
  const CellTable& t = cellTable;
  const Vec2 p = balls.position[k];
  const std::int64_t cx = t.cellX[k], cy = t.cellY[k];
  for (std::int64_t x = cx - 1; x <= cx + 1; ++x) {
    for (std::int64_t y = cy - 1; y <= cy + 1; ++y) {
      const std::uint64_t b = t.bucketOf(x, y);
      for (std::uint32_t at = t.start[b]; at < t.start[b + 1]; ++at) {
        const std::uint32_t n = t.entries[at];
        if (t.cellX[n] != x || t.cellY[n] != y) continue;  // another cell of the bucket
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
  // ranks than q, within the band of q's strip), in cells as wide as the
  // farthest link (CellTable). A link spans at most a cell
  // along x, so the search that keeps kNarrow cells inside the narrow band
  // (the nearer part, all a short chain needs) finds what it would over
  // the whole band: only a longer one takes the rest and searches again.
  const std::vector<BodyId>& ids = denseIds();
  const double band = h.band(), cell = 2.0 * h.radius + h.link;
  const Reachable& balls = reachable(q, band);
  const double narrow = std::min(band, h.reach + (kNarrow + 1) * cell);
  const double lo = strips.lo(q), hi = strips.hi(q);  // Strips::distance and owner, inline
  const auto distance = [lo, hi](double x) { return std::max(std::max(lo - x, x - hi), 0.0); };
  CellTable& table = cellTable;
  table.cellX.resize(balls.at.size());
  table.cellY.resize(balls.at.size());
  std::vector<std::uint32_t> near, far, chosen;  // entries
  for (std::uint32_t k = 0; k < balls.at.size(); ++k) {
    const Role r = roleAt[balls.at[k]];
    if (r != Role::Owned && r != Role::Ghost) continue;
    const double x = balls.position[k].x;
    const double d = distance(x);
    if (d > band || (r == Role::Ghost && x >= lo && x < hi)) continue;
    table.cellX[k] = static_cast<std::int64_t>(std::floor(balls.position[k].x / cell));
    table.cellY[k] = static_cast<std::int64_t>(std::floor(balls.position[k].y / cell));
    (d <= narrow ? near : far).push_back(k);
    if (d <= h.reach) chosen.push_back(k);
  }
  const std::size_t first = chosen.size();
  table.build(near);
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
        linked(balls, e, balls.radius[e] + h.link, chosen);
      }
      from = to;
    }
    if (whole || !nearEdge) break;
    near.insert(near.end(), far.begin(), far.end());
    table.build(near);
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
