// The narrow phase: contacts from candidate pairs, persistent from step to
// step, coloured incrementally (see contact_set.hpp).
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
#include "contacts/contact_set.hpp"
#include "contacts/contact_set_inl.hpp"

namespace quadbin {

using contacts::isWall;
using contacts::kColours;
using contacts::kSlop;
using contacts::wall;
using contacts::wallSide;
using contacts::warmable;

namespace {
// Work split: constants, never the thread count.
constexpr std::uint32_t kSetBodyChunk = 4096;  // bodies per task with an ordered output
constexpr std::uint32_t kPairChunk = 4096;     // candidate pairs per filtering task
// Contacts per task of the rows' counting sort: about 64 tasks, from 1,024
// contacts (a 100,000-ball gas has some 10,000 contacts, which 4,096 cut
// into three tasks) to 4,096 (a crowd's hundreds of thousands), by the
// count alone: the rows come out in the same order whatever the chunks.
constexpr std::uint32_t kRowChunkMin = 1024, kRowChunkMax = 4096, kRowChunks = 64;
constexpr std::uint8_t kNewContact = 0xff;  // colour of a contact not yet coloured
constexpr std::uint32_t kGroups = StepRows::kGroups;
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

std::uint32_t ContactSet::wakeTouched(BodyStore& bodies, float dt, std::span<const Pair> pairs,
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

void ContactSet::build(const BodyStore& bodies, const SolverSettings& s,
                       std::span<const Pair> pairs, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  step_.margin.resize(n);
  markCrowded(s, n, tasks);
  const bool outlines = bodies.hullCount != 0;  // the common world reads no shape column
  tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      const bool moves = bodies.awake[i] != 0 || bodies.type[i] == BodyType::Kinematic;
      step_.margin[i] = moves ? length(Vec2{bodies.vx[i], bodies.vy[i]}) * s.dt : 0.0f;
      // A turning outline's farthest point also sweeps w reach dt.
      if (outlines && bodies.shape[i] != kNoHull && bodies.w[i] != 0.0f) {
        step_.margin[i] += std::abs(bodies.w[i]) * kinematic::reachOf(bodies, i) * s.dt;
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
  const std::uint32_t wallTasks = s.closedWorld ? chunkCount(n, kSetBodyChunk) : 0;
  keyBuffers_.reset(pairTasks + wallTasks);
  tasks.forkJoin(pairTasks + wallTasks, [&](std::uint32_t t) {
    std::vector<std::uint64_t>& out = keyBuffers_[t];
    auto emit = [&](std::uint32_t a, std::uint32_t b) { out.push_back(makeKey(a, b)); };
    if (t < pairTasks) {
      const std::uint32_t begin = t * kPairChunk, end = std::min(pairCount, begin + kPairChunk);
      for (std::uint32_t k = begin; k < end; ++k)
        addCandidate(bodies, pairs[k].a, pairs[k].b, false, emit);
    } else {
      const std::uint32_t begin = (t - pairTasks) * kSetBodyChunk,
                          end = std::min(n, begin + kSetBodyChunk);
      for (std::uint32_t i = begin; i < end; ++i) {
        if (bodies.awake[i] != 0 && nearWall(bodies, s, i, step_.margin[i])) {
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
  auto decode = [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint64_t key = keys_[k];
      const auto code = static_cast<std::uint32_t>(key & mask);
      const std::uint32_t b = code >= n ? wall(code - n) : code;
      contacts[k] = {static_cast<std::uint32_t>(key >> codeBits), b, 0.0f, kNewContact, 0, 0.0f};
    }
  };
  graph_.resize(n);
  store_.carryOver(graph_, bodies, tasks, decode);  // the contacts decoded in its tasks
  // Only the contacts that began this step are coloured (ConstraintGraph::colour).
  store_.colourNew(graph_, bodies, tasks);
  buildRows(bodies, s, tasks);
}

// Rows in colour order and, within a colour, by group (resting, touching
// collision, apart: the iterations visit only the first one or two): a
// stable counting sort by bucket kGroups colour + group, per-chunk counts,
// deterministic.
void ContactSet::buildRows(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks) {
  const std::span<const Contact> contacts = store_.contacts();
  const auto count = static_cast<std::uint32_t>(contacts.size());
  const std::uint32_t rowChunk = chunkSizeFor(count, kRowChunks, kRowChunkMin, kRowChunkMax);
  const std::uint32_t chunks = chunkCount(count, rowChunk);
  canonicalRows_.resize(count);
  chunkCounts_.assign(std::size_t{chunks} * kBuckets, 0);
  forEachChunk(tasks, count, rowChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::uint32_t* h = chunkCounts_.data() + std::size_t{c} * kBuckets;
                 for (std::uint32_t k = begin; k < end; ++k) {
                   Row& r = canonicalRows_[k];
                   makeRow(bodies, s, contacts[k], k, r);
                   ++h[kGroups * contacts[k].colour + r.group];
                 }
               });
  step_.bucketStart.assign(kBuckets + 1, 0);
  step_.bucketStart[kBuckets] = chunkedBucketOffsets(chunkCounts_.data(), chunks, kBuckets,
                                                     kBuckets, step_.bucketStart.data());
  colourCount_ = 0;
  for (std::uint32_t colour = 0; colour <= kColours; ++colour) {
    if (step_.bucketStart[std::size_t{kGroups} * (colour + 1)] >
        step_.bucketStart[std::size_t{kGroups} * colour]) {
      colourCount_ = colour + 1;
    }
  }
  step_.rows.resize(count);
  forEachChunk(tasks, count, rowChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::uint32_t* cursor = chunkCounts_.data() + std::size_t{c} * kBuckets;
                 for (std::uint32_t k = begin; k < end; ++k) {
                   const Row& r = canonicalRows_[k];
                   step_.rows[cursor[kGroups * contacts[k].colour + r.group]++] = r;
                 }
               });
}

// A ball is in a crowd when one of its contacts came out of the last step
// with a shift impulse: the shift passes pushed it, and will again. Read
// from the contacts (a snapshot keeps them), in chunks in parallel: every
// write stores the same 1, so the order does not matter.
void ContactSet::markCrowded(const SolverSettings& s, std::uint32_t n, TaskSystem& tasks) {
  crowded_.assign(n, 0);
  if (s.restitutionThreshold > 0.0f) return;  // piles: the shift passes aim for touching
  std::uint8_t* crowded = crowded_.data();
  const Contact* contacts = store_.contacts().data();
  forEachChunk(
      tasks, static_cast<std::uint32_t>(store_.contacts().size()), kContactChunk,
      [=](std::uint32_t, std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t k = begin; k < end; ++k) {
          const Contact& c = contacts[k];
          if (!(c.shift > 0.0f) || c.a >= n) continue;
          std::atomic_ref<std::uint8_t>(crowded[c.a]).store(1, std::memory_order_relaxed);
          if (c.b < n) {
            std::atomic_ref<std::uint8_t>(crowded[c.b]).store(1, std::memory_order_relaxed);
          }
        }
      });
}

void ContactSet::store(const SolverSettings& s, TaskSystem& tasks) {
  const bool corrected = s.positionPasses > 0;
  // What persists: the iterations' impulses and whether the pair touched;
  // then the extra contacts join the canonical list.
  // In the colour loop's split, as the rows were solved (correctPositions);
  // the hits are the pushed rows.
  const std::span<Contact> contacts = store_.contacts();
  pushed_ = step_.forEachRow(tasks, StepRows::kApart, [&](const Row& r) {
    const std::size_t k = step_.rowIndex(r);
    Contact& c = contacts[r.contact];
    const float im = std::max(r.ima, r.imb);
    // The shock pass's part is this step's alone (see velocity_shock.cpp).
    c.lambda = warmable(s.friction ? r.lambda - step_.frictionRows[k].shock : r.lambda, im);
    c.shift = warmable(corrected ? step_.shiftRows[k].shift : r.shift, im);
    c.tangent = s.friction ? step_.frictionRows[k].lambda : 0.0f;
    c.rolling = s.friction ? step_.frictionRows[k].rollLambda : 0.0f;
    c.touched = r.touched;
    return r.lambda > 0.0f;
  });
  if (step_.extra.empty()) return;
  for (std::size_t k = 0; k < step_.extra.size(); ++k) {
    step_.extra[k].touched = step_.extraRows[k].touched;
    step_.extra[k].shift = warmable(step_.extraRows[k].shift,
                                    std::max(step_.extraRows[k].ima, step_.extraRows[k].imb));
  }
  store_.merge(step_.extra, tasks);
}

void ContactSet::restoreState(std::vector<Contact> contacts,
                              std::vector<std::uint64_t> colourUse) noexcept {
  store_.restore(std::move(contacts));
  graph_.restore(std::move(colourUse));
  colourCount_ = 0;
  pushed_ = 0;
}

}  // namespace quadbin
