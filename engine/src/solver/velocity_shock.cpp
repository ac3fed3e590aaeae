// Shock propagation for resting contacts under gravity (see
// docs/physics.md, "Tall piles"): one last sweep over the resting rows,
// bottom-up along gravity, each treating its lower body as fixed.
#include <bit>
#include <cmath>

#include "solver/velocity_solver.hpp"

namespace quadbin {

using contacts::kColours;
using enum StepRows::Kind;
using enum StepRows::Group;
constexpr std::uint32_t kGroups = StepRows::kGroups;

namespace {

// A ball that its supports launch upward faster than this fraction of the
// restitution threshold has its push taken back (the column's bounce);
// slower, pushes are kept: taking them back lets a ball creep off its
// supports, step after step, and a pile never sleeps.
constexpr float kRising = 0.25f;

// A float's bits, mapped so that unsigned order is numeric order.
std::uint64_t orderedBits(float h) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(h);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

}  // namespace

// The resting rows in height order (the lower body's height along -gravity,
// then the row index: deterministic); false where there is no shock pass
// (no gravity, no restitution threshold or no friction: elastic worlds keep
// their exact impulses).
bool VelocitySolver::orderForShock(const BodyStore& bodies, const SolverSettings& s,
                                   TaskSystem& tasks) {
  if (!shockPasses(s)) return false;
  const Vec2 up = s.gravity * (-1.0f / length(s.gravity));
  BallState* st = step_.state.data();
  auto height = [st, up](std::uint32_t i) { return dot(st[i].p, up); };
  // Key: the height's ordered bits above the row index, as few bits as
  // the rows need (fewer radix passes).
  shockRowBits_ = static_cast<unsigned>(std::bit_width(step_.rows.size()));
  shockKeys_.clear();
  for (std::uint32_t colour = 0; colour <= kColours; ++colour) {
    const std::uint32_t first = step_.bucketStart[std::size_t{kGroups} * colour];
    const std::uint32_t last = step_.bucketStart[std::size_t{kGroups} * colour + kResting + 1];
    for (std::uint32_t k = first; k < last; ++k) {
      const Row& r = step_.rows[k];
      // Frictionless contacts keep the sweeps alone: a push along a slanted
      // normal that nothing holds sideways sets the upper ball sliding, and
      // a frictionless pile never comes to rest.
      if (step_.frictionRows[k].mu == 0.0f) continue;
      // A ball's support that is not a ball (a wall, a box, a kinematic
      // body) comes before the rows the ball supports.
      const float h =
          r.kind == kBall ? std::min(height(r.a), height(r.b)) : height(r.a) - bodies.radius[r.a];
      shockKeys_.push_back(orderedBits(h) << shockRowBits_ | k);
    }
  }
  parallelRadixSort(tasks, shockKeys_, shockScratch_, shockCounts_, 32 + shockRowBits_);
  return true;
}

// The sweeps carry a change a few rows per step, so a tall pile (100 rows
// and more) keeps sinking into itself and bouncing back on the impulses
// it stored while it landed. With each lower body fixed, the resting rows
// form a triangular system that one pass in height order solves: the
// floor stops the bottom row, then each row stops approaching the one
// below it, and a ball launched upward is held back by its supports'
// impulses. What the pass adds or takes back is this step's alone: the
// contact keeps it for the rest of the step (the impacts and the position
// correction see a loaded contact), but the next step is warm started
// from the sweeps' impulse only. The pass moves the upper ball alone, and
// its impulse, warm started on both balls the next step, pushed the upper
// one up and the lower one down: a landed pile's top rose at 5 units/s
// while its middle sank, for a second (docs/physics.md, "Tall piles").
void VelocitySolver::propagateShock(const SolverSettings& s) {
  const Vec2 up = s.gravity * (-1.0f / length(s.gravity));
  BallState* st = step_.state.data();
  auto height = [st, up](std::uint32_t i) { return dot(st[i].p, up); };
  const std::uint64_t rowMask = (std::uint64_t{1} << shockRowBits_) - 1;
  for (const std::uint64_t key : shockKeys_) {
    const auto k = static_cast<std::uint32_t>(key & rowMask);
    Row& r = step_.rows[k];
    const bool ball = r.kind == kBall;
    const Vec2 va = st[r.a].v;
    const Vec2 vb = ball || r.kind == kKinematic ? st[r.b].v : Vec2{};
    const float vn = (vb.x - va.x) * r.nx + (vb.y - va.y) * r.ny;
    // Only the upper ball moves (a, where b is not a ball or is lower).
    const bool moveB = ball && r.imb > 0.0f && height(r.a) <= height(r.b);
    const bool rising = dot(moveB ? vb : va, up) > kRising * s.restitutionThreshold;
    if (vn >= r.target && !rising) continue;
    const float d = std::max((r.target - vn) / (moveB ? r.imb : r.ima), -r.lambda);
    if (d == 0.0f) continue;
    r.lambda += d;
    step_.frictionRows[k].shock = d;
    const Vec2 p{r.nx * d, r.ny * d};
    if (moveB) {
      st[r.b].v = vb + p * r.imb;
    } else {
      st[r.a].v = va - p * r.ima;
    }
  }
}

}  // namespace quadbin
