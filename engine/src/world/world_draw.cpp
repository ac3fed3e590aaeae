#include "world/world_draw.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <quadbin/narrowphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <vector>

#include "bodies/ball_geometry.hpp"
#include "bodies/solid.hpp"
#include "contacts/contact.hpp"

namespace quadbin {

namespace {

// Balls per task when contacts are gathered; a constant, so the chunks (and
// the order of their merged output) do not depend on the thread count.
constexpr std::uint32_t kContactChunk = 1024;

struct Geometry {
  Vec2 normal;       // unit, from the ball towards the other body
  float gap = 0.0f;  // between the surfaces; negative: overlap
};

// The normal and gap of ball a against the other body, as the solver's
// narrow phase computes them (ContactSet::makeRow), so that "touching"
// here is the solver's rule.
Geometry ballBall(const BodyStore& b, std::uint32_t i, std::uint32_t j) noexcept {
  const Vec2 d = Vec2{b.px[j], b.py[j]} - Vec2{b.px[i], b.py[i]};
  const float dist = length(d);
  return {dist > 0.0f ? d / dist : apartDirection(i, j), dist - b.radius[i] - b.radius[j]};
}

Geometry ballBox(const BodyStore& b, std::uint32_t i, std::uint32_t j) noexcept {
  const Vec2 pa{b.px[i], b.py[i]};
  const float ra = b.radius[i];
  const solid::Touch t = solid::touch(solid::of(b, j), pa, ra);  // a box or an outline
  return {t.normal, t.gap};
}

// Side 0: min x, 1: max x, 2: min y, 3: max y (SolverSettings::wallGap).
Geometry ballWall(const BodyStore& b, std::uint32_t i, const AABB& bounds,
                  std::uint32_t side) noexcept {
  const Vec2 p{b.px[i], b.py[i]};
  const float toWall = side == 0   ? p.x - bounds.min.x
                       : side == 1 ? bounds.max.x - p.x
                       : side == 2 ? p.y - bounds.min.y
                                   : bounds.max.y - p.y;
  const float sign = side % 2 == 0 ? -1.0f : 1.0f;
  return {side < 2 ? Vec2{sign, 0.0f} : Vec2{0.0f, sign}, toWall - b.radius[i]};
}

bool shapeTouches(const BodyStore& b, std::uint32_t i, const AABB& region) noexcept {
  if (!b.isCircle(i)) return solid::touches(solid::of(b, i), region);
  const Vec2 c{b.px[i], b.py[i]};
  return lengthSquared(c - closestPoint(region, c)) <= b.radius[i] * b.radius[i];
}

class Drawer {
 public:
  Drawer(const DrawInput& in, const WorldDrawOptions& options, WorldDraw& out)
      : in_(in), b_(in.bodies), options_(options), out_(out) {}

  void run() {
    if (options_.walls && in_.def.boundary == Boundary::Closed) out_.walls(in_.def.bounds);
    const std::vector<std::uint32_t> candidates = findCandidates();
    for (const std::uint32_t i : candidates) body(i);
    if (options_.contacts) contacts(candidates);
    if (options_.sensorOverlaps) sensorOverlaps();
  }

 private:
  // The overlaps of the last step (as its sensor events saw them), in their
  // sorted order, at the point of the sensor nearest the visitor's centre;
  // bodies destroyed since are left out.
  void sensorOverlaps() const {
    const auto denseOf = [&](std::uint32_t slot,
                             std::uint32_t gen) -> std::optional<std::uint32_t> {
      if (slot >= in_.denseOf.size() || in_.generation[slot] != gen) return std::nullopt;
      const std::uint32_t i = in_.denseOf[slot];
      if (i >= in_.slotOf.size()) return std::nullopt;
      return i;
    };
    for (const SensorKey& k : in_.sensorOverlaps) {
      const auto s = denseOf(k.sensorSlot, k.sensorGen);
      const auto v = denseOf(k.visitorSlot, k.visitorGen);
      if (!s || !v) continue;
      const Vec2 c{b_.px[*v], b_.py[*v]};
      Vec2 point = c;
      if (b_.isCircle(*s)) {
        const Vec2 centre{b_.px[*s], b_.py[*s]};
        const Vec2 d = c - centre;
        const float len = length(d);
        if (len > b_.radius[*s]) point = centre + d * (b_.radius[*s] / len);
      } else {
        point = solid::closestPoint(solid::of(b_, *s), c);
      }
      if (options_.region && !contains(*options_.region, point)) continue;
      out_.sensorOverlap(idAt(*s), idAt(*v), point);
    }
  }
  [[nodiscard]] BodyId idAt(std::uint32_t dense) const noexcept {
    const std::uint32_t slot = in_.slotOf[dense];
    return {slot, in_.generation[slot], in_.worldId};
  }
  [[nodiscard]] bool inRegion(Vec2 p) const noexcept {
    return !options_.region || contains(*options_.region, p);
  }

  // Every body without a region; with one, a superset of the bodies that
  // touch it or own a contact whose point lies in it, from the broad phase,
  // in dense order. A contact's point is within the ball's radius grown by
  // the touching slop of its centre, so the region grown by that much finds
  // the ball that reports it.
  [[nodiscard]] std::vector<std::uint32_t> findCandidates() const {
    std::vector<std::uint32_t> found;
    const auto n = static_cast<std::uint32_t>(b_.size());
    if (!options_.region) {
      found.resize(n);
      for (std::uint32_t i = 0; i < n; ++i) found[i] = i;
      return found;
    }
    const float margin = 2.0f * contacts::kSlop * b_.maxRadius;
    AABB grown = *options_.region;
    grown.min = grown.min - Vec2{margin, margin};
    grown.max = grown.max + Vec2{margin, margin};
    in_.broad.query(grown, found);
    in_.delta.mergeBox(grown, static_cast<std::uint32_t>(b_.size()), found);
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
  }

  void body(std::uint32_t i) const {
    const bool shown = !options_.region || shapeTouches(b_, i, *options_.region);
    if (shown && b_.isCircle(i) && options_.balls) {
      out_.ball({idAt(i),
                 {b_.px[i], b_.py[i]},
                 b_.radius[i],
                 {b_.vx[i], b_.vy[i]},
                 b_.angle[i],
                 b_.awake[i] != 0,
                 b_.type[i]});
    } else if (shown && !b_.isCircle(i) && options_.staticBoxes) {
      const solid::Solid shape = solid::of(b_, i);  // an outline at its angle
      if (const Hull* h = shape.hull()) {
        std::array<Vec2, Hull::kMaxVertices> at{};
        for (int k = 0; k < h->count; ++k) at[k] = h->vertex(k, shape.at);
        out_.polygon(
            {idAt(i), std::span<const Vec2>(at.data(), h->count), !h->isSegment(), b_.type[i]});
      } else {
        out_.staticBox({idAt(i), b_.tightBox(i)});
      }
    }
    if (options_.aabbs) {
      const AABB box = b_.isCircle(i) ? b_.tightBox(i) : solid::bounds(solid::of(b_, i));
      if (!options_.region || touches(box, *options_.region)) out_.aabb(idAt(i), box);
    }
  }

  // Each pair is reported by its ball with the lower dense index (a ball
  // and a box or a wall: by the ball), gathered in parallel per chunk of
  // candidates and merged in chunk order.
  void contacts(const std::vector<std::uint32_t>& candidates) const {
    const auto count = static_cast<std::uint32_t>(candidates.size());
    OrderedBuffers<DrawnContact> buffers;
    buffers.reset(chunkCount(count, kContactChunk));
    forEachChunk(in_.tasks, count, kContactChunk,
                 [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                   std::vector<std::uint32_t> near;
                   for (std::uint32_t k = begin; k < end; ++k) {
                     if (b_.isBall(candidates[k])) ballContacts(candidates[k], near, buffers[c]);
                   }
                 });
    for (std::uint32_t c = 0; c < buffers.size(); ++c) {
      for (const DrawnContact& contact : buffers[c]) out_.contact(contact);
    }
  }

  void ballContacts(std::uint32_t i, std::vector<std::uint32_t>& near,
                    std::vector<DrawnContact>& found) const {
    const float ri = b_.radius[i];
    const float reach = contacts::kSlop * ri;  // the most slop a pair of i's has
    AABB box = b_.tightBox(i);
    box.min = box.min - Vec2{reach, reach};
    box.max = box.max + Vec2{reach, reach};
    near.clear();
    in_.broad.query(box, near);
    in_.delta.mergeBox(box, static_cast<std::uint32_t>(b_.size()), near);
    std::sort(near.begin(), near.end());
    near.erase(std::unique(near.begin(), near.end()), near.end());
    for (const std::uint32_t j : near) {
      if (j == i) continue;
      if (b_.isCircle(j)) {
        if (b_.isBall(j) && j < i) continue;  // j reports it
        const float slop = contacts::kSlop * std::min(ri, b_.radius[j]);
        report(i, idAt(j), ballBall(b_, i, j), slop, found);
      } else {
        report(i, idAt(j), ballBox(b_, i, j), reach, found);
      }
    }
    if (in_.def.boundary != Boundary::Closed) return;
    for (std::uint32_t side = 0; side < 4; ++side) {
      report(i, BodyId{}, ballWall(b_, i, in_.def.bounds, side), reach, found);
    }
  }

  void report(std::uint32_t i, BodyId other, Geometry g, float slop,
              std::vector<DrawnContact>& found) const {
    if (!(g.gap <= slop)) return;
    const Vec2 point = Vec2{b_.px[i], b_.py[i]} + g.normal * (b_.radius[i] + 0.5f * g.gap);
    if (!inRegion(point)) return;
    found.push_back({idAt(i), other, point, g.normal, g.gap});
  }

  const DrawInput& in_;
  const BodyStore& b_;
  const WorldDrawOptions& options_;
  WorldDraw& out_;
};

}  // namespace

void drawWorld(const DrawInput& in, const WorldDrawOptions& options, WorldDraw& out) {
  Drawer(in, options, out).run();
}

}  // namespace quadbin
