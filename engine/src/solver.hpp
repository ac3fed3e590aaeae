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
//
// Threads. Contacts are coloured in canonical order so that no ball
// appears twice in one colour; a pass solves the colours one after the
// other and the contacts of one colour in parallel. Contacts of a colour
// touch disjoint balls, so the order inside a colour cannot change a bit of
// the result, and the colouring depends only on the contact list: the step
// is bit-identical for any thread count. Colours follow each ball's
// contacts in canonical order where they can (see colour()), so that the
// sweep is, as far as 64 colours allow, the serial canonical sweep. (Static
// boxes and walls are never written, so they may appear in many contacts
// of one colour.)

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/world.hpp>
#include <quadbin/tasks/parallel.hpp>
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
  void applyGravity(Vec2 g, float dt, TaskSystem& tasks) noexcept;
  /// Each ball's box grown by the distance it travels in dt; static boxes tight.
  void sweptBoxes(float dt, std::vector<AABB>& out, TaskSystem& tasks) const;
  /// Each body's tight box.
  void tightBoxes(std::vector<AABB>& out, TaskSystem& tasks) const;
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

  /// Keeps the candidate pairs that can touch within the step, adds wall
  /// contacts, and puts them in canonical order (so the result does not
  /// depend on the broad phase's order).
  void buildContacts(const SolverBodies& bodies, const SolverSettings& s,
                     std::span<const Pair> pairs, TaskSystem& tasks);
  /// Resolves the contacts, moves the balls to their end-of-step positions
  /// and separates overlaps. `boxes` are the swept boxes the broad phase
  /// holds; balls that end up faster than their box allowed are queried
  /// again with a bigger box.
  SolverResult solve(SolverBodies& bodies, const SolverSettings& s, const BroadPhase& broad,
                     std::vector<AABB>& boxes, TaskSystem& tasks);
  /// The contacts of the last solve, in canonical order.
  [[nodiscard]] std::span<const SolverContact> contacts() const noexcept { return contacts_; }
  /// Colours used by the last colouring (for tests and statistics).
  [[nodiscard]] std::uint32_t colourCount() const noexcept { return colourCount_; }

  bool warnedEscapes = false;

 private:
  // 64 colours from one 64-bit mask per ball; contacts that find all 64
  // taken go to a last group that is solved serially, in canonical order.
  static constexpr std::uint32_t kColours = 64;

  template <class Emit>
  void addCandidate(const SolverBodies& bodies, std::uint32_t i, std::uint32_t j,
                    Emit&& emit) const;
  template <class Emit>
  void addWalls(const SolverBodies& bodies, const SolverSettings& s, std::uint32_t i,
                Emit&& emit) const;
  void sortContacts(std::uint32_t bodyCount, TaskSystem& tasks);
  void colour(const SolverBodies& bodies, TaskSystem& tasks);
  /// Runs f(contact) over every contact, colour after colour, the contacts
  /// of a colour in parallel; returns how many calls returned true.
  template <class F>
  std::uint32_t forEachByColour(TaskSystem& tasks, F&& f);
  bool resolve(SolverBodies& bodies, const SolverSettings& s, SolverContact& c);
  bool resolveBalls(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                    std::uint32_t b);
  bool resolveBox(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                  std::uint32_t box);
  bool resolveWall(SolverBodies& bodies, const SolverSettings& s, std::uint32_t a,
                   std::uint32_t side);
  void applyImpulse(std::uint32_t i, Vec2 dv, float t, SolverBodies& bodies);
  void lookAgain(SolverBodies& bodies, const SolverSettings& s, const BroadPhase& broad,
                 std::vector<AABB>& boxes, std::size_t firstNew, TaskSystem& tasks);
  void separate(SolverBodies& bodies, const SolverSettings& s, TaskSystem& tasks);
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
  std::vector<std::uint32_t> escapees_;
  // Building: per-chunk outputs merged in chunk order, sorted as keys.
  OrderedBuffers<std::uint64_t> keyBuffers_;
  std::vector<std::uint64_t> keys_, keyScratch_;
  std::vector<std::uint32_t> radixCounts_;
  unsigned codeBits_ = 0;  // key = a << codeBits_ | code(b)
  OrderedBuffers<std::uint32_t> escapeBuffers_;
  OrderedBuffers<SolverContact> extraBuffers_;
  // Colouring: per ball the colours its contacts took; contacts grouped by
  // colour (canonical order inside a group).
  std::vector<std::uint64_t> used_;
  std::vector<std::uint8_t> next_;  // per ball: 1 + the last colour it took (0: none)
  std::vector<std::uint8_t> colourOf_;
  std::vector<std::uint32_t> colourStart_;  // kColours + 2 offsets into colourOrder_
  std::vector<std::uint32_t> colourOrder_;  // contact indices by colour
  std::uint32_t colourCount_ = 0;
};

}  // namespace quadbin
