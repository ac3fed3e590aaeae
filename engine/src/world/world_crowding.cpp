// The pair limit kept at the door: createBody, createBodies, setPosition
// and restore refuse what would leave a world whose step the pair limit
// refuses (docs/limits.md, "The pair limit").
#include "world/world_impl.hpp"

namespace quadbin {

namespace {

constexpr std::uint32_t kCountGrain = 1024;  // bodies per counting task

// Pairs (i, j) of `boxes` with i < j and overlaps(boxes[i], boxes[j])
// (strict, as the broad phases report them), found by `query(box, found)`
// (a superset of the indices whose box touches `box`), counted in parallel
// until the count passes `cap`: the result is exact when it is at most
// `cap`, and some number above `cap` otherwise.
template <class Query>
std::uint64_t countPairs(std::span<const AABB> boxes, std::uint64_t cap, TaskSystem& tasks,
                         Query&& query) {
  std::atomic<std::uint64_t> total{0};
  tasks.parallelFor(static_cast<std::uint32_t>(boxes.size()), kCountGrain,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      std::vector<std::uint32_t> found;
                      for (std::uint32_t i = begin; i < end; ++i) {
                        if (total.load(std::memory_order_relaxed) > cap) return;
                        found.clear();
                        query(boxes[i], found);
                        std::uint64_t mine = 0;
                        for (const std::uint32_t j : found) {
                          mine += j > i && overlaps(boxes[i], boxes[j]) ? 1u : 0u;
                        }
                        if (mine != 0) total.fetch_add(mine, std::memory_order_relaxed);
                      }
                    });
  return total.load(std::memory_order_relaxed);
}

// countPairs over boxes not in the world, in a structure of their own.
std::uint64_t countBoxPairs(std::span<const AABB> boxes, std::uint64_t cap,
                            const std::shared_ptr<TaskSystem>& tasks) {
  auto index = makeBroadPhase(BroadPhaseType::Auto);
  index->setTaskSystem(tasks);
  index->update(boxes);
  return countPairs(boxes, cap, *tasks,
                    [&](const AABB& box, auto& found) { index->query(box, found); });
}

AABB tightBoxOf(const BodyDef& d) {
  const float r = kinematic::radiusOf(d);
  const Vec2 half = outline::halfExtentsOf(d, r);
  return {d.position - half, d.position + half};
}

}  // namespace

bool World::Impl::pairsMayPassLimit(std::uint64_t n) noexcept {
  return n > 1 && n * (n - 1) / 2 > limits::maxPairs(n);
}

std::uint64_t World::Impl::overlapsOf(const AABB& box, std::uint32_t self) {
  refreshQueryIndex();
  crowdFound.clear();
  candidates(box, crowdFound);
  std::uint64_t count = 0;
  for (const std::uint32_t j : crowdFound) {
    count += j != self && overlaps(box, bodies.tightBox(j)) ? 1u : 0u;
  }
  return count;
}

std::uint64_t World::Impl::knownPairCount() {
  if (knownPairs) return *knownPairs;
  const auto n = static_cast<std::uint64_t>(bodies.size());
  refreshQueryIndex();
  refreshQueryStructure();  // the tasks below only read
  bodies.tightBoxes(crowdBoxes, *tasks);
  const std::uint64_t cap = limits::maxPairs(n);
  knownPairs = countPairs(crowdBoxes, cap, *tasks,
                          [&](const AABB& box, auto& found) { candidates(box, found); });
  return *knownPairs;
}

void World::Impl::refusePairs(std::uint64_t total, std::uint64_t n, const std::string& what) {
  refuse(fmt::format(
      "{} would give the world's bodies at least {} pairs of overlapping boxes, more than the "
      "pair limit of {} for {} bodies (limits::maxPairs: {} per body, at least {}; "
      "docs/limits.md), so that no step could be taken; nothing was changed: spread the bodies "
      "out",
      what, total, limits::maxPairs(n), n, limits::kMaxPairsPerBody, limits::kMinPairLimit));
}

void World::Impl::admitBody(const BodyDef& d) {
  const auto n = static_cast<std::uint64_t>(bodies.size()) + 1;
  if (!pairsMayPassLimit(n)) {
    knownPairs.reset();
    return;
  }
  const std::uint64_t added = overlapsOf(tightBoxOf(d), kNone);
  const std::uint64_t total = knownPairCount() + added;
  if (total > limits::maxPairs(n)) {
    refusePairs(total, n,
                fmt::format("createBody: a body at ({}, {}) overlapping the boxes of {} others",
                            d.position.x, d.position.y, added));
  }
  knownPairs = total;
}

void World::Impl::admitBodies(std::span<const BodyDef> defs) {
  const auto n = static_cast<std::uint64_t>(bodies.size()) + defs.size();
  if (!pairsMayPassLimit(n)) {
    knownPairs.reset();
    return;
  }
  const std::uint64_t before = knownPairCount();
  const std::uint64_t cap = limits::maxPairs(n);
  // The new bodies among themselves, in a structure of their own.
  crowdBoxes.resize(defs.size());
  tasks->parallelFor(static_cast<std::uint32_t>(defs.size()), 16384,
                     [&](std::uint32_t begin, std::uint32_t end) {
                       for (std::uint32_t k = begin; k < end; ++k) {
                         crowdBoxes[k] = tightBoxOf(defs[k]);
                       }
                     });
  std::uint64_t total = before + countBoxPairs(crowdBoxes, cap, tasks);
  // And each of them against the bodies already there.
  if (total <= cap && bodies.size() != 0) {
    refreshQueryIndex();
    refreshQueryStructure();
    std::atomic<std::uint64_t> across{0};
    tasks->parallelFor(static_cast<std::uint32_t>(defs.size()), kCountGrain,
                       [&](std::uint32_t begin, std::uint32_t end) {
                         std::vector<std::uint32_t> found;
                         for (std::uint32_t k = begin; k < end; ++k) {
                           if (total + across.load(std::memory_order_relaxed) > cap) return;
                           found.clear();
                           candidates(crowdBoxes[k], found);
                           std::uint64_t mine = 0;
                           for (const std::uint32_t j : found) {
                             mine += overlaps(crowdBoxes[k], bodies.tightBox(j)) ? 1u : 0u;
                           }
                           if (mine != 0) across.fetch_add(mine, std::memory_order_relaxed);
                         }
                       });
    total += across.load(std::memory_order_relaxed);
  }
  if (total > cap) refusePairs(total, n, fmt::format("createBodies: {} bodies", defs.size()));
  knownPairs = total;
}

void World::Impl::admitMove(std::uint32_t i, const AABB& box) {
  const auto n = static_cast<std::uint64_t>(bodies.size());
  if (!pairsMayPassLimit(n)) {
    knownPairs.reset();
    return;
  }
  const std::uint64_t before = knownPairCount();
  const std::uint64_t leaving = overlapsOf(bodies.tightBox(i), i);
  const std::uint64_t total = before - std::min(before, leaving) + overlapsOf(box, i);
  if (total > limits::maxPairs(n)) {
    refusePairs(total, n,
                fmt::format("setPosition: {} at ({}, {})", describe(bodyIdAt(i)), box.center().x,
                            box.center().y));
  }
  knownPairs = total;
}

void World::Impl::forgetBody(std::uint32_t i) {
  if (!knownPairs) return;
  const std::uint64_t leaving = overlapsOf(bodies.tightBox(i), i);
  *knownPairs -= std::min(*knownPairs, leaving);
}

std::uint64_t World::Impl::checkRestoredPairs(const BodyStore& restored) {
  const auto n = static_cast<std::uint64_t>(restored.size());
  if (!pairsMayPassLimit(n)) return 0;
  restored.tightBoxes(crowdBoxes, *tasks);
  const std::uint64_t total = countBoxPairs(crowdBoxes, limits::maxPairs(n), tasks);
  if (total > limits::maxPairs(n)) refusePairs(total, n, "World::restore: the snapshot's bodies");
  return total;
}

}  // namespace quadbin
