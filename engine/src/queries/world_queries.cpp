// Spatial queries and World::draw.
#include "world/world_impl.hpp"

namespace quadbin {

// ---- spatial queries -------------------------------------------------------

void World::draw(WorldDraw& out, const WorldDrawOptions& options) const {
  Impl& w = live();
  const auto use = w.claimRead();
  if (options.region) w.check(validate::queryBox(*options.region, "draw region"));
  w.refreshQueryIndex();
  w.refreshQueryStructure();
  drawWorld({w.bodies, w.ids.slotOf(), w.ids.generation(), w.worldId, w.settings.def(), *w.broad,
             w.queries.delta(), w.sensors.overlaps(), w.ids.denseOf(), *w.tasks},
            options, out);
}

void World::queryBox(const AABB& box, std::vector<BodyId>& out) const {
  live().queryBox(box, out, nullptr);
}
void World::queryBox(const AABB& box, std::vector<BodyId>& out, const QueryFilter& filter) const {
  live().queryBox(box, out, &filter);
}
void World::Impl::queryBox(const AABB& box, std::vector<BodyId>& out, const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead();
  w.check(validate::queryBox(box, "queryBox box"));
  const std::uint32_t skip = w.ignored(filter, "queryBox filter.ignore");
  w.refreshQueryIndex();
  // Per-thread scratch: a query loop allocates nothing once warm.
  thread_local std::vector<std::uint32_t> found;
  found.clear();
  w.candidates(box, found);
  const BodyStore& b = w.bodies;
  std::erase_if(found, [&](std::uint32_t i) {
    if (!w.reports(filter, skip, i)) return true;
    if (b.radius[i] == 0.0f) return !solid::touches(solid::of(b, i), box);  // not a circle
    const Vec2 c{b.px[i], b.py[i]};
    return lengthSquared(c - closestPoint(box, c)) > b.radius[i] * b.radius[i];
  });
  std::sort(found.begin(), found.end());
  out.clear();
  for (const std::uint32_t i : found) out.push_back(w.bodyIdAt(i));
}

void World::queryRadius(Vec2 center, float radius, std::vector<BodyId>& out) const {
  live().queryRadius(center, radius, out, nullptr);
}
void World::queryRadius(Vec2 center, float radius, std::vector<BodyId>& out,
                        const QueryFilter& filter) const {
  live().queryRadius(center, radius, out, &filter);
}
void World::Impl::queryRadius(Vec2 center, float radius, std::vector<BodyId>& out,
                              const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead();
  w.check(validate::queryPoint(center, "queryRadius center"));
  w.check(validate::queryRadius(radius, "queryRadius radius"));
  const std::uint32_t skip = w.ignored(filter, "queryRadius filter.ignore");
  w.refreshQueryIndex();
  // Per-thread scratch: a query loop allocates nothing once warm.
  thread_local std::vector<std::uint32_t> found;
  found.clear();
  w.candidates(AABB::fromCircle(center, radius), found);
  const BodyStore& b = w.bodies;
  std::erase_if(found, [&](std::uint32_t i) {
    if (!w.reports(filter, skip, i)) return true;
    if (b.radius[i] == 0.0f) {  // a static or kinematic box
      return lengthSquared(center - solid::closestPoint(solid::of(b, i), center)) > radius * radius;
    }
    const float reach = radius + b.radius[i];
    return lengthSquared(Vec2{b.px[i], b.py[i]} - center) > reach * reach;
  });
  std::sort(found.begin(), found.end());
  out.clear();
  for (const std::uint32_t i : found) out.push_back(w.bodyIdAt(i));
}

namespace {

// Where the ray crosses the sides of `b` within [0, maxT]: up to two hits
// (in and out), each with the side's normal facing the ray; a corner is
// reported once, by the first side in WallSide order. A ray that starts on
// a wall and heads into the world does not hit it.
void wallHits(const Ray& ray, const AABB& b, std::vector<RayHit>& out) {
  const Vec2 o = ray.origin, d = ray.direction;
  const std::size_t first = out.size();
  auto cross = [&](WallSide side, float t, Vec2 normal) {
    if (!(t >= 0.0f && t <= ray.maxT)) return;
    const bool inward =
        (side == WallSide::MinX && d.x > 0.0f) || (side == WallSide::MaxX && d.x < 0.0f) ||
        (side == WallSide::MinY && d.y > 0.0f) || (side == WallSide::MaxY && d.y < 0.0f);
    if (t == 0.0f && inward) return;
    const Vec2 p = ray.at(t);
    const bool onSide = side == WallSide::MinX || side == WallSide::MaxX
                            ? p.y >= b.min.y && p.y <= b.max.y
                            : p.x >= b.min.x && p.x <= b.max.x;
    if (!onSide) return;
    for (std::size_t k = first; k < out.size(); ++k) {
      if (out[k].t == t) return;  // a corner, already reported
    }
    out.push_back(RayHit{BodyId{}, t, p, normal, side});
  };
  if (d.x != 0.0f) {
    const Vec2 n{d.x > 0.0f ? -1.0f : 1.0f, 0.0f};
    cross(WallSide::MinX, (b.min.x - o.x) / d.x, n);
    cross(WallSide::MaxX, (b.max.x - o.x) / d.x, n);
  }
  if (d.y != 0.0f) {
    const Vec2 n{0.0f, d.y > 0.0f ? -1.0f : 1.0f};
    cross(WallSide::MinY, (b.min.y - o.y) / d.y, n);
    cross(WallSide::MaxY, (b.max.y - o.y) / d.y, n);
  }
}

}  // namespace

std::optional<RayHit> World::Impl::hit(const Ray& ray, std::uint32_t i) const {
  const Vec2 back = -normalizeOr(ray.direction);
  if (bodies.radius[i] == 0.0f) {  // a box or an outline
    const solid::Solid shape = solid::of(bodies, i);
    const auto t = solid::raycast(ray, shape, 0.0f);
    if (!t) return std::nullopt;
    const Vec2 p = ray.at(*t);
    Vec2 n = solid::outwardNormal(shape, p);
    if (dot(n, ray.direction) > 0.0f) n = -n;  // a segment: the side the ray came from
    return RayHit{bodyIdAt(i), *t, p, *t > 0.0f ? n : back};
  }
  const Vec2 c{bodies.px[i], bodies.py[i]};
  const auto t = quadbin::raycast(ray, Circle{c, bodies.radius[i]});
  if (!t) return std::nullopt;
  const Vec2 p = ray.at(*t);
  return RayHit{bodyIdAt(i), *t, p, *t > 0.0f ? normalizeOr(p - c, back) : back};
}

void World::raycastAll(const Ray& ray, std::vector<RayHit>& out) const {
  live("raycast").raycastAll(ray, out, nullptr);
}
void World::raycastAll(const Ray& ray, std::vector<RayHit>& out, const QueryFilter& filter) const {
  live("raycast").raycastAll(ray, out, &filter);
}
void World::Impl::raycastAll(const Ray& ray, std::vector<RayHit>& out, const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead("raycast");
  w.check(validate::ray(ray, "raycast"));
  const std::uint32_t skip = w.ignored(filter, "raycast filter.ignore");
  w.queries.rayAsked();
  w.refreshQueryIndex();
  w.refreshQueryStructure();
  std::vector<std::uint32_t> found;
  w.broad->queryRay(ray, found);
  w.queries.delta().mergeAll(static_cast<std::uint32_t>(w.bodies.size()), found);
  std::sort(found.begin(), found.end());
  out.clear();
  std::vector<std::uint32_t> dense;
  for (const std::uint32_t i : found) {
    if (!w.reports(filter, skip, i)) continue;
    if (auto h = w.hit(ray, i)) {
      out.push_back(*h);
      dense.push_back(i);
    }
  }
  // The walls after the bodies: at equal distances, bodies first (in
  // creation order), then walls (in WallSide order).
  if (w.settings.def().boundary == Boundary::Closed) {
    const std::size_t bodyHits = out.size();
    wallHits(ray, w.settings.def().bounds, out);
    for (std::size_t k = bodyHits; k < out.size(); ++k) {
      dense.push_back(kNone - 4 + static_cast<std::uint32_t>(out[k].wall));
    }
  }
  // Closest first; equal distances in creation order.
  std::vector<std::uint32_t> order(out.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return out[a].t != out[b].t ? out[a].t < out[b].t : dense[a] < dense[b];
  });
  std::vector<RayHit> sorted;
  sorted.reserve(out.size());
  for (const std::uint32_t k : order) sorted.push_back(out[k]);
  out.swap(sorted);
}

std::optional<RayHit> World::raycast(const Ray& ray) const {
  std::vector<RayHit> hits;
  raycastAll(ray, hits);
  if (hits.empty()) return std::nullopt;
  return hits.front();
}
std::optional<RayHit> World::raycast(const Ray& ray, const QueryFilter& filter) const {
  std::vector<RayHit> hits;
  raycastAll(ray, hits, filter);
  if (hits.empty()) return std::nullopt;
  return hits.front();
}

void World::nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out) const {
  live().nearest(point, k, out, nullptr);
}
void World::nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out,
                    const QueryFilter& filter) const {
  live().nearest(point, k, out, &filter);
}
void World::Impl::nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out,
                          const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead();
  w.check(validate::queryPoint(point, "nearest point"));
  w.check(validate::nearestCount(k, "nearest k"));
  const std::uint32_t skip = w.ignored(filter, "nearest filter.ignore");
  out.clear();
  const auto n = static_cast<std::uint32_t>(w.bodies.size());
  if (n == 0) return;
  k = std::min(k, n);
  w.refreshQueryIndex();
  const BodyStore& b = w.bodies;
  auto distance = [&](std::uint32_t i) {
    if (b.radius[i] == 0.0f) return length(point - solid::closestPoint(solid::of(b, i), point));
    return std::max(0.0f, length(Vec2{b.px[i], b.py[i]} - point) - b.radius[i]);
  };
  // Search squares that double until they hold k bodies within their
  // half-size: a body outside the square is farther than that from the
  // point, so those k are the nearest.
  const AABB& bounds = w.settings.def().bounds;
  float r = std::sqrt(bounds.area() * static_cast<float>(k) / static_cast<float>(n));
  if (!(r > 0.0f) || !std::isfinite(r)) r = 1.0f;
  std::vector<std::uint32_t> found;
  std::vector<std::pair<float, std::uint32_t>> near;
  for (;;) {
    found.clear();
    w.candidates(AABB::fromCircle(point, r), found);
    near.clear();
    for (const std::uint32_t i : found) {
      if (!w.reports(filter, skip, i)) continue;
      const float d = distance(i);
      if (d <= r) near.emplace_back(d, i);
    }
    if (near.size() >= k || found.size() >= n || !std::isfinite(r * 2.0f)) break;
    r *= 2.0f;
  }
  if (near.size() < k) {
    // Unbounded growth stopped (float range): rank every body.
    near.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
      if (w.reports(filter, skip, i)) near.emplace_back(distance(i), i);
    }
  }
  std::sort(near.begin(), near.end());
  k = std::min(k, static_cast<std::uint32_t>(near.size()));  // a filter may accept fewer
  for (std::uint32_t j = 0; j < k; ++j) out.push_back(w.bodyIdAt(near[j].second));
}

}  // namespace quadbin
