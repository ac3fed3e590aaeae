// The narrow phase: contacts from candidate pairs, persistent from step to
// step, coloured incrementally (see contact_solver.hpp).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cmath>
#include <quadbin/narrowphase.hpp>

#include "bodies/ball_geometry.hpp"
#include "bodies/kinematic.hpp"
#include "bodies/solid.hpp"
#include "contacts/constraint_graph.hpp"
#include "contacts/contact.hpp"
#include "solver/contact_solver.hpp"

namespace quadbin {

using contacts::isWall;
using contacts::kColours;
using contacts::kSlop;
using contacts::sameBodies;
using contacts::wall;
using contacts::wallSide;

namespace {
// Work split: constants, never the thread count.
constexpr std::uint32_t kBodyGrain = 4096;     // bodies per range of element-wise loops
constexpr std::uint32_t kBodyChunk = 4096;     // bodies per task with an ordered output
constexpr std::uint32_t kPairChunk = 4096;     // candidate pairs per filtering task
constexpr std::uint32_t kContactChunk = 4096;  // contacts per task
constexpr std::uint32_t kEscapeeChunk = 64;    // escapees per re-query task
constexpr std::uint8_t kNewContact = 0xff;     // colour of a contact not yet coloured
constexpr std::uint32_t kGroups = ContactSolver::kGroups;
constexpr std::uint32_t kBuckets = kGroups * (kColours + 1);

// False when addWalls would add nothing (its tests negated: a NaN position
// adds nothing either way), so that the balls far from every wall cost no
// call.
bool nearWall(const BodyStore& bodies, const SolverSettings& s, std::uint32_t i, float margin) {
  const float reach = bodies.radius[i] * (1.0f + kSlop) + margin;
  const float x = bodies.px[i], y = bodies.py[i];
  return !(x - reach > s.bounds.min.x && x + reach < s.bounds.max.x && y - reach > s.bounds.min.y &&
           y + reach < s.bounds.max.y);
}
}  // namespace

std::uint32_t ContactSolver::wakeTouched(BodyStore& bodies, float dt, std::span<const Pair> pairs,
                                         TaskSystem& tasks) {
  const auto pairCount = static_cast<std::uint32_t>(pairs.size());
  indexBuffers_.reset(chunkCount(pairCount, kPairChunk));
  forEachChunk(
      tasks, pairCount, kPairChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t k = begin; k < end; ++k) {
          std::uint32_t i = pairs[k].a, j = pairs[k].b;
          if (bodies.awake[i] == bodies.awake[j]) continue;
          if ((bodies.sensor[i] | bodies.sensor[j]) != 0) continue;  // a sensor touches nothing
          if (bodies.awake[j] != 0) std::swap(i, j);                 // i awake, j not
          if (!bodies.isBall(j)) continue;                           // a static box sleeps forever
          const float gap = length(Vec2{bodies.px[j] - bodies.px[i], bodies.py[j] - bodies.py[i]}) -
                            bodies.radius[i] - bodies.radius[j];
          const float reach =
              length(Vec2{bodies.vx[i], bodies.vy[i]}) * dt + kSlop * bodies.radius[j];
          if (gap <= reach) indexBuffers_[c].push_back(j);
        }
      });
  std::uint32_t woke = 0;
  for (std::uint32_t c = 0; c < indexBuffers_.size(); ++c) {
    for (const std::uint32_t j : indexBuffers_[c]) woke += bodies.wakeIsland(j);
  }
  return woke;
}

template <class Emit>
void ContactSolver::addCandidate(const BodyStore& bodies, std::uint32_t i, std::uint32_t j,
                                 bool keepSleeping, Emit&& emit) const {
  if (!bodies.isBall(i)) std::swap(i, j);
  if (!bodies.isBall(i)) return;  // two static boxes
  const bool ballJ = bodies.isBall(j);
  // Only pairs with an awake ball; of two balls both awake, unless the
  // other is kept (an escapee's contacts: the sleeping ball wakes).
  const bool awakeI = bodies.awake[i] != 0, awakeJ = !ballJ || bodies.awake[j] != 0;
  if (keepSleeping ? !(awakeI || awakeJ) : !(awakeI && awakeJ)) return;
  const Vec2 c{bodies.px[i], bodies.py[i]};
  const float r = bodies.radius[i];
  float gap = 0.0f, reach = 0.0f;
  if (ballJ) {
    if (j < i) std::swap(i, j);
    gap = length(Vec2{bodies.px[j], bodies.py[j]} - c) - r - bodies.radius[j];
    reach = margin_[i] + margin_[j];
    if ((crowded_[i] | crowded_[j]) != 0) reach += kShiftReach * std::min(r, bodies.radius[j]);
  } else {
    gap = bodies.shape[j] == kNoHull ? length(c - closestPoint(bodies.tightBox(j), c)) - r
                                     : solid::touch(solid::of(bodies, j), c, r).gap;
    reach = margin_[i] + margin_[j] + kEscapeTolerance * r;  // margin_[j]: a kinematic body's
  }
  // Keep the pair when the gap can close within the step (with a little
  // slack for rounding, and the slop under which resting contacts count as
  // touching), for two balls in a crowd also by the shift passes.
  if (gap <= reach * 1.001f + kSlop * r) {
    if (filter.allows != nullptr && !filter.allows(filter.context, i, j)) return;
    emit(i, j);
  }
}

template <class Emit>
void ContactSolver::addWalls(const BodyStore& bodies, const SolverSettings& s, std::uint32_t i,
                             Emit&& emit) const {
  const float reach = bodies.radius[i] * (1.0f + kSlop) + margin_[i];
  if (bodies.px[i] - reach <= s.bounds.min.x) emit(i, wall(0));
  if (bodies.px[i] + reach >= s.bounds.max.x) emit(i, wall(1));
  if (bodies.py[i] - reach <= s.bounds.min.y) emit(i, wall(2));
  if (bodies.py[i] + reach >= s.bounds.max.y) emit(i, wall(3));
}

void ContactSolver::buildContacts(const BodyStore& bodies, const SolverSettings& s,
                                  std::span<const Pair> pairs, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  margin_.resize(n);
  markCrowded(s, n, tasks);
  const bool outlines = bodies.hullCount != 0;  // the common world reads no shape column
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      const bool moves = bodies.awake[i] != 0 || bodies.type[i] == BodyType::Kinematic;
      margin_[i] = moves ? length(Vec2{bodies.vx[i], bodies.vy[i]}) * s.dt : 0.0f;
      // A turning outline's farthest point also sweeps w reach dt.
      if (outlines && bodies.shape[i] != kNoHull && bodies.w[i] != 0.0f) {
        margin_[i] += std::abs(bodies.w[i]) * kinematic::reachOf(bodies, i) * s.dt;
      }
    }
  });
  // Contacts as sortable keys a << codeBits | code(b): bodies are coded as
  // themselves, walls as n + side, so the key order is the canonical order.
  codeBits_ = static_cast<unsigned>(std::bit_width(std::uint64_t{n} + 3));
  const unsigned codeBits = codeBits_;
  auto makeKey = [n, codeBits](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t code = isWall(b) ? std::uint64_t{n} + wallSide(b) : b;
    return (std::uint64_t{a} << codeBits) | code;
  };
  const auto pairCount = static_cast<std::uint32_t>(pairs.size());
  const std::uint32_t pairTasks = chunkCount(pairCount, kPairChunk);
  const std::uint32_t wallTasks = s.closedWorld ? chunkCount(n, kBodyChunk) : 0;
  keyBuffers_.reset(pairTasks + wallTasks);
  tasks.forkJoin(pairTasks + wallTasks, [&](std::uint32_t t) {
    std::vector<std::uint64_t>& out = keyBuffers_[t];
    auto emit = [&](std::uint32_t a, std::uint32_t b) { out.push_back(makeKey(a, b)); };
    if (t < pairTasks) {
      const std::uint32_t begin = t * kPairChunk, end = std::min(pairCount, begin + kPairChunk);
      for (std::uint32_t k = begin; k < end; ++k)
        addCandidate(bodies, pairs[k].a, pairs[k].b, false, emit);
    } else {
      const std::uint32_t begin = (t - pairTasks) * kBodyChunk,
                          end = std::min(n, begin + kBodyChunk);
      for (std::uint32_t i = begin; i < end; ++i) {
        if (bodies.awake[i] != 0 && nearWall(bodies, s, i, margin_[i])) {
          addWalls(bodies, s, i, emit);
        }
      }
    }
  });
  keyBuffers_.assignTo(tasks, keys_);
  parallelRadixSort(tasks, keys_, keyScratch_, radixCounts_, 2 * codeBits_);
  // A broad phase reports each pair once, so the keys are unique.
  const auto count = static_cast<std::uint32_t>(keys_.size());
  const std::span<Contact> contacts = store_.beginStep(count);
  const std::uint64_t mask = (std::uint64_t{1} << codeBits_) - 1;
  tasks.parallelFor(count, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint64_t key = keys_[k];
      const auto code = static_cast<std::uint32_t>(key & mask);
      const std::uint32_t b = code >= n ? wall(code - n) : code;
      contacts[k] = {static_cast<std::uint32_t>(key >> codeBits), b, 0.0f, kNewContact, 0, 0.0f};
    }
  });
  graph_.resize(n);
  store_.carryOver(graph_, tasks);
  // Only the contacts that began this step are coloured, serially in
  // canonical order (ConstraintGraph::colour).
  store_.forEachNew([&](Contact& c) { c.colour = graph_.colour(bodies, c.a, c.b); });
  buildRows(bodies, s, tasks);
}

namespace {
// Where a ball (centre pa, radius ra) meets a static or kinematic body b:
// the rare kinds, out of line so that makeRow stays small enough to inline.
struct BodyTouch {
  Vec2 n;
  float gap = 0.0f;
  Vec2 vb;
};
[[gnu::noinline]] BodyTouch touchBody(const BodyStore& bodies, std::uint32_t b, Vec2 pa, float ra) {
  if (bodies.type[b] == BodyType::Kinematic) {
    const kinematic::Touch t =
        kinematic::touch(bodies, b, {bodies.px[b], bodies.py[b]}, bodies.angle[b], pa, ra);
    return {t.normal, t.gap, {bodies.vx[b], bodies.vy[b]}};
  }
  const solid::Touch t = solid::touch(solid::of(bodies, b), pa, ra);
  return {t.normal, t.gap, {}};
}
}  // namespace

// Inlined into the row loop and written in place, every field once: a
// call per contact, its prologue and the copy of a returned row cost as
// much as the row itself.
[[gnu::always_inline]] inline void ContactSolver::makeRow(const BodyStore& bodies,
                                                          const SolverSettings& s, const Contact& c,
                                                          std::uint32_t k, Row& r) const {
  const std::uint32_t a = c.a, b = c.b;
  const Vec2 pa{bodies.px[a], bodies.py[a]};
  const float ra = bodies.radius[a];
  r.a = a;
  r.b = b;
  r.contact = k;
  r.checked = 0;
  r.ima = bodies.invMass[a];
  r.imb = 0.0f;
  Vec2 n{1.0f, 0.0f}, vb{};
  float gap = 0.0f, slop = kSlop * ra;
  if (isWall(b)) {
    const std::uint32_t side = wallSide(b);
    r.kind = kWall;
    const float sign = side % 2 == 0 ? -1.0f : 1.0f;
    n = side < 2 ? Vec2{sign, 0.0f} : Vec2{0.0f, sign};
    gap = s.wallGap(pa, ra, side);
  } else if (bodies.isBall(b)) {
    r.kind = kBall;
    r.imb = bodies.invMass[b];
    const Vec2 d = Vec2{bodies.px[b], bodies.py[b]} - pa;
    const float dist = length(d);
    n = dist > 0.0f ? d / dist : apartDirection(a, b);
    gap = dist - ra - bodies.radius[b];
    slop = kSlop * std::min(ra, bodies.radius[b]);
    vb = {bodies.vx[b], bodies.vy[b]};
  } else {
    r.kind = bodies.type[b] == BodyType::Kinematic ? kKinematic : kBox;
    const BodyTouch t = touchBody(bodies, b, pa, ra);
    n = t.n;
    gap = t.gap;
    vb = t.vb;
  }
  r.nx = n.x;
  r.ny = n.y;
  r.mEff = 1.0f / (r.ima + r.imb);
  const float vn = dot(vb - Vec2{bodies.vx[a], bodies.vy[a]}, n);
  // Touching contacts that approach slower than the restitution threshold
  // are the iterations'; collisions (faster) are impacts, exact.
  const bool touching = gap <= slop;
  // A contact that held something up in the last step (a pile, a stack)
  // stays resting whatever its speed: losing its impulse would drop what
  // it carries.
  const bool collision = vn < 0.0f && s.restitutionFor(-vn, s.restitutionOf(bodies, a, b)) > 0.0f &&
                         !(c.lambda > 0.0f);
  r.group = touching ? (collision ? kTouchingCollision : kResting) : kApart;
  r.touched = touching ? 1 : 0;
  r.target = gap > 0.0f ? -gap / s.dt : 0.0f;  // may close the gap, no more
  r.lambda = r.group == kResting ? c.lambda : 0.0f;
  r.shift = c.shift;
}

// Rows in colour order and, within a colour, by group (resting, touching
// collision, apart: the iterations visit only the first one or two): a
// stable counting sort by bucket kGroups colour + group, per-chunk counts,
// deterministic.
void ContactSolver::buildRows(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks) {
  const std::span<const Contact> contacts = store_.contacts();
  const auto count = static_cast<std::uint32_t>(contacts.size());
  const std::uint32_t chunks = chunkCount(count, kContactChunk);
  canonicalRows_.resize(count);
  chunkCounts_.assign(std::size_t{chunks} * kBuckets, 0);
  forEachChunk(tasks, count, kContactChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::uint32_t* h = chunkCounts_.data() + std::size_t{c} * kBuckets;
                 for (std::uint32_t k = begin; k < end; ++k) {
                   Row& r = canonicalRows_[k];
                   makeRow(bodies, s, contacts[k], k, r);
                   ++h[kGroups * contacts[k].colour + r.group];
                 }
               });
  bucketStart_.assign(kBuckets + 1, 0);
  bucketStart_[kBuckets] =
      chunkedBucketOffsets(chunkCounts_.data(), chunks, kBuckets, kBuckets, bucketStart_.data());
  colourCount_ = 0;
  for (std::uint32_t colour = 0; colour <= kColours; ++colour) {
    if (bucketStart_[std::size_t{kGroups} * (colour + 1)] >
        bucketStart_[std::size_t{kGroups} * colour]) {
      colourCount_ = colour + 1;
    }
  }
  rows_.resize(count);
  forEachChunk(tasks, count, kContactChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::uint32_t* cursor = chunkCounts_.data() + std::size_t{c} * kBuckets;
                 for (std::uint32_t k = begin; k < end; ++k) {
                   const Row& r = canonicalRows_[k];
                   rows_[cursor[kGroups * contacts[k].colour + r.group]++] = r;
                 }
               });
}

// The balls grown[firstNew..] outran their boxes: bigger boxes, queried
// against the broad phase (read-only, so in parallel); the contacts found
// that the step does not have yet become extra contacts, coloured and
// solved (serially, they are few) with the others from now on.
// (The narrow phase again, for the escapees findEscapees found last.)
void ContactSolver::lookAgain(BodyStore& bodies, const SolverSettings& s, const BroadPhase& broad,
                              std::vector<AABB>& boxes, TaskSystem& tasks) {
  const std::size_t firstNew = lookedAt_;
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
        std::vector<Contact>& out = extraBuffers_[c];
        auto emit = [&](std::uint32_t a, std::uint32_t b) { out.push_back({a, b, 0.0f, 0, 0}); };
        std::vector<std::uint32_t> found;
        // As filterPairs: filters and disabled bodies, when there are any.
        const bool filtered = filters != nullptr && (filters->active() || bodies.disabledCount > 0);
        auto collide = [&](std::uint32_t i, std::uint32_t j) {
          return !filtered || filters->keeps(bodies.enabled, i, j);
        };
        for (std::uint32_t k = begin; k < end; ++k) {
          const std::uint32_t i = newcomers[k];
          found.clear();
          broad.query(boxes[i], found);
          for (const std::uint32_t j : found) {
            if (j != i && collide(i, j)) addCandidate(bodies, i, j, true, emit);
          }
          if (s.closedWorld) addWalls(bodies, s, i, emit);
          // The broad phase still holds the old boxes of balls grown earlier.
          for (const std::uint32_t other : grown) {
            if (other != i && touches(boxes[i], boxes[other]) && collide(i, other)) {
              addCandidate(bodies, i, other, true, emit);
            }
          }
        }
      });
  std::vector<Contact>& batch = batch_;
  batch.clear();
  extraBuffers_.appendTo(tasks, batch);
  std::sort(batch.begin(), batch.end());
  batch.erase(std::unique(batch.begin(), batch.end(), sameBodies), batch.end());
  std::erase_if(batch, [&](const Contact& c) {
    const auto it = std::lower_bound(extraSorted_.begin(), extraSorted_.end(), c);
    return store_.contains(c) || (it != extraSorted_.end() && sameBodies(*it, c));
  });
  for (Contact& c : batch) {
    // A sleeping ball in the way wakes with its island (at rest, it moves
    // only if struck).
    if (!isWall(c.b) && bodies.isBall(c.b)) bodies.wakeIsland(c.b);
    c.colour = graph_.colour(bodies, c.a, c.b);
    Row r{};
    makeRow(bodies, s, c, 0, r);
    r.group = kApart;  // too late for the iterations: impacts only
    r.lambda = 0.0f;
    extra_.push_back(c);
    extraRows_.push_back(r);
  }
  const auto mid = static_cast<std::ptrdiff_t>(extraSorted_.size());
  extraSorted_.insert(extraSorted_.end(), batch.begin(), batch.end());
  std::inplace_merge(extraSorted_.begin(), extraSorted_.begin() + mid, extraSorted_.end());
}

void ContactSolver::restoreState(std::vector<Contact> contacts,
                                 std::vector<std::uint64_t> colourUse) noexcept {
  store_.restore(std::move(contacts));
  graph_.restore(std::move(colourUse));
  colourCount_ = 0;
  pushed_ = 0;
  impactsLeft_ = false;
}

}  // namespace quadbin
