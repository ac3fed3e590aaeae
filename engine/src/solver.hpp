#pragma once
// Internal to the engine: the bodies' arrays and the collision solver.
//
// The solver treats every collision as an elastic (restitution e) impulse
// between two bodies at the moment they touch, found exactly from the
// linear motion within the step (time of impact). An impulse at time t
// changes the velocity by dv and the end-of-step position by -dv * t, so the
// body travels to the contact point and leaves it with its new velocity.
// Each impulse exchanges momentum exactly and, for e = 1, keeps the kinetic
// energy exactly: a pair collision is the textbook elastic collision.
// Passes over the contact list repeat until no pair approaches, which
// also passes momentum along chains of touching balls (Newton's cradle).

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/world.hpp>
#include <span>
#include <vector>

namespace quadbin {

/// Dense structure of arrays: index i is the i-th body in creation order
/// (the last body fills a destroyed body's place).
struct SolverBodies {
  std::vector<float> px, py, vx, vy;
  std::vector<float> hx, hy;   // half extents of the tight box (r, r for balls)
  std::vector<float> radius;   // 0 for static boxes
  std::vector<float> mass;     // infinity for static boxes
  std::vector<float> invMass;  // 0 for static boxes
  std::vector<BodyType> type;

  [[nodiscard]] std::size_t size() const noexcept { return px.size(); }
  void push(BodyType t, Vec2 p, Vec2 v, Vec2 half, float r, float m);
  void swapRemove(std::uint32_t i);
  [[nodiscard]] AABB tightBox(std::uint32_t i) const noexcept {
    return {{px[i] - hx[i], py[i] - hy[i]}, {px[i] + hx[i], py[i] + hy[i]}};
  }
  void applyGravity(Vec2 g, float dt) noexcept;
  /// Each ball's box grown by the distance it travels in dt; static boxes tight.
  void sweptBoxes(float dt, std::vector<AABB>& out) const;
};

struct SolverSettings {
  float dt = 0.0f;
  float restitution = 1.0f;
  float restitutionThreshold = 0.0f;
  bool closedWorld = true;
  /// Restitution for a collision at relative normal speed `approach` (> 0).
  [[nodiscard]] float restitutionFor(float approach) const noexcept {
    return approach < restitutionThreshold ? 0.0f : restitution;
  }
  AABB bounds{};
  std::uint32_t passes = 1;
  std::uint32_t positionPasses = 0;
};

struct SolverResult {
  std::uint32_t impulses = 0;
  std::uint32_t unresolvedEscapes = 0;
};

/// A pair of touching bodies by (slot, generation), for contact events.
struct TouchKey {
  std::uint32_t slotA, genA, slotB, genB;
  friend constexpr bool operator<(const TouchKey& l, const TouchKey& r) noexcept {
    if (l.slotA != r.slotA) return l.slotA < r.slotA;
    if (l.slotB != r.slotB) return l.slotB < r.slotB;
    if (l.genA != r.genA) return l.genA < r.genA;
    return l.genB < r.genB;
  }
};

class Solver {
 public:
  /// Keeps the candidate pairs that can touch within the step, adds wall
  /// contacts, and puts them in canonical order (so the result does not
  /// depend on the broad phase's order).
  void buildContacts(const SolverBodies& bodies, const SolverSettings& s,
                     std::span<const Pair> pairs);
  /// Resolves the contacts, moves the balls to their end-of-step positions
  /// and separates overlaps. `boxes` are the swept boxes the broad phase
  /// holds; balls that end up faster than their box allowed are queried
  /// again with a bigger box.
  SolverResult solve(SolverBodies& bodies, const SolverSettings& s, const BroadPhase& broad,
                     std::vector<AABB>& boxes);
  /// Calls f(a, b) for each body pair that touched during the last solve.
  template <class F>
  void touchingPairs(F&& f) const {
    for (const auto& c : contacts_) {
      if (c.touched && c.b < kWallBase) f(c.a, c.b);
    }
  }

  bool warnedEscapes = false;

 private:
  static constexpr std::uint32_t kWallBase = UINT32_MAX - 4;  // b = kWallBase + side
  struct SolverContact {
    std::uint32_t a;  // a ball
    std::uint32_t b;  // a ball (> a), a static box, or kWallBase + side
    bool touched;
    friend constexpr bool operator<(const SolverContact& l, const SolverContact& r) noexcept {
      return l.a != r.a ? l.a < r.a : l.b < r.b;
    }
    friend constexpr bool operator==(const SolverContact& l, const SolverContact& r) noexcept {
      return l.a == r.a && l.b == r.b;
    }
  };

  void addCandidate(const SolverBodies& bodies, std::uint32_t i, std::uint32_t j,
                    std::vector<SolverContact>& out) const;
  void addWalls(const SolverBodies& bodies, const SolverSettings& s, std::uint32_t i,
                std::vector<SolverContact>& out) const;
  bool resolve(SolverBodies& bodies, const SolverSettings& s, SolverContact& c);
  bool resolveBalls(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                    std::uint32_t b);
  bool resolveBox(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                  std::uint32_t box);
  bool resolveWall(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                   std::uint32_t side);
  void applyImpulse(std::uint32_t i, Vec2 dv, float t, SolverBodies& bodies);
  void separate(SolverBodies& bodies, const SolverSettings& s);
  [[nodiscard]] Vec2 positionAt(const SolverBodies& bodies, std::uint32_t i,
                                float t) const noexcept {
    return {bodies.px[i] + corrX_[i] + bodies.vx[i] * t,
            bodies.py[i] + corrY_[i] + bodies.vy[i] * t};
  }

  std::vector<SolverContact> contacts_, extra_;
  std::vector<float> margin_;         // per ball: the travel its swept box allows
  std::vector<float> corrX_, corrY_;  // end-of-step position corrections
  std::vector<float> tLast_;          // time of the ball's last impulse in this step
  std::vector<float> maxSpeed_;       // fastest the ball went in this step
  std::vector<std::uint32_t> escapees_, found_;
  std::uint32_t impulses_ = 0;
};

}  // namespace quadbin
