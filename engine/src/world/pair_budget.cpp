// The pair limit kept at the door (pair_budget.hpp).
#include "world/pair_budget.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <atomic>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/world_def.hpp>

#include "bodies/kept_scratch.hpp"
#include "bodies/kinematic.hpp"
#include "bodies/outline.hpp"

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

bool PairBudget::mayPassLimit(std::uint64_t n) noexcept {
  return n > 1 && n * (n - 1) / 2 > limits::maxPairs(n);
}

std::uint64_t PairBudget::overlapsOf(const Env& env, const AABB& box, std::uint32_t self) {
  env.queries.refresh(env.bodies, *env.tasks);
  found_.clear();
  env.queries.candidates(box, static_cast<std::uint32_t>(env.bodies.size()), env.structure, found_);
  std::uint64_t count = 0;
  for (const std::uint32_t j : found_) {
    count += j != self && overlaps(box, env.bodies.tightBox(j)) ? 1u : 0u;
  }
  return count;
}

std::uint64_t PairBudget::knownCount(const Env& env) {
  if (known_) return *known_;
  const auto n = static_cast<std::uint64_t>(env.bodies.size());
  env.queries.refresh(env.bodies, *env.tasks);
  env.queries.refreshStructure(env.structure);  // the tasks below only read
  env.bodies.tightBoxes(boxes_, *env.tasks);
  const std::uint64_t cap = limits::maxPairs(n);
  const auto count = static_cast<std::uint32_t>(n);
  known_ = countPairs(boxes_, cap, *env.tasks, [&](const AABB& box, auto& found) {
    env.queries.candidates(box, count, env.structure, found);
  });
  return *known_;
}

void PairBudget::refuse(const Env& env, std::uint64_t total, std::uint64_t n,
                        const std::string& what) {
  env.refusals.refuse(fmt::format(
      "{} would give the world's bodies at least {} pairs of overlapping boxes, more than the "
      "pair limit of {} for {} bodies (limits::maxPairs: {} per body, at least {}; "
      "docs/limits.md), so that no step could be taken; nothing was changed: spread the bodies "
      "out",
      what, total, limits::maxPairs(n), n, limits::kMaxPairsPerBody, limits::kMinPairLimit));
}

void PairBudget::admitBody(const Env& env, const BodyDef& d) {
  const auto n = static_cast<std::uint64_t>(env.bodies.size()) + 1;
  if (!mayPassLimit(n)) {
    known_.reset();
    return;
  }
  const std::uint64_t added = overlapsOf(env, tightBoxOf(d), kNoBody);
  const std::uint64_t total = knownCount(env) + added;
  if (total > limits::maxPairs(n)) {
    refuse(env, total, n,
           fmt::format("createBody: a body at ({}, {}) overlapping the boxes of {} others",
                       d.position.x, d.position.y, added));
  }
  known_ = total;
}

void PairBudget::admitBodies(const Env& env, std::span<const BodyDef> defs) {
  const BodyStore& bodies = env.bodies;
  TaskSystem& tasks = *env.tasks;
  const auto n = static_cast<std::uint64_t>(bodies.size()) + defs.size();
  if (!mayPassLimit(n)) {
    known_.reset();
    return;
  }
  const std::uint64_t before = knownCount(env);
  const std::uint64_t cap = limits::maxPairs(n);
  // The new bodies among themselves, in a structure of their own.
  boxes_.resize(defs.size());
  tasks.parallelFor(static_cast<std::uint32_t>(defs.size()), 16384,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t k = begin; k < end; ++k) boxes_[k] = tightBoxOf(defs[k]);
                    });
  std::uint64_t total = before + countBoxPairs(boxes_, cap, env.tasks);
  // And each of them against the bodies already there.
  if (total <= cap && bodies.size() != 0) {
    env.queries.refresh(bodies, tasks);
    env.queries.refreshStructure(env.structure);
    const auto count = static_cast<std::uint32_t>(bodies.size());
    std::atomic<std::uint64_t> across{0};
    tasks.parallelFor(static_cast<std::uint32_t>(defs.size()), kCountGrain,
                      [&](std::uint32_t begin, std::uint32_t end) {
                        std::vector<std::uint32_t> found;
                        for (std::uint32_t k = begin; k < end; ++k) {
                          if (total + across.load(std::memory_order_relaxed) > cap) return;
                          found.clear();
                          env.queries.candidates(boxes_[k], count, env.structure, found);
                          std::uint64_t mine = 0;
                          for (const std::uint32_t j : found) {
                            mine += overlaps(boxes_[k], bodies.tightBox(j)) ? 1u : 0u;
                          }
                          if (mine != 0) across.fetch_add(mine, std::memory_order_relaxed);
                        }
                      });
    total += across.load(std::memory_order_relaxed);
  }
  if (total > cap) refuse(env, total, n, fmt::format("createBodies: {} bodies", defs.size()));
  known_ = total;
}

void PairBudget::admitMove(const Env& env, std::uint32_t i, const AABB& box, BodyId who,
                           std::string_view call) {
  const auto n = static_cast<std::uint64_t>(env.bodies.size());
  if (!mayPassLimit(n)) {
    known_.reset();
    return;
  }
  const std::uint64_t before = knownCount(env);
  const std::uint64_t leaving = overlapsOf(env, env.bodies.tightBox(i), i);
  const std::uint64_t total = before - std::min(before, leaving) + overlapsOf(env, box, i);
  if (total > limits::maxPairs(n)) {
    refuse(env, total, n,
           fmt::format("{}: {} at ({}, {})", call, describe(who), box.center().x, box.center().y));
  }
  known_ = total;
}

void PairBudget::admitMoves(const Env& env, std::span<const std::uint32_t> moving,
                            std::span<const AABB> boxes) {
  const BodyStore& bodies = env.bodies;
  TaskSystem& tasks = *env.tasks;
  const auto n = static_cast<std::uint64_t>(bodies.size());
  if (!mayPassLimit(n)) {
    known_.reset();
    return;
  }
  const std::uint64_t before = knownCount(env);
  const std::uint64_t cap = limits::maxPairs(n);
  // The moving bodies marked, and unmarked on the way out (a refusal
  // included): a call for a few bodies costs no pass over them all.
  if (moving_.size() < bodies.size()) moving_.resize(bodies.size(), 0);
  for (const std::uint32_t i : moving) moving_[i] = 1;
  const ClearedMarks unmark(moving_, moving);  // on every way out, an exception's too
  env.queries.refresh(bodies, tasks);
  env.queries.refreshStructure(env.structure);
  const auto count = static_cast<std::uint32_t>(bodies.size());
  // The pairs with a moving body now (a pair of two once, from its lower
  // index), and those of the new boxes with the bodies that stay.
  std::atomic<std::uint64_t> leaving{0}, coming{0};
  tasks.parallelFor(static_cast<std::uint32_t>(moving.size()), kCountGrain,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      std::vector<std::uint32_t> found;
                      std::uint64_t gone = 0, come = 0;
                      for (std::uint32_t k = begin; k < end; ++k) {
                        const std::uint32_t i = moving[k];
                        const AABB now = bodies.tightBox(i), to = boxes[k];
                        auto tally = [&](std::uint32_t j, bool old, bool fresh) {
                          if (j == i) return;
                          const AABB other = bodies.tightBox(j);
                          if (old && (moving_[j] == 0 || j > i) && overlaps(now, other)) ++gone;
                          if (fresh && moving_[j] == 0 && overlaps(to, other)) ++come;
                        };
                        found.clear();
                        if (overlaps(now, to)) {  // a short move: one query for both
                          const AABB both{
                              {std::min(now.min.x, to.min.x), std::min(now.min.y, to.min.y)},
                              {std::max(now.max.x, to.max.x), std::max(now.max.y, to.max.y)}};
                          env.queries.candidates(both, count, env.structure, found);
                          for (const std::uint32_t j : found) tally(j, true, true);
                          continue;
                        }
                        env.queries.candidates(now, count, env.structure, found);
                        for (const std::uint32_t j : found) tally(j, true, false);
                        found.clear();
                        env.queries.candidates(to, count, env.structure, found);
                        for (const std::uint32_t j : found) tally(j, false, true);
                      }
                      leaving.fetch_add(gone, std::memory_order_relaxed);
                      coming.fetch_add(come, std::memory_order_relaxed);
                    });
  // And the new boxes among themselves, in a structure of their own.
  const std::uint64_t among = countBoxPairs(boxes, cap, env.tasks);
  const std::uint64_t left = leaving.load(std::memory_order_relaxed);
  const std::uint64_t total =
      before - std::min(before, left) + coming.load(std::memory_order_relaxed) + among;
  if (total > cap) {
    refuse(env, total, n, fmt::format("setPositions: {} bodies moved", moving.size()));
  }
  known_ = total;
}

void PairBudget::forgetBody(const Env& env, std::uint32_t i) {
  if (!known_) return;
  const std::uint64_t leaving = overlapsOf(env, env.bodies.tightBox(i), i);
  *known_ -= std::min(*known_, leaving);
}

std::uint64_t PairBudget::checkRestored(const Env& env, const BodyStore& restored) {
  const auto n = static_cast<std::uint64_t>(restored.size());
  if (!mayPassLimit(n)) return 0;
  restored.tightBoxes(boxes_, *env.tasks);
  const std::uint64_t total = countBoxPairs(boxes_, limits::maxPairs(n), env.tasks);
  if (total > limits::maxPairs(n)) refuse(env, total, n, "World::restore: the snapshot's bodies");
  return total;
}

}  // namespace quadbin
