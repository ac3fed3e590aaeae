#include "solver.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <optional>
#include <quadbin/narrowphase/contact.hpp>

namespace quadbin {

namespace {
// Rounds of "solve, then look again for balls that outran their box".
constexpr int kMaxRounds = 4;
// A ball may outrun its box by this fraction of its radius before it is
// looked at again: less than a radius cannot carry it through anything,
// and any overlap it causes is separated at the end of this or the next step.
constexpr float kEscapeTolerance = 0.5f;
// Work split: constants, never the thread count.
constexpr std::uint32_t kBodyGrain = 4096;     // bodies per range of element-wise loops
constexpr std::uint32_t kBodyChunk = 16384;    // bodies per task with an ordered output
constexpr std::uint32_t kPairChunk = 16384;    // candidate pairs per filtering task
constexpr std::uint32_t kContactGrain = 1024;  // contacts per range within a colour
constexpr std::uint32_t kEscapeeChunk = 64;    // escapees per re-query task
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

void SolverBodies::applyGravity(Vec2 g, float dt, TaskSystem& tasks) noexcept {
  if (g == Vec2{}) return;
  tasks.parallelFor(static_cast<std::uint32_t>(px.size()), kBodyGrain,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t i = begin; i < end; ++i) {
                        if (type[i] != BodyType::Ball) continue;
                        vx[i] += g.x * dt;
                        vy[i] += g.y * dt;
                      }
                    });
}

void SolverBodies::sweptBoxes(float dt, std::vector<AABB>& out, TaskSystem& tasks) const {
  out.resize(px.size());
  tasks.parallelFor(static_cast<std::uint32_t>(px.size()), kBodyGrain,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t i = begin; i < end; ++i) {
                        const float travel =
                            type[i] == BodyType::Ball ? std::hypot(vx[i], vy[i]) * dt : 0.0f;
                        out[i] = {{px[i] - hx[i] - travel, py[i] - hy[i] - travel},
                                  {px[i] + hx[i] + travel, py[i] + hy[i] + travel}};
                      }
                    });
}

void SolverBodies::tightBoxes(std::vector<AABB>& out, TaskSystem& tasks) const {
  out.resize(px.size());
  tasks.parallelFor(static_cast<std::uint32_t>(px.size()), kBodyGrain,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t i = begin; i < end; ++i) out[i] = tightBox(i);
                    });
}

template <class Emit>
void Solver::addCandidate(const SolverBodies& bodies, std::uint32_t i, std::uint32_t j,
                          Emit&& emit) const {
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
  if (gap <= reach * 1.001f + 1e-6f * r) emit(i, j);
}

template <class Emit>
void Solver::addWalls(const SolverBodies& bodies, const SolverSettings& s, std::uint32_t i,
                      Emit&& emit) const {
  const float reach = bodies.radius[i] + margin_[i];
  if (bodies.px[i] - reach <= s.bounds.min.x) emit(i, kWallBase + 0);
  if (bodies.px[i] + reach >= s.bounds.max.x) emit(i, kWallBase + 1);
  if (bodies.py[i] - reach <= s.bounds.min.y) emit(i, kWallBase + 2);
  if (bodies.py[i] + reach >= s.bounds.max.y) emit(i, kWallBase + 3);
}

void Solver::buildContacts(const SolverBodies& bodies, const SolverSettings& s,
                           std::span<const Pair> pairs, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  margin_.resize(n);
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      margin_[i] =
          bodies.type[i] == BodyType::Ball ? std::hypot(bodies.vx[i], bodies.vy[i]) * s.dt : 0.0f;
    }
  });
  // Contacts as sortable keys a << codeBits | code(b): bodies are coded as
  // themselves, walls as n + side, so the key order is the canonical order.
  codeBits_ = static_cast<unsigned>(std::bit_width(std::uint64_t{n} + 3));
  const unsigned codeBits = codeBits_;
  auto key = [n, codeBits](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t code = b >= kWallBase ? std::uint64_t{n} + (b - kWallBase) : b;
    return (std::uint64_t{a} << codeBits) | code;
  };
  const auto pairCount = static_cast<std::uint32_t>(pairs.size());
  const std::uint32_t pairTasks = chunkCount(pairCount, kPairChunk);
  const std::uint32_t wallTasks = s.closedWorld ? chunkCount(n, kBodyChunk) : 0;
  keyBuffers_.reset(pairTasks + wallTasks);
  tasks.forkJoin(pairTasks + wallTasks, [&](std::uint32_t t) {
    std::vector<std::uint64_t>& out = keyBuffers_[t];
    auto emit = [&](std::uint32_t a, std::uint32_t b) { out.push_back(key(a, b)); };
    if (t < pairTasks) {
      const std::uint32_t begin = t * kPairChunk, end = std::min(pairCount, begin + kPairChunk);
      for (std::uint32_t k = begin; k < end; ++k)
        addCandidate(bodies, pairs[k].a, pairs[k].b, emit);
    } else {
      const std::uint32_t begin = (t - pairTasks) * kBodyChunk,
                          end = std::min(n, begin + kBodyChunk);
      for (std::uint32_t i = begin; i < end; ++i) {
        if (bodies.type[i] == BodyType::Ball) addWalls(bodies, s, i, emit);
      }
    }
  });
  keys_.clear();
  keyBuffers_.appendTo(tasks, keys_);
  // Keys are unique (the broad phase reports each pair once), so the
  // sorted order is the one canonical order whatever the split.
  const unsigned keyBits = static_cast<unsigned>(std::bit_width(std::uint64_t{n})) + codeBits_;
  parallelRadixSort(tasks, keys_, keyScratch_, radixCounts_, keyBits);
  sortContacts(n, tasks);
}

// Decodes the sorted keys into contacts_.
void Solver::sortContacts(std::uint32_t bodyCount, TaskSystem& tasks) {
  const auto count = static_cast<std::uint32_t>(keys_.size());
  contacts_.resize(count);
  const std::uint64_t mask = (std::uint64_t{1} << codeBits_) - 1;
  const unsigned codeBits = codeBits_;
  tasks.parallelFor(count, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint64_t key = keys_[k];
      const auto code = static_cast<std::uint32_t>(key & mask);
      const std::uint32_t b = code >= bodyCount ? kWallBase + (code - bodyCount) : code;
      contacts_[k] = {static_cast<std::uint32_t>(key >> codeBits), b, false};
    }
  });
}

// Colours in canonical order. A contact takes the colour after the last
// one its balls took (its "level"): solving colour after colour then
// visits every ball's contacts in canonical order, which is exactly the
// serial Gauss-Seidel sweep of the canonical list, bit for bit. With
// bodies created in random spatial order the levels stay shallow (about 25
// for 100,000 balls); where a level would pass the 64 colours (long chains
// of consecutive indices), the contact takes the first colour both balls
// have free instead, and only there does the order differ from the serial
// sweep. Serial and O(contacts): it depends only on the list.
void Solver::colour(const SolverBodies& bodies, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const auto m = static_cast<std::uint32_t>(contacts_.size());
  used_.resize(n);
  next_.resize(n);
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    std::fill(used_.begin() + begin, used_.begin() + end, std::uint64_t{0});
    std::fill(next_.begin() + begin, next_.begin() + end, std::uint8_t{0});
  });
  colourOf_.resize(m);
  std::array<std::uint32_t, kColours + 2> counts{};
  for (std::uint32_t k = 0; k < m; ++k) {
    const SolverContact& c = contacts_[k];
    const bool ballB = c.b < kWallBase && bodies.type[c.b] == BodyType::Ball;
    const std::uint64_t taken = used_[c.a] | (ballB ? used_[c.b] : 0);
    const std::uint32_t level = std::max<std::uint32_t>(next_[c.a], ballB ? next_[c.b] : 0u);
    std::uint32_t colour = kColours;
    if (level < kColours && ((taken >> level) & 1u) == 0) {
      colour = level;
    } else if (taken != ~std::uint64_t{0}) {
      const std::uint64_t free = ~taken;
      const std::uint64_t above = level < kColours ? free & (~std::uint64_t{0} << level) : 0;
      colour = static_cast<std::uint32_t>(std::countr_zero(above != 0 ? above : free));
    }
    if (colour < kColours) {
      const std::uint64_t bit = std::uint64_t{1} << colour;
      used_[c.a] |= bit;
      next_[c.a] = static_cast<std::uint8_t>(colour + 1);
      if (ballB) {
        used_[c.b] |= bit;
        next_[c.b] = static_cast<std::uint8_t>(colour + 1);
      }
    }
    colourOf_[k] = static_cast<std::uint8_t>(colour);
    ++counts[colour + 1];
  }
  colourStart_.resize(kColours + 2);
  colourCount_ = 0;
  for (std::uint32_t k = 0; k <= kColours; ++k) {
    colourStart_[k] = counts[k];
    counts[k + 1] += counts[k];
    if (counts[k + 1] > counts[k]) colourCount_ = k + 1;
  }
  colourStart_[kColours + 1] = counts[kColours + 1];
  colourOrder_.resize(m);
  std::array<std::uint32_t, kColours + 1> cursor{};
  std::copy(colourStart_.begin(), colourStart_.begin() + kColours + 1, cursor.begin());
  for (std::uint32_t k = 0; k < m; ++k) colourOrder_[cursor[colourOf_[k]]++] = k;
}

template <class F>
std::uint32_t Solver::forEachByColour(TaskSystem& tasks, F&& f) {
  std::atomic<std::uint32_t> hits{0};
  for (std::uint32_t colour = 0; colour <= kColours; ++colour) {
    const std::uint32_t first = colourStart_[colour], last = colourStart_[colour + 1];
    if (first == last) continue;
    // One atomic add per range of contacts, never per contact.
    auto run = [&](std::uint32_t begin, std::uint32_t end) {
      std::uint32_t local = 0;
      for (std::uint32_t k = first + begin; k < first + end; ++k) {
        local += f(contacts_[colourOrder_[k]]) ? 1u : 0u;
      }
      if (local != 0) hits.fetch_add(local, std::memory_order_relaxed);
    };
    if (colour == kColours) {
      run(0, last - first);  // the overflow group shares balls: serially
    } else {
      tasks.parallelFor(last - first, kContactGrain, run);
    }
  }
  return hits.load(std::memory_order_relaxed);
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
  if (hit) c.touched = true;
  return hit;
}

SolverResult Solver::solve(SolverBodies& bodies, const SolverSettings& s, const BroadPhase& broad,
                           std::vector<AABB>& boxes, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  corrX_.resize(n);
  corrY_.resize(n);
  tLast_.resize(n);
  maxSpeed_.resize(n);
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      corrX_[i] = 0.0f;
      corrY_[i] = 0.0f;
      tLast_[i] = 0.0f;
      maxSpeed_[i] = std::hypot(bodies.vx[i], bodies.vy[i]);
    }
  });
  std::uint32_t impulses = 0;
  SolverResult result;
  std::vector<std::uint32_t>& grown = escapees_;  // every ball whose box grew this step
  grown.clear();

  for (int round = 0; round < kMaxRounds; ++round) {
    colour(bodies, tasks);
    for (std::uint32_t pass = 0; pass < s.passes; ++pass) {
      const std::uint32_t hits =
          forEachByColour(tasks, [&](SolverContact& c) { return resolve(bodies, s, c); });
      impulses += hits;
      if (hits == 0) break;
    }
    // Balls that collisions made faster than their swept box allowed may
    // reach bodies the broad phase did not pair them with: look again.
    const std::size_t firstNew = grown.size();
    escapeBuffers_.reset(chunkCount(n, kBodyChunk));
    forEachChunk(tasks, n, kBodyChunk,
                 [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                   for (std::uint32_t i = begin; i < end; ++i) {
                     if (bodies.type[i] != BodyType::Ball) continue;
                     if (maxSpeed_[i] * s.dt > margin_[i] + kEscapeTolerance * bodies.radius[i]) {
                       escapeBuffers_[c].push_back(i);
                     }
                   }
                 });
    escapeBuffers_.appendTo(tasks, grown);
    if (grown.size() == firstNew) break;
    if (round == kMaxRounds - 1) {
      result.unresolvedEscapes = static_cast<std::uint32_t>(grown.size() - firstNew);
      break;
    }
    lookAgain(bodies, s, broad, boxes, firstNew, tasks);
  }

  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (bodies.type[i] != BodyType::Ball) continue;
      bodies.px[i] += corrX_[i] + bodies.vx[i] * s.dt;
      bodies.py[i] += corrY_[i] + bodies.vy[i] * s.dt;
    }
  });
  separate(bodies, s, tasks);
  result.impulses = impulses;
  return result;
}

// The balls grown[firstNew..] outran their boxes: bigger boxes, queried
// against the broad phase (read-only, so in parallel), new contacts merged
// into the canonical list.
void Solver::lookAgain(SolverBodies& bodies, const SolverSettings& s, const BroadPhase& broad,
                       std::vector<AABB>& boxes, std::size_t firstNew, TaskSystem& tasks) {
  const std::vector<std::uint32_t>& grown = escapees_;
  const auto fresh = static_cast<std::uint32_t>(grown.size() - firstNew);
  const std::uint32_t* newcomers = grown.data() + firstNew;
  // First every new box, then the queries, so that each query sees all of them.
  tasks.parallelFor(fresh, kEscapeeChunk, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t i = newcomers[k];
      margin_[i] = maxSpeed_[i] * s.dt;
      boxes[i] = AABB::fromCircle({bodies.px[i], bodies.py[i]}, bodies.radius[i] + margin_[i]);
    }
  });
  extraBuffers_.reset(chunkCount(fresh, kEscapeeChunk));
  forEachChunk(
      tasks, fresh, kEscapeeChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
        std::vector<SolverContact>& out = extraBuffers_[c];
        auto emit = [&](std::uint32_t a, std::uint32_t b) { out.push_back({a, b, false}); };
        std::vector<std::uint32_t> found;
        for (std::uint32_t k = begin; k < end; ++k) {
          const std::uint32_t i = newcomers[k];
          found.clear();
          broad.query(boxes[i], found);
          for (const std::uint32_t j : found) {
            if (j != i) addCandidate(bodies, i, j, emit);
          }
          if (s.closedWorld) addWalls(bodies, s, i, emit);
          // The broad phase still holds the old boxes of balls grown earlier.
          for (const std::uint32_t other : grown) {
            if (other != i && touches(boxes[i], boxes[other])) {
              addCandidate(bodies, i, other, emit);
            }
          }
        }
      });
  extra_.clear();
  extraBuffers_.appendTo(tasks, extra_);
  std::sort(extra_.begin(), extra_.end());
  extra_.erase(std::unique(extra_.begin(), extra_.end()), extra_.end());
  std::erase_if(extra_, [&](const SolverContact& c) {
    return std::binary_search(contacts_.begin(), contacts_.end(), c);
  });
  const auto mid = static_cast<std::ptrdiff_t>(contacts_.size());
  contacts_.insert(contacts_.end(), extra_.begin(), extra_.end());
  std::inplace_merge(contacts_.begin(), contacts_.begin() + mid, contacts_.end());
}

void Solver::separate(SolverBodies& bodies, const SolverSettings& s, TaskSystem& tasks) {
  // Position-only projection: overlapping bodies are moved apart along the
  // contact normal in inverse proportion to their masses. Velocities are
  // untouched, so this neither adds nor removes kinetic energy, and the
  // mass-weighted shift sums to zero, so the centre of mass stays put.
  // By colour, like the impulses: a ball is moved by one contact at a time.
  for (std::uint32_t pass = 0; pass < s.positionPasses; ++pass) {
    const std::uint32_t moved = forEachByColour(tasks, [&](SolverContact& c) {
      if (c.b >= kWallBase) return false;
      const std::uint32_t a = c.a, b = c.b;
      const Circle ca{{bodies.px[a], bodies.py[a]}, bodies.radius[a]};
      std::optional<Contact> hit;
      const bool ballB = bodies.type[b] == BodyType::Ball;
      if (ballB) {
        hit = collide(ca, Circle{{bodies.px[b], bodies.py[b]}, bodies.radius[b]});
      } else {
        hit = collide(ca, bodies.tightBox(b));
      }
      if (!hit || !(hit->depth > 0.0f)) return false;
      c.touched = true;
      const float ima = bodies.invMass[a], imb = bodies.invMass[b];
      const float shareA = ima / (ima + imb), shareB = imb / (ima + imb);
      bodies.px[a] -= hit->normal.x * hit->depth * shareA;
      bodies.py[a] -= hit->normal.y * hit->depth * shareA;
      if (ballB) {  // static boxes never move (and may be in many contacts of a colour)
        bodies.px[b] += hit->normal.x * hit->depth * shareB;
        bodies.py[b] += hit->normal.y * hit->depth * shareB;
      }
      return true;
    });
    if (moved == 0) break;
  }
  if (!s.closedWorld) return;
  tasks.parallelFor(
      static_cast<std::uint32_t>(bodies.size()), kBodyGrain,
      [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) {
          if (bodies.type[i] != BodyType::Ball) continue;
          const float r = bodies.radius[i];
          bodies.px[i] = std::clamp(bodies.px[i], s.bounds.min.x + r, s.bounds.max.x - r);
          bodies.py[i] = std::clamp(bodies.py[i], s.bounds.min.y + r, s.bounds.max.y - r);
        }
      });
}

}  // namespace quadbin
