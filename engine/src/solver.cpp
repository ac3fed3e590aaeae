#include "solver.hpp"

#include <algorithm>
#include <cmath>
#include <quadbin/narrowphase/contact.hpp>

namespace quadbin {

namespace {
// Rounds of "solve, then look again for balls that outran their box".
constexpr int kMaxRounds = 4;
// A ball may outrun its box by this fraction of its radius before it is
// looked at again: less than a radius cannot carry it through anything,
// and any overlap it causes is separated at the end of this or the next step.
constexpr float kEscapeTolerance = 0.5f;
}  // namespace

void SolverBodies::push(BodyType t, Vec2 p, Vec2 v, Vec2 half, float r, float m) {
  px.push_back(p.x);
  py.push_back(p.y);
  vx.push_back(v.x);
  vy.push_back(v.y);
  hx.push_back(half.x);
  hy.push_back(half.y);
  radius.push_back(r);
  mass.push_back(m);
  invMass.push_back(t == BodyType::Ball ? 1.0f / m : 0.0f);
  type.push_back(t);
}

void SolverBodies::swapRemove(std::uint32_t i) {
  auto remove = [i](auto& v) {
    v[i] = v.back();
    v.pop_back();
  };
  remove(px);
  remove(py);
  remove(vx);
  remove(vy);
  remove(hx);
  remove(hy);
  remove(radius);
  remove(mass);
  remove(invMass);
  remove(type);
}

void SolverBodies::applyGravity(Vec2 g, float dt) noexcept {
  if (g == Vec2{}) return;
  for (std::size_t i = 0; i < px.size(); ++i) {
    if (type[i] != BodyType::Ball) continue;
    vx[i] += g.x * dt;
    vy[i] += g.y * dt;
  }
}

void SolverBodies::sweptBoxes(float dt, std::vector<AABB>& out) const {
  out.resize(px.size());
  for (std::size_t i = 0; i < px.size(); ++i) {
    const float travel = type[i] == BodyType::Ball ? std::hypot(vx[i], vy[i]) * dt : 0.0f;
    out[i] = {{px[i] - hx[i] - travel, py[i] - hy[i] - travel},
              {px[i] + hx[i] + travel, py[i] + hy[i] + travel}};
  }
}

void Solver::addCandidate(const SolverBodies& bodies, std::uint32_t i, std::uint32_t j,
                          std::vector<SolverContact>& out) const {
  const bool ballI = bodies.type[i] == BodyType::Ball;
  const bool ballJ = bodies.type[j] == BodyType::Ball;
  if (!ballI && !ballJ) return;
  if (!ballI) std::swap(i, j);
  const Vec2 c{bodies.px[i], bodies.py[i]};
  const float r = bodies.radius[i];
  float gap = 0.0f, reach = 0.0f;
  if (ballI && ballJ) {
    if (j < i) std::swap(i, j);
    gap = length(Vec2{bodies.px[j], bodies.py[j]} - c) - r - bodies.radius[j];
    reach = margin_[i] + margin_[j];
  } else {
    gap = length(c - closestPoint(bodies.tightBox(j), c)) - r;
    reach = margin_[i];
  }
  // Keep the pair when the gap can close within the step (with a little
  // slack for rounding).
  if (gap <= reach * 1.001f + 1e-6f * r) out.push_back({i, j, false});
}

void Solver::addWalls(const SolverBodies& bodies, const SolverSettings& s, std::uint32_t i,
                      std::vector<SolverContact>& out) const {
  const float reach = bodies.radius[i] + margin_[i];
  if (bodies.px[i] - reach <= s.bounds.min.x) out.push_back({i, kWallBase + 0, false});
  if (bodies.px[i] + reach >= s.bounds.max.x) out.push_back({i, kWallBase + 1, false});
  if (bodies.py[i] - reach <= s.bounds.min.y) out.push_back({i, kWallBase + 2, false});
  if (bodies.py[i] + reach >= s.bounds.max.y) out.push_back({i, kWallBase + 3, false});
}

void Solver::buildContacts(const SolverBodies& bodies, const SolverSettings& s,
                           std::span<const Pair> pairs) {
  const std::size_t n = bodies.size();
  margin_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    margin_[i] =
        bodies.type[i] == BodyType::Ball ? std::hypot(bodies.vx[i], bodies.vy[i]) * s.dt : 0.0f;
  }
  contacts_.clear();
  for (const Pair& p : pairs) addCandidate(bodies, p.a, p.b, contacts_);
  if (s.closedWorld) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (bodies.type[i] == BodyType::Ball) addWalls(bodies, s, i, contacts_);
    }
  }
  std::sort(contacts_.begin(), contacts_.end());
}

void Solver::applyImpulse(std::uint32_t i, Vec2 dv, float t, SolverBodies& bodies) {
  bodies.vx[i] += dv.x;
  bodies.vy[i] += dv.y;
  // The body moved with its old velocity until t and moves with the new one
  // after: shift its end-of-step position so the path stays continuous.
  corrX_[i] -= dv.x * t;
  corrY_[i] -= dv.y * t;
  tLast_[i] = t;
  maxSpeed_[i] = std::max(maxSpeed_[i], std::hypot(bodies.vx[i], bodies.vy[i]));
}

bool Solver::resolveBalls(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                          std::uint32_t b) {
  const float dt = s.dt;
  const float t0 = std::max(tLast_[a], tLast_[b]);
  const Vec2 pa = positionAt(bodies, a, t0), pb = positionAt(bodies, b, t0);
  const Vec2 va{bodies.vx[a], bodies.vy[a]}, vb{bodies.vx[b], bodies.vy[b]};
  const auto toi =
      timeOfImpact(Circle{pa, bodies.radius[a]}, va, Circle{pb, bodies.radius[b]}, vb, dt - t0);
  if (!toi) return false;
  const Vec2 w = vb - va;
  const Vec2 d = pb - pa + w * *toi;
  const Vec2 n = normalizeOr(d, normalizeOr(-w));
  const float vn = dot(w, n);
  if (vn >= 0.0f) return false;  // touching but already separating
  const float ima = bodies.invMass[a], imb = bodies.invMass[b];
  const float j = -(1.0f + s.restitutionFor(-vn)) * vn / (ima + imb);
  const float t = t0 + *toi;
  applyImpulse(a, n * (-j * ima), t, bodies);
  applyImpulse(b, n * (j * imb), t, bodies);
  return true;
}

bool Solver::resolveBox(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                        std::uint32_t box) {
  const float dt = s.dt;
  const float t0 = tLast_[a];
  const Vec2 pa = positionAt(bodies, a, t0);
  const Vec2 v{bodies.vx[a], bodies.vy[a]};
  const AABB shape = bodies.tightBox(box);
  const auto toi = timeOfImpact(Circle{pa, bodies.radius[a]}, v, shape, dt - t0);
  if (!toi) return false;
  const Vec2 n = outwardNormal(shape, pa + v * *toi);
  const float vn = dot(v, n);
  if (vn >= 0.0f) return false;
  applyImpulse(a, n * (-(1.0f + s.restitutionFor(-vn)) * vn), t0 + *toi, bodies);
  return true;
}

bool Solver::resolveWall(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                         std::uint32_t side) {
  const float t0 = tLast_[a];
  const Vec2 p = positionAt(bodies, a, t0);
  const float r = bodies.radius[a];
  const bool xAxis = side < 2;
  const bool lowSide = side % 2 == 0;
  const float pos = xAxis ? p.x : p.y;
  const float vel = xAxis ? bodies.vx[a] : bodies.vy[a];
  // The centre's limit on this side, and the signed distance still to go.
  const float limit = xAxis ? (lowSide ? s.bounds.min.x + r : s.bounds.max.x - r)
                            : (lowSide ? s.bounds.min.y + r : s.bounds.max.y - r);
  const bool approaching = lowSide ? vel < 0.0f : vel > 0.0f;
  if (!approaching) return false;
  const float toGo = lowSide ? pos - limit : limit - pos;
  float t = t0;
  if (toGo > 0.0f) {
    t = t0 + toGo / std::abs(vel);
    if (t > s.dt) return false;
  }
  const float dvn = -(1.0f + s.restitutionFor(std::abs(vel))) * vel;
  applyImpulse(a, xAxis ? Vec2{dvn, 0.0f} : Vec2{0.0f, dvn}, t, bodies);
  return true;
}

bool Solver::resolve(SolverBodies& bodies, const SolverSettings& s, SolverContact& c) {
  bool hit = false;
  if (c.b >= kWallBase) {
    hit = resolveWall(bodies, s, c.a, c.b - kWallBase);
  } else if (bodies.type[c.b] == BodyType::Ball) {
    hit = resolveBalls(bodies, s, c.a, c.b);
  } else {
    hit = resolveBox(bodies, s, c.a, c.b);
  }
  if (hit) {
    c.touched = true;
    ++impulses_;
  }
  return hit;
}

SolverResult Solver::solve(SolverBodies& bodies, const SolverSettings& s, const BroadPhase& broad,
                           std::vector<AABB>& boxes) {
  const std::size_t n = bodies.size();
  corrX_.assign(n, 0.0f);
  corrY_.assign(n, 0.0f);
  tLast_.assign(n, 0.0f);
  maxSpeed_.resize(n);
  for (std::size_t i = 0; i < n; ++i) maxSpeed_[i] = std::hypot(bodies.vx[i], bodies.vy[i]);
  impulses_ = 0;
  SolverResult result;
  std::vector<std::uint32_t>& grown = escapees_;  // every ball whose box grew this step
  grown.clear();

  for (int round = 0; round < kMaxRounds; ++round) {
    for (std::uint32_t pass = 0; pass < s.passes; ++pass) {
      bool any = false;
      for (auto& c : contacts_) any |= resolve(bodies, s, c);
      if (!any) break;
    }
    // Balls that collisions made faster than their swept box allowed may
    // reach bodies the broad phase did not pair them with: look again.
    const std::size_t firstNew = grown.size();
    for (std::uint32_t i = 0; i < n; ++i) {
      if (bodies.type[i] != BodyType::Ball) continue;
      if (maxSpeed_[i] * s.dt > margin_[i] + kEscapeTolerance * bodies.radius[i])
        grown.push_back(i);
    }
    if (grown.size() == firstNew) break;
    if (round == kMaxRounds - 1) {
      result.unresolvedEscapes = static_cast<std::uint32_t>(grown.size() - firstNew);
      break;
    }
    extra_.clear();
    for (std::size_t k = firstNew; k < grown.size(); ++k) {
      const std::uint32_t i = grown[k];
      margin_[i] = maxSpeed_[i] * s.dt;
      boxes[i] = AABB::fromCircle({bodies.px[i], bodies.py[i]}, bodies.radius[i] + margin_[i]);
      found_.clear();
      broad.query(boxes[i], found_);
      for (const std::uint32_t j : found_) {
        if (j != i) addCandidate(bodies, i, j, extra_);
      }
      if (s.closedWorld) addWalls(bodies, s, i, extra_);
      // The broad phase still holds the old boxes of balls grown earlier.
      for (const std::uint32_t other : grown) {
        if (other != i && touches(boxes[i], boxes[other])) addCandidate(bodies, i, other, extra_);
      }
    }
    std::sort(extra_.begin(), extra_.end());
    extra_.erase(std::unique(extra_.begin(), extra_.end()), extra_.end());
    std::erase_if(extra_, [&](const SolverContact& c) {
      return std::binary_search(contacts_.begin(), contacts_.end(), c);
    });
    const auto mid = static_cast<std::ptrdiff_t>(contacts_.size());
    contacts_.insert(contacts_.end(), extra_.begin(), extra_.end());
    std::inplace_merge(contacts_.begin(), contacts_.begin() + mid, contacts_.end());
  }

  for (std::size_t i = 0; i < n; ++i) {
    if (bodies.type[i] != BodyType::Ball) continue;
    bodies.px[i] += corrX_[i] + bodies.vx[i] * s.dt;
    bodies.py[i] += corrY_[i] + bodies.vy[i] * s.dt;
  }
  separate(bodies, s);
  result.impulses = impulses_;
  return result;
}

void Solver::separate(SolverBodies& bodies, const SolverSettings& s) {
  // Position-only projection: overlapping bodies are moved apart along the
  // contact normal in inverse proportion to their masses. Velocities are
  // untouched, so this neither adds nor removes kinetic energy, and the
  // mass-weighted shift sums to zero, so the centre of mass stays put.
  for (std::uint32_t pass = 0; pass < s.positionPasses; ++pass) {
    bool any = false;
    for (auto& c : contacts_) {
      if (c.b >= kWallBase) continue;
      const std::uint32_t a = c.a, b = c.b;
      const Circle ca{{bodies.px[a], bodies.py[a]}, bodies.radius[a]};
      std::optional<Contact> hit;
      if (bodies.type[b] == BodyType::Ball) {
        hit = collide(ca, Circle{{bodies.px[b], bodies.py[b]}, bodies.radius[b]});
      } else {
        hit = collide(ca, bodies.tightBox(b));
      }
      if (!hit || !(hit->depth > 0.0f)) continue;
      c.touched = true;
      any = true;
      const float ima = bodies.invMass[a], imb = bodies.invMass[b];
      const float shareA = ima / (ima + imb), shareB = imb / (ima + imb);
      bodies.px[a] -= hit->normal.x * hit->depth * shareA;
      bodies.py[a] -= hit->normal.y * hit->depth * shareA;
      bodies.px[b] += hit->normal.x * hit->depth * shareB;
      bodies.py[b] += hit->normal.y * hit->depth * shareB;
    }
    if (!any) break;
  }
  if (!s.closedWorld) return;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (bodies.type[i] != BodyType::Ball) continue;
    const float r = bodies.radius[i];
    bodies.px[i] = std::clamp(bodies.px[i], s.bounds.min.x + r, s.bounds.max.x - r);
    bodies.py[i] = std::clamp(bodies.py[i], s.bounds.min.y + r, s.bounds.max.y - r);
  }
}

}  // namespace quadbin
