#pragma once
/// \file
/// WorldDraw: what a World shows of its bodies and contacts to a debug
/// drawer (Box2D's b2DebugDraw), beside BroadPhaseDraw
/// (quadbin/broadphase/debug_draw.hpp), which shows the broad phase's
/// structure.
///
/// \code
///   struct Printer : quadbin::WorldDraw {
///     void ball(const quadbin::DrawnBall& b) override { /* a circle */ }
///     void contact(const quadbin::DrawnContact& c) override { /* an arrow */ }
///   };
///   Printer printer;
///   quadbin::WorldDrawOptions options;
///   options.contacts = true;
///   options.region = quadbin::AABB{{10, 10}, {30, 20}};  // what the camera sees
///   world.draw(printer, options);
/// \endcode
///
/// World::draw calls the drawer in a fixed order, the same for any thread
/// count: the walls, then each body in dense order (World::bodyAt) with its
/// box right after it, then the contacts ordered by their first body, then
/// by the second (walls last). See docs/debug-draw.md for what each costs.

#include <optional>
#include <quadbin/engine/world.hpp>
#include <quadbin/geometry.hpp>
#include <span>

namespace quadbin {

/// A ball as World::draw reports it.
struct DrawnBall {
  BodyId id;
  Vec2 center;
  float radius = 0.0f;
  Vec2 velocity;
  float angle = 0.0f;  ///< how far it has turned, radians (World::angle)
  bool awake = true;   ///< false while it sleeps
  BodyType type = BodyType::Ball;
};

/// A static box as World::draw reports it.
struct DrawnBox {
  BodyId id;
  AABB box;  ///< its extent (World::bounds)
};

/// A static or kinematic body made from an outline (BodyDef::outline): a
/// segment (2 vertices, open) or a convex polygon (closed), its vertices
/// in world coordinates, counter-clockwise for a polygon. Valid during the
/// callback only.
struct DrawnPolygon {
  BodyId id;
  std::span<const Vec2> vertices;
  bool closed = true;  ///< false for a segment
  BodyType type = BodyType::StaticBox;
};

/// Two bodies that touch now: their surfaces are at most 0.5% of the
/// smaller radius apart (or overlap), the rule the solver uses for a
/// resting contact.
struct DrawnContact {
  BodyId a;  ///< a ball; the lower dense index when both are balls
  BodyId b;  ///< a ball or a static box; a null id (isNull()) for a wall
  /// Midway between the two surfaces along the normal (inside both when
  /// they overlap).
  Vec2 point;
  Vec2 normal;       ///< unit, from a towards b
  float gap = 0.0f;  ///< distance between the surfaces; negative when they overlap
};

/// What World::draw reports.
struct WorldDrawOptions {
  bool balls = true;  ///< WorldDraw::ball for each ball
  /// WorldDraw::staticBox for each static or kinematic box, and
  /// WorldDraw::polygon for each segment and polygon
  bool staticBoxes = true;
  bool walls = true;      ///< WorldDraw::walls once, for a closed world
  bool contacts = false;  ///< WorldDraw::contact for each touching pair and wall
  /// WorldDraw::sensorOverlap for each ball inside a sensor after the last
  /// step (the overlaps its sensor events reported), in their order.
  bool sensorOverlaps = false;
  bool aabbs = false;  ///< WorldDraw::aabb for each body's tight box
  /// When set, only what lies in this box (a camera's view): bodies whose
  /// shape touches it, boxes (aabbs) that touch it, contacts whose point is
  /// in it. The walls are reported whatever the region. Found through the
  /// broad phase, so a small view of a big world costs little. Must be
  /// finite, min <= max, within limits::kMaxQueryCoordinate.
  std::optional<AABB> region;
};

/// Receives what World::draw shows. Every callback does nothing by default:
/// a drawer overrides the ones it shows. A callback may read the world
/// (accessors, queries) but not change it.
class WorldDraw {
 public:
  WorldDraw() = default;
  WorldDraw(const WorldDraw&) = default;
  WorldDraw& operator=(const WorldDraw&) = default;
  WorldDraw(WorldDraw&&) = default;
  WorldDraw& operator=(WorldDraw&&) = default;
  virtual ~WorldDraw() = default;

  /// A ball.
  virtual void ball(const DrawnBall& ball) { (void)ball; }
  /// A static box.
  virtual void staticBox(const DrawnBox& box) { (void)box; }
  /// A segment or polygon (BodyDef::outline).
  virtual void polygon(const DrawnPolygon& polygon) { (void)polygon; }
  /// The walls of a closed world: the inside of `bounds`.
  virtual void walls(const AABB& bounds) { (void)bounds; }
  /// A pair of touching bodies, or a ball touching a wall.
  virtual void contact(const DrawnContact& contact) { (void)contact; }
  /// A ball `visitor` overlapping the sensor `sensor`; `point` is the point
  /// of the sensor nearest the visitor's centre (the centre itself when it
  /// is inside).
  virtual void sensorOverlap(BodyId sensor, BodyId visitor, Vec2 point) {
    (void)sensor;
    (void)visitor;
    (void)point;
  }
  /// A body's tight bounding box, right after the body's own callback.
  virtual void aabb(BodyId id, const AABB& box) {
    (void)id;
    (void)box;
  }
};

}  // namespace quadbin
