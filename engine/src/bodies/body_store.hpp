#pragma once
// Internal to the engine: the world's bodies as a structure of arrays.
//
// Index i is the i-th body in creation order (the last body fills a
// destroyed body's place). Static boxes live in the same arrays with
// infinite mass and zero velocity, so a contact can name either kind by
// index. Sleeping balls keep their place; `awake` says which balls the step
// simulates, and the sleeping ones of one island are linked in a list
// (islandNext/islandPrev) so that touching one wakes them all.

#include <array>
#include <cstdint>
#include <quadbin/engine/body.hpp>
#include <quadbin/narrowphase.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <vector>

#include "bodies/permutation.hpp"
#include "bodies/validate.hpp"

namespace quadbin {

inline constexpr std::uint32_t kNoBody = UINT32_MAX;
inline constexpr std::uint32_t kNoHull = UINT32_MAX;

struct BodyStore {
  std::vector<float> px, py, vx, vy;
  std::vector<float> w;         // angular velocity, rad/s (counter-clockwise); 0 for static boxes
  std::vector<float> angle;     // radians in [-pi, pi]: how far a ball has turned
  std::vector<float> friction;  // Coulomb friction coefficient, >= 0
  std::vector<float> rolling;   // rolling resistance, >= 0
  std::vector<float> hx, hy;    // half extents of the tight box (r, r for balls)
  std::vector<float> radius;    // 0 for static boxes
  std::vector<float> mass;      // infinity for static boxes
  std::vector<float> invMass;   // 0 for static boxes
  std::vector<BodyType> type;
  std::vector<std::uint8_t> awake;  // 1: a ball the step simulates
  std::vector<float> restTime;      // seconds the ball has been slower than the sleep threshold
  // Materials, damping and forces (forces.cpp): restitution (the world's
  // unless the def set one), damping per second, and the force accumulated
  // for the next step (cleared by it).
  std::vector<float> restitution, linearDamping, angularDamping, fx, fy;
  std::uint32_t dampedBalls = 0;  // balls with linear or angular damping > 0
  // What of the world's gravity a ball feels (BodyDef::gravityScale, 1 by
  // default; other bodies keep theirs but feel none).
  std::vector<float> gravityScale;
  std::uint32_t scaledBalls = 0;  // balls whose gravityScale is not 1
  void setGravityScale(std::uint32_t i, float s) noexcept {
    if (isBall(i)) scaledBalls += (s != 1.0f ? 1u : 0u) - (gravityScale[i] != 1.0f ? 1u : 0u);
    gravityScale[i] = s;
  }
  bool forcesPending = false;  // some body has a nonzero accumulated force
  // Sleeping islands as circular doubly linked lists (kNoBody when awake).
  std::vector<std::uint32_t> islandNext, islandPrev;
  float maxRadius = 0.0f;            // the largest ball's radius (0 without balls)
  std::uint32_t maxRadiusCount = 0;  // bodies of that radius: a rescan only when none is left
  // A body of radius r came (or got r); one of radius r went (or left r):
  // maxRadius and maxRadiusCount follow, the column rescanned only when
  // the last body of the largest radius goes.
  void noteRadius(float r) noexcept {
    if (r > maxRadius) {
      maxRadius = r;
      maxRadiusCount = 1;
    } else if (r == maxRadius) {
      ++maxRadiusCount;
    }
  }
  void dropRadius(float r) noexcept {
    if (r == maxRadius && --maxRadiusCount == 0) recountMaxRadius();
  }
  // maxRadius and maxRadiusCount from the radius column.
  void recountMaxRadius() noexcept;
  std::uint32_t boxCount = 0;       // static boxes
  std::uint32_t frictionBalls = 0;  // balls with friction > 0: the solver's friction is on
  // Sensors (BodyDef::isSensor; sensor_set.hpp): 1 for a sensor. push, set
  // and resize make 0; setSensor keeps sensorCount right.
  std::vector<std::uint8_t> sensor;
  std::uint32_t sensorCount = 0;
  // Outlines (BodyDef::outline: segments, chains' segments, polygons): a
  // static or kinematic body's index into `hulls`, kNoHull for balls and
  // axis-aligned boxes. hx, hy then hold a box centred on the position that
  // holds the hull. Freed slots are listed in freeHulls for the next.
  std::vector<std::uint32_t> shape;
  std::vector<Hull> hulls;
  std::vector<std::uint32_t> freeHulls;
  std::uint32_t hullCount = 0;  // bodies with a hull
  [[nodiscard]] const Hull* hullOf(std::uint32_t i) const noexcept {
    return shape[i] == kNoHull ? nullptr : &hulls[shape[i]];
  }
  /// Room for `count` more hulls: setHull then allocates nothing.
  void reserveHulls(std::size_t count);
  /// Gives body i the hull h (replacing any it had).
  void setHull(std::uint32_t i, const Hull& h);
  /// Body i's hull, if any, is freed; it becomes an axis-aligned box.
  void clearHull(std::uint32_t i) noexcept;
  void setSensor(std::uint32_t i, bool on) noexcept {
    sensorCount = sensorCount - sensor[i] + (on ? 1u : 0u);
    sensor[i] = on ? 1 : 0;
  }

  [[nodiscard]] std::size_t size() const noexcept { return px.size(); }
  [[nodiscard]] bool isBall(std::uint32_t i) const noexcept { return type[i] == BodyType::Ball; }
  /// A circle (a ball, or a kinematic ball): otherwise an axis-aligned box.
  [[nodiscard]] bool isCircle(std::uint32_t i) const noexcept { return radius[i] > 0.0f; }
  void push(BodyType t, Vec2 p, Vec2 v, Vec2 half, float r, float m, float mu, float roll);
  /// Makes body i of type t, as push would (World::setType): a ball of
  /// mass m (awake, if enabled), or a static or kinematic body of infinite
  /// mass with no damping or force (a static box also stops); keeps the
  /// counts right.
  void setType(std::uint32_t i, BodyType t, float m) noexcept;
  /// Sets body i's friction coefficient (keeps frictionBalls right).
  void setFriction(std::uint32_t i, float mu) noexcept;
  /// Sets body i's restitution and damping (keeps dampedBalls right).
  void setMaterial(std::uint32_t i, float e, float linear, float angular) noexcept;
  /// Room for `count` bodies in every array (createBodies: one growth,
  /// geometric, so that many small calls stay amortised O(1)).
  void reserve(std::size_t count);
  /// The room renumber(p, ...) may use (it cannot allocate): for a
  /// renumbering that moves few bodies, their island links.
  void reserveRenumber(const Permutation& p);
  /// createBodies' bulk path: resize(n) makes room (no allocation after
  /// reserve(n)), set(i, ...) writes body i as push would (any order, in
  /// parallel), and finishBulk(from) updates maxRadius, boxCount and
  /// frictionBalls for the bodies from index `from` on.
  void resize(std::size_t count);
  void set(std::uint32_t i, BodyType t, Vec2 p, Vec2 v, Vec2 half, float r, float m, float mu,
           float roll) noexcept;
  void finishBulk(std::size_t from) noexcept;
  /// Removes body i; the last body takes its index. The caller wakes i's
  /// island first.
  void swapRemove(std::uint32_t i);
  /// Renumbers the bodies in place (p applied or undone); the island links
  /// follow.
  void renumber(const Permutation& p, Permutation::Direction d) noexcept;
  /// Body i's values as the limits table checks them (validate::body).
  [[nodiscard]] validate::BodyValues values(std::uint32_t i) const noexcept;
  [[nodiscard]] AABB tightBox(std::uint32_t i) const noexcept {
    return {{px[i] - hx[i], py[i] - hy[i]}, {px[i] + hx[i], py[i] + hy[i]}};
  }
  /// Wakes every ball of the sleeping island that holds ball i (no-op when
  /// i is awake or static). Returns how many balls woke.
  std::uint32_t wakeIsland(std::uint32_t i) noexcept;
  /// Wakes every sleeping ball.
  void wakeAll() noexcept;
  /// Puts the balls of `members` to sleep as one island.
  void sleepIsland(const std::uint32_t* members, std::uint32_t count) noexcept;

  /// Gravity on the awake balls (symplectic Euler: velocity first).
  void applyGravity(Vec2 g, float dt, TaskSystem& tasks);
  /// Points the swept-box pass looks up on the way: how many of the boxes
  /// contain each strictly inside (the world's crowd check: k boxes that
  /// all contain one point overlap pairwise, k (k - 1) / 2 pairs).
  struct Probes {
    static constexpr std::uint32_t kMax = 4;
    std::array<Vec2, kMax> at{};
    std::array<std::uint64_t, kMax> inside{};  // set by sweptBoxes
    std::uint32_t count = 0;                   // points in use
  };
  /// Each ball's box grown by the distance it travels in dt, sleeping
  /// balls tight, static boxes grown by staticMargin, kinematic bodies by
  /// both (`kinematic`: there may be kinematic bodies). With `probes`, the
  /// boxes containing each of its points are counted in the same pass.
  void sweptBoxes(float dt, float staticMargin, bool kinematic, std::vector<AABB>& out,
                  TaskSystem& tasks, Probes* probes = nullptr) const;
  /// The box sweptBoxes gives body i (the same bits).
  [[nodiscard]] AABB sweptBox(std::uint32_t i, float dt, float staticMargin,
                              bool kinematic) const noexcept;
  /// Each body's tight box.
  // Enabled (World::setEnabled): 1 for a body in the simulation. A
  // disabled body keeps its state and its place in the arrays, but no pair
  // with it is kept (the broad phase's are filtered), no query reports it,
  // nothing moves it and nothing wakes it: a disabled ball is not awake
  // and has no island (wakeIsland and wakeAll pass it by). push, set and
  // resize make 1; setEnabled keeps disabledCount right.
  std::vector<std::uint8_t> enabled;
  std::uint32_t disabledCount = 0;
  void setEnabled(std::uint32_t i, bool on) noexcept {
    disabledCount = disabledCount + enabled[i] - (on ? 1u : 0u);
    enabled[i] = on ? 1 : 0;
  }
  void tightBoxes(std::vector<AABB>& out, TaskSystem& tasks) const;

 private:
  // renumber() rewrites the island links one by one where at most one
  // body in this many moves, instead of mapping every link.
  static constexpr std::size_t kSparseLinks = 8;
  std::vector<std::uint32_t> linkScratch_;  // the moved bodies' prev and next
  /// f(column) for every per-body array: one list, so that a new column
  /// cannot be reserved, resized, removed or renumbered in one place and
  /// forgotten in another.
  template <class F>
  void forEachColumn(F&& f) {
    for (auto* v : {&px,
                    &py,
                    &vx,
                    &vy,
                    &w,
                    &angle,
                    &friction,
                    &rolling,
                    &hx,
                    &hy,
                    &radius,
                    &mass,
                    &invMass,
                    &restTime,
                    &restitution,
                    &linearDamping,
                    &angularDamping,
                    &fx,
                    &fy,
                    &gravityScale})
      f(*v);
    f(type);
    f(awake);
    f(sensor);
    f(enabled);
    f(shape);
    f(islandNext);
    f(islandPrev);
  }
};

/// What a step may change in a BodyStore, copied before the step so that a
/// step that throws can put it back. Its buffers are kept between steps:
/// once warm, saving allocates nothing.
struct BodySnapshot {
  std::vector<float> px, py, vx, vy, w, angle, restTime;
  std::vector<std::uint8_t> awake;
  std::vector<std::uint32_t> islandNext, islandPrev;
  /// What the step may change beyond positions, velocities and awake:
  /// only that is copied (restore puts back what was saved).
  struct Parts {
    bool positions = true;  // px and py (else clampPositions saves them by a swap)
    bool spin = true;       // w and angle: some body spins, or friction is on
    bool rest = true;       // restTime: sleeping is on, or a ball may wake
    bool islands = true;    // the island links: a ball may wake
  };
  Parts saved{};

  /// May throw std::bad_alloc (the first time, or when the world grew).
  void save(const BodyStore& bodies, Parts parts, TaskSystem& tasks);
  /// Adds the island links (and restTime) to a save that left them out, before
  /// the sleep stage changes them. May throw std::bad_alloc.
  void saveIslands(const BodyStore& bodies);
  /// The bodies as saved; they must hold as many bodies as then.
  void restore(BodyStore& bodies) const noexcept;
};

}  // namespace quadbin
