#pragma once
/// \file
/// Bodies: the handle (BodyId, hashable with std::hash), what a body is made
/// from (BodyType, BodyDef), which bodies collide or are reported by
/// queries (Filter, QueryFilter), and what a step reports about them (the
/// contact, hit and sensor events, ContactData, the pre-solve callback).
/// Included by quadbin/engine/world.hpp.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/error.hpp>
#include <quadbin/geometry.hpp>
#include <span>
#include <string>

namespace quadbin {

/// A value handle to a body: slot index, the slot's generation when the body
/// was made, and the id of the world that made it (every World gets its own,
/// never 0), so a handle to a destroyed body, to a reused slot or from
/// another world is refused instead of misused. Trivially copyable, 12
/// bytes; hash it with std::hash<BodyId>.
struct BodyId {
  std::uint32_t index = UINT32_MAX;
  std::uint32_t generation = 0;
  std::uint32_t world = 0;  ///< the making world's id (World::id()); 0: none
  [[nodiscard]] constexpr bool isNull() const noexcept { return index == UINT32_MAX; }
  friend constexpr bool operator==(BodyId, BodyId) noexcept = default;
};

/// Which bodies collide with which, as in Box2D. Two bodies with the same
/// nonzero groupIndex always collide when it is positive and never when it
/// is negative; otherwise they collide when each one's categoryBits shares a
/// bit with the other's maskBits. The default (category 1, every bit of the
/// mask, no group) collides with every body whose mask holds bit 0. The
/// world's walls (a closed world's bounds) are not bodies and collide with
/// every ball whatever its filter. Every value is accepted.
struct Filter {
  std::uint64_t categoryBits = 1;  ///< what the body is: usually one bit
  std::uint64_t maskBits = ~0ull;  ///< the categories it collides with
  std::int32_t groupIndex = 0;     ///< 0: none; > 0 always, < 0 never within the group
  friend constexpr bool operator==(const Filter&, const Filter&) noexcept = default;
};

/// True when bodies with filters a and b collide (the rule of Filter).
[[nodiscard]] constexpr bool shouldCollide(const Filter& a, const Filter& b) noexcept {
  if (a.groupIndex == b.groupIndex && a.groupIndex != 0) return a.groupIndex > 0;
  return (a.categoryBits & b.maskBits) != 0 && (b.categoryBits & a.maskBits) != 0;
}

/// Which bodies a spatial query or ray cast reports, as Box2D's
/// b2QueryFilter: a body is reported when its categoryBits shares a bit
/// with maskBits and its maskBits shares a bit with categoryBits (a body
/// may so keep itself out of queries of some categories); `ignore`, when
/// not null, is skipped (a ray cast from inside the player, past the
/// player). The queries without a QueryFilter report every body.
struct QueryFilter {
  std::uint64_t categoryBits = 1;  ///< what the query is, tested against each body's maskBits
  std::uint64_t maskBits = ~0ull;  ///< the categories of bodies it reports
  BodyId ignore{};                 ///< a body of this world to skip; null: none
};

enum class BodyType : std::uint8_t {
  Ball,  ///< dynamic circle: moves, collides, has mass
  /// A fixed shape, a wall or an obstacle of infinite mass: an axis-aligned
  /// box (halfExtents), or the segment, polygon or turned box of its
  /// outline (BodyDef::staticSegment, staticPolygon, staticBox with an angle).
  StaticBox,
  /// A ball (radius > 0), an axis-aligned box (radius 0, halfExtents) or an
  /// outline (radius 0; a def with radius > 0 and halfExtents other than
  /// the default, or an outline, is refused as ambiguous: use
  /// BodyDef::kinematicBall, kinematicBox or kinematicPolygon)
  /// that moves at the velocity the game sets (a door, a paddle, a lift):
  /// infinite mass, no gravity, never moved by collisions; balls bounce off
  /// it continuously (no tunnelling, even at speed). It does not collide
  /// with static boxes, other kinematic bodies or the world's walls.
  Kinematic,
};

struct BodyDef {
  BodyType type = BodyType::Ball;
  Vec2 position{};               ///< centre
  Vec2 velocity{};               ///< balls and kinematic bodies; zero for static boxes
  float radius = 1.0f;           ///< balls: > 0; kinematic: > 0 a ball, 0 a box
  Vec2 halfExtents{1.0f, 1.0f};  ///< static and kinematic boxes: >= 0 on both axes
  float density = 1.0f;          ///< balls: mass = density * pi * r^2 unless mass > 0
  float mass = 0.0f;             ///< balls: > 0 overrides density
  /// Coulomb friction coefficient in [0, limits::kMaxFriction]; a contact
  /// uses sqrt(friction_a * friction_b), as Box2D does. Off (0) by default:
  /// balls then never spin and an e = 1 world keeps its kinetic energy
  /// exactly. With friction, balls are solid discs that roll: resting
  /// contacts exchange spin and stop sliding (docs/physics.md, "Friction").
  float friction = 0.0f;
  /// Rolling resistance in [0, limits::kMaxFriction], for balls with
  /// friction: a resting contact opposes the balls' relative spin with an
  /// angular impulse of at most rollingResistance * r * (normal impulse),
  /// so a ball rolling on the floor slows down and stops instead of rolling
  /// forever (Box2D v3's rule; combined by max). Off (0) by default.
  float rollingResistance = 0.0f;
  /// A sensor detects the balls that overlap it (World::sensorBeginEvents)
  /// without touching them: balls and boxes pass through it and it through
  /// them. A sensor ball still moves, falls and bounces off the world's
  /// walls. Sensors do not detect each other or static boxes.
  bool isSensor = false;
  /// The game's own value for the body (an entity id, a pointer's bits);
  /// the world only stores it: World::userData, World::setUserData.
  std::uint64_t userData = 0;
  /// Which bodies it collides with (Filter; World::setFilter changes it).
  Filter filter{};
  /// Restitution (bounciness) in [0, 1]. A collision uses the larger of its
  /// two bodies' values, max(e_a, e_b), as Box2D does; the walls of a closed
  /// world have WorldDef::restitution. Unset (the default): the world's
  /// WorldDef::restitution, so a world whose bodies leave it unset behaves
  /// as one restitution for all. Static boxes take it too.
  std::optional<float> restitution{};
  /// Linear damping in [0, limits::kMaxDamping] (static boxes ignore it): each step
  /// multiplies the velocity by 1 / (1 + dt * linearDamping) (Box2D's
  /// rule), close to exp(-linearDamping * t) for small dt. 0 (the default):
  /// no damping.
  float linearDamping = 0.0f;
  /// Angular damping in [0, limits::kMaxDamping] (static boxes ignore it): the same rule
  /// on the angular velocity (which only friction makes nonzero). 0: none.
  float angularDamping = 0.0f;
  /// What of the world's gravity the ball feels (Box2D's gravityScale): 1
  /// all of it, 0 none (it floats), -1 it rises. Finite, and |gravityScale|
  /// times |gravity| at most limits::kMaxGravity (the limit gravity itself
  /// has). Static and kinematic bodies ignore it.
  float gravityScale = 1.0f;
  /// The most points an outline holds.
  static constexpr std::size_t kMaxOutline = 8;
  /// Static and kinematic bodies that are not axis-aligned boxes: the
  /// shape's points relative to `position`, 2 a two-sided segment, 3 to 8
  /// a convex polygon in either winding (outlineCount of them; 0, the
  /// default: a ball, or a box of halfExtents, which are then ignored).
  /// Balls hit them as they hit boxes (exact time of impact, friction,
  /// events, sensors, queries). staticSegment, staticPolygon, the turned
  /// staticBox and World::createChain fill it.
  std::array<Vec2, kMaxOutline> outline{};
  std::uint8_t outlineCount = 0;

  [[nodiscard]] static BodyDef ball(Vec2 position, float radius, Vec2 velocity = {}) {
    BodyDef def;
    def.position = position;
    def.radius = radius;
    def.velocity = velocity;
    return def;
  }
  [[nodiscard]] static BodyDef staticBox(const AABB& box) {
    BodyDef def;
    def.type = BodyType::StaticBox;
    def.position = box.center();
    def.halfExtents = box.extents() * 0.5f;
    return def;
  }
  /// A static two-sided segment from a to b (a slope, a ramp, a line of a
  /// level); its position is the midpoint.
  [[nodiscard]] static BodyDef staticSegment(Vec2 a, Vec2 b) {
    const Vec2 mid = (a + b) * 0.5f;
    BodyDef def;
    def.type = BodyType::StaticBox;
    def.position = mid;
    def.outline[0] = a - mid;
    def.outline[1] = b - mid;
    def.outlineCount = 2;
    return def;
  }
  /// A static convex polygon of 3 to 8 vertices in either winding; its
  /// position is the centre of its bounding box. Throws quadbin::Error for
  /// more than 8 vertices (the world refuses other bad outlines).
  [[nodiscard]] static BodyDef staticPolygon(std::span<const Vec2> vertices) {
    if (vertices.size() > kMaxOutline) {
      throw Error("BodyDef::staticPolygon: " + std::to_string(vertices.size()) +
                  " vertices, more than the 8 an outline holds");
    }
    BodyDef def;
    def.type = BodyType::StaticBox;
    if (vertices.empty()) return def;
    Vec2 lo = vertices[0], hi = vertices[0];
    for (const Vec2 v : vertices) lo = min(lo, v), hi = max(hi, v);
    def.position = (lo + hi) * 0.5f;
    for (std::size_t i = 0; i < vertices.size(); ++i) def.outline[i] = vertices[i] - def.position;
    def.outlineCount = static_cast<std::uint8_t>(vertices.size());
    return def;
  }
  /// A static box of half extents `halfExtents` centred on `centre` and
  /// turned by `angle` radians counter-clockwise (angle 0: the axis-aligned
  /// box, as staticBox(AABB)).
  [[nodiscard]] static BodyDef staticBox(Vec2 centre, Vec2 halfExtents, float angle) {
    BodyDef def = staticBox(AABB::fromCenterHalf(centre, halfExtents));
    if (angle == 0.0f) return def;
    const float c = std::cos(angle), s = std::sin(angle);
    const Vec2 corners[4] = {{-halfExtents.x, -halfExtents.y},
                             {halfExtents.x, -halfExtents.y},
                             {halfExtents.x, halfExtents.y},
                             {-halfExtents.x, halfExtents.y}};
    for (int i = 0; i < 4; ++i) {
      def.outline[i] = {c * corners[i].x - s * corners[i].y, s * corners[i].x + c * corners[i].y};
    }
    def.outlineCount = 4;
    return def;
  }
  /// A kinematic convex polygon (3 to 8 vertices) or segment (2): moves at
  /// `velocity` until World::setVelocity changes it, and turns about its
  /// position (the centre of the vertices' bounding box) at the rate
  /// World::setAngularVelocity gives it (0 until then).
  [[nodiscard]] static BodyDef kinematicPolygon(std::span<const Vec2> vertices,
                                                Vec2 velocity = {}) {
    BodyDef def =
        vertices.size() == 2 ? staticSegment(vertices[0], vertices[1]) : staticPolygon(vertices);
    def.type = BodyType::Kinematic;
    def.radius = 0.0f;
    def.velocity = velocity;
    return def;
  }
  /// A kinematic ball: moves at `velocity` until World::setVelocity changes it.
  [[nodiscard]] static BodyDef kinematicBall(Vec2 position, float radius, Vec2 velocity = {}) {
    BodyDef def = ball(position, radius, velocity);
    def.type = BodyType::Kinematic;
    return def;
  }
  /// A kinematic axis-aligned box: moves at `velocity` until
  /// World::setVelocity changes it.
  [[nodiscard]] static BodyDef kinematicBox(const AABB& box, Vec2 velocity = {}) {
    BodyDef def = staticBox(box);
    def.type = BodyType::Kinematic;
    def.radius = 0.0f;
    def.velocity = velocity;
    return def;
  }
};

}  // namespace quadbin

// What a step reports: contact begin/end, hit and sensor events, the
// touching pairs (World::contacts), and the pre-solve callback's type
// (docs/events.md).

namespace quadbin {

/// Two bodies that started (begin) or stopped (end) touching in the last
/// step; a.index < b.index. The geometry is filled in for begin events only
/// (zero in end events), from the positions at the end of the step.
struct ContactEvent {
  BodyId a;
  BodyId b;
  Vec2 point{};   ///< where they touch (midway between the surfaces)
  Vec2 normal{};  ///< unit normal pointing from a to b
  /// Relative speed along the normal at the start of the step (gravity of
  /// the step included); 0 when they were not closing.
  float approachSpeed = 0.0f;
};

/// Which wall of a closed world a ball hit.
enum class WallSide : std::uint8_t {
  None,  ///< not a wall: the hit is between two bodies
  MinX,  ///< x = bounds.min.x
  MaxX,  ///< x = bounds.max.x
  MinY,  ///< y = bounds.min.y
  MaxY,  ///< y = bounds.max.y
};

/// A contact that touched in the last step with an approach speed above
/// WorldDef::hitEventThreshold: two bodies (a.index < b.index) or a ball and
/// a wall (b is null, wall says which).
struct ContactHitEvent {
  BodyId a;
  BodyId b;
  WallSide wall = WallSide::None;
  Vec2 point{};                ///< where they touch, at the end of the step
  Vec2 normal{};               ///< unit normal pointing from a to b (or the wall)
  float approachSpeed = 0.0f;  ///< relative normal speed at the start of the step
};

/// A pair touching after the last step, as World::contacts lists it
/// (Box2D's b2ContactData): a is a ball; b a ball, a static or kinematic
/// body, or null for a closed world's wall (wall says which).
struct ContactData {
  BodyId a;
  BodyId b;
  Vec2 point{};   ///< where they touch (midway between the surfaces), now
  Vec2 normal{};  ///< unit normal pointing from a to b (or the wall), now
  /// The resting-contact solver's accumulated normal impulse in the last
  /// step (mass * units/s; the exact impacts' impulses and, under gravity,
  /// the shock pass's correction are not in it: docs/physics.md).
  float normalImpulse = 0.0f;
  /// Its accumulated friction impulse, along the normal turned a quarter
  /// counter-clockwise (0 without friction).
  float tangentImpulse = 0.0f;
  WallSide wall = WallSide::None;
};

/// A ball (visitor) that began or stopped overlapping a sensor in the last
/// step.
struct SensorEvent {
  BodyId sensor;
  BodyId visitor;
};

/// World::setPreSolve's callback: a is a ball, b a ball or a static box,
/// normal the unit vector from a to b at the start of the step. Return
/// false to switch the contact off for this step.
using PreSolveFn = std::function<bool(BodyId a, BodyId b, Vec2 normal)>;
}  // namespace quadbin

template <>
struct std::hash<quadbin::BodyId> {
  [[nodiscard]] std::size_t operator()(quadbin::BodyId id) const noexcept {
    // The three fields mixed into 64 bits (a splitmix64 finalizer): ids that
    // differ in any field spread over every bit.
    std::uint64_t h = (std::uint64_t{id.index} << 32 | id.generation) ^
                      (std::uint64_t{id.world} * 0x9E3779B97F4A7C15ull);
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};
