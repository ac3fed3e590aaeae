#pragma once
/// \file
/// World: owns the bodies and steps them. Dynamic balls collide elastically
/// with each other, with static axis-aligned boxes, with kinematic bodies
/// (moved by the game) and with the world's walls.
///
/// \code
///   quadbin::WorldDef def;
///   def.bounds = {{0, 0}, {100, 100}};
///   quadbin::World world(def);
///   auto ball = world.createBody(quadbin::BodyDef::ball({50, 50}, 1.0f, {3, 0}));
///   world.step(1.0f / 60.0f);
///   quadbin::Vec2 p = world.position(ball);
/// \endcode

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/body.hpp>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <vector>

namespace quadbin {

class WorldDraw;
struct WorldDrawOptions;

/// Where a ray meets a body, or a closed world's wall.
struct RayHit {
  BodyId body;     ///< null for a wall
  float t = 0.0f;  ///< ray parameter: point = origin + t * direction
  Vec2 point;
  Vec2 normal;  ///< the body's (or wall's) surface normal at the hit, facing the ray
  WallSide wall = WallSide::None;  ///< which wall; None for a body
};

/// What the last step did and how long its phases took.
struct StepStats {
  std::uint32_t candidatePairs = 0;  ///< pairs the broad phase reported (swept boxes)
  std::uint32_t contacts = 0;        ///< pairs that touched during the step
  std::uint32_t impulses = 0;        ///< collisions resolved, walls included
  std::uint32_t bodiesOutside = 0;   ///< bodies whose centre is outside the bounds
  std::uint32_t awakeBodies = 0;     ///< balls simulated this step (not asleep)
  std::uint32_t colours = 0;         ///< parallel batches of the contact solver
  // Wall-clock time of each stage of the step in milliseconds, in the order
  // they run (docs/architecture.md). A step in which nothing moves runs
  // only the events stage.
  /// The bodies renumbered in space order (WorldDef::autoLayout); 0 in a
  /// step whose last contacts gave no reason to, as nearly every step.
  double layoutMs = 0.0;
  double integrateMs = 0.0;   ///< gravity, forces and damping into the balls' velocities
  double sweptBoxesMs = 0.0;  ///< each body's box grown by how far it can move this step
  double broadPhaseMs = 0.0;  ///< structure update, candidate pairs, collision filters
  /// Contacts from candidate pairs: sleeping balls within reach woken, the
  /// pairs close enough to touch within the step kept (a distance test),
  /// wall contacts, last step's impulses carried over, parallel batches.
  double contactsMs = 0.0;
  /// Contact iterations and exact impacts: the time of impact of each
  /// pair that collides during the step, and its impulse.
  double solverMs = 0.0;
  double integratePositionsMs = 0.0;  ///< bodies moved by their solved velocities
  double positionCorrectionMs = 0.0;  ///< overlaps removed by moving positions
  /// Balls kept inside a closed world's walls and out of static boxes; the
  /// bodies and contacts written back for the next step.
  double wallClampMs = 0.0;
  /// integratePositionsMs + positionCorrectionMs + wallClampMs
  double positionMs = 0.0;
  double sleepMs = 0.0;   ///< islands and sleeping
  double eventsMs = 0.0;  ///< begin/end contact events, hit and sensor events
  double totalMs = 0.0;   ///< the whole step
};

class World {
 public:
  /// Throws Error for any field outside its range (docs/limits.md,
  /// quadbin/engine/limits.hpp): bounds not finite, beyond kMaxCoordinate
  /// or with min >= max, an enum value that names no enumerator, gravity,
  /// thresholds, times, counts or threads out of range. A constructor that
  /// throws has no effect at all (WorldDef::logLevel is applied only once
  /// the world exists).
  explicit World(const WorldDef& def = {});
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  /// A moved-from world holds no bodies: its noexcept accessors answer as
  /// an empty world's would (bodyCount() 0, isValid false, id() 0, def() a
  /// default WorldDef, no events, the serial task system, an empty broad
  /// phase) and every other member throws Error. Assigning a World to it
  /// makes it usable again.
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;

  /// Throws Error (and changes nothing) for an unknown BodyType, values that
  /// are not finite or outside docs/limits.md (coordinates, radius, speed,
  /// mass from mass or density, half extents), radius <= 0, non-positive
  /// density, negative mass, a moving static box, or a ball that does not
  /// fit inside a closed world.
  BodyId createBody(const BodyDef& def);
  /// Creates one body per def, in order, all or nothing: every def is
  /// checked first, and a refused one throws Error naming its index (and
  /// why, as createBody would) with the world unchanged. The result equals
  /// createBody called on each def in turn (same ids, same state, same
  /// next step), at a fraction of the cost: storage grows once for all.
  std::vector<BodyId> createBodies(std::span<const BodyDef> defs);
  /// A polyline of static segments for terrain (Box2D's chain shape): one
  /// two-sided segment per pair of consecutive points, and with `loop` one
  /// more from the last point back to the first; all or nothing, as
  /// createBodies. A ball rolls over the chain's inner vertices without a
  /// bump: the region around a shared vertex belongs to one of its two
  /// segments. A segment that is destroyed, moved, disabled or made
  /// kinematic leaves the chain (its neighbours' ends become plain ends).
  /// Throws Error for fewer than 2 points (3 with `loop`), a point that is
  /// not finite or outside the limits, or two consecutive equal points.
  std::vector<BodyId> createChain(std::span<const Vec2> points, bool loop = false);
  /// Throws Error for a stale or foreign id (so does every member that
  /// takes a BodyId). The body's contacts end (with events at the next
  /// step); the last body takes its dense index (bodyAt) and every other
  /// contact keeps its warm start. O(contacts) per call.
  void destroyBody(BodyId id);
  /// destroyBody for each of `ids` in turn, all or nothing: throws Error,
  /// the world unchanged, for a stale or foreign id or one given twice.
  /// The same world as the calls one by one (the same dense order, contacts
  /// and events), with one pass over the contacts for all of them.
  void destroyBodies(std::span<const BodyId> ids);
  /// Renumbers the bodies so that bodies close in space are close in
  /// memory (a Morton order of their centres): the dense order of bodyAt()
  /// and of the bulk arrays changes, and with it the order of query
  /// results (sorted by dense index) and which of two equally near bodies
  /// nearest() lists first. Ids, positions,
  /// velocities, materials, filters, user data, sleep and the touching
  /// pairs (no begin or end event) stay as they are, and so do the
  /// contacts' impulses and colours (the next step is warm started as
  /// before). Bodies created in random order
  /// make every stage of a step miss the cache and, with more than one
  /// thread, the solver's threads write the same cache lines. The world
  /// does this by itself at the step after one whose contacts were far
  /// apart in memory (WorldDef::autoLayout); call it to have it done at
  /// once, after loading a level or spawning many bodies, as Jolt's
  /// OptimizeBroadPhase (docs/concurrency.md, "Space order"). Costs a sort
  /// of the bodies; the steps after it may differ from a world not
  /// renumbered in the last bits (new contacts are coloured in another
  /// order).
  void optimizeLayout();
  /// Renumbers the bodies into the given dense order: bodyAt(k) becomes
  /// order[k]. What optimizeLayout() keeps is kept (ids, state, touching
  /// pairs, the contacts' impulses and colours); an order already in place
  /// changes nothing. For a caller that needs a dense order of its own, as
  /// quadbin::mpi, which gives every rank's copy of a border region the
  /// same order (so the same results); with WorldDef::autoLayout on, the
  /// world may still renumber by itself at a step. `order` must hold every
  /// body's id once, else quadbin::Error and nothing changes. Costs O(n)
  /// plus a pass over the contacts and a sort of those of moved bodies.
  void setBodyOrder(std::span<const BodyId> order);
  /// The same for the bodies that change place alone: bodyAt(at[k])
  /// becomes bodies[k], and every other body keeps its dense index. The
  /// bodies must be exactly those now at the indices `at` (each index
  /// once), else quadbin::Error and nothing changes (sizes that differ, an
  /// index past the last body or repeated, an id stale, repeated or not
  /// now at one of `at`). Costs O(k log k) for k bodies, plus a pass over
  /// the contacts and the bodies' island links.
  void setBodyOrder(std::span<const std::uint32_t> at, std::span<const BodyId> bodies);
  /// True for an id this world made whose body still exists; false for a
  /// destroyed body, a reused slot's old id, a null id or another world's.
  [[nodiscard]] bool isValid(BodyId id) const noexcept;
  /// This world's id, carried by its BodyIds: nonzero and unique among the
  /// worlds made in this process (until 2^32 - 1 worlds wrap it around).
  [[nodiscard]] std::uint32_t id() const noexcept;

  [[nodiscard]] BodyType type(BodyId id) const;
  [[nodiscard]] Vec2 position(BodyId id) const;
  [[nodiscard]] Vec2 velocity(BodyId id) const;
  [[nodiscard]] float radius(BodyId id) const;  ///< 0 for static and kinematic boxes
  [[nodiscard]] float mass(BodyId id) const;    ///< infinity for static and kinematic bodies
  [[nodiscard]] AABB bounds(BodyId id) const;   ///< the body's tight box
  /// Teleports a body; a ball in a closed world must still fit inside.
  /// The position obeys createBody's limits. A static or kinematic body
  /// jumps there without sweeping the way between (a ball in its new place
  /// is pushed out, not struck); move a kinematic body with setVelocity to
  /// have it strike what it meets.
  void setPosition(BodyId id, Vec2 position);
  /// setPosition for many bodies in one call: body ids[k] to positions[k].
  /// The same checks for each, every id live and given once, and one
  /// count of the pair limit for all of them (where a loop of setPosition
  /// counts at every call); nothing is changed if any is refused.
  void setPositions(std::span<const BodyId> ids, std::span<const Vec2> positions);
  /// Balls and kinematic bodies; |velocity| <= limits::kMaxSpeed.
  void setVelocity(BodyId id, Vec2 velocity);
  /// Angular velocity in rad/s, counter-clockwise (0 for static and
  /// kinematic boxes; a ball's stays 0 unless friction turns it; a kinematic
  /// ball's or outline's is the one set).
  [[nodiscard]] float angularVelocity(BodyId id) const;
  /// Balls, kinematic balls and kinematic outlines; |angularVelocity| times
  /// the radius (an outline's farthest vertex from its position) <=
  /// limits::kMaxSpeed. A kinematic ball keeps the spin it is given
  /// (collisions never change it): with friction, its surface drives the
  /// balls that rest on it, as a conveyor wheel does. A kinematic outline
  /// turns about its position (a flipper; docs/physics.md, "Turning
  /// outlines"). Static bodies and kinematic boxes cannot turn.
  void setAngularVelocity(BodyId id, float angularVelocity);
  /// How far the ball has turned, radians in [-pi, pi] (0 for static boxes).
  [[nodiscard]] float angle(BodyId id) const;
  /// Changes a ball's or a kinematic ball's radius, its centre kept. A
  /// ball keeps its density: its mass scales with its area. The same
  /// checks as createBody (radius range, the radius for its coordinates,
  /// the fit inside a closed world, the mass range, the pair limit); wakes
  /// the ball's island. Boxes are refused (they have half extents).
  void setRadius(BodyId id, float radius);
  /// Changes what the body is, among the types its shape allows: a circle
  /// is a `Ball` or a `Kinematic` ball, a box a `StaticBox` or a
  /// `Kinematic` box (anything else is refused, as is a ball that would
  /// not fit inside a closed world). The body keeps its id, position,
  /// shape, material, filter, user data and sensor flag. Made a `Ball`, it
  /// gets the mass of BodyDef's default density (pi r^2) and keeps its
  /// velocity; made `Kinematic`, it keeps its velocity and spin and loses
  /// its mass, damping and force; made a `StaticBox`, it stops. Its
  /// contacts end (the next step finds those that still touch), and it
  /// wakes what it should: a ball its island, a box every island.
  void setType(BodyId id, BodyType type);
  /// Whether the body takes part in the simulation (true unless
  /// setEnabled(id, false)).
  [[nodiscard]] bool isEnabled(BodyId id) const;
  /// Takes the body out of the simulation, or puts it back (Box2D's
  /// b2Body_Disable / b2Body_Enable). A disabled body keeps its id and its
  /// state (position, velocity, spin, settings), but nothing collides with
  /// it, no query or ray reports it, nothing moves it (no gravity, a
  /// kinematic body stays) and it is not awake; its contacts and sensor
  /// overlaps end with events at the next step, and what rested on it
  /// wakes. The setters and accessors work on it as on any body, and
  /// World::draw still draws it (as a body that is not awake). Enabled
  /// again, a ball is awake and goes on with the velocity it kept.
  void setEnabled(BodyId id, bool enabled);
  /// What of the world's gravity the body feels (BodyDef::gravityScale).
  [[nodiscard]] float gravityScale(BodyId id) const;
  /// BodyDef::gravityScale's limits under the world's gravity; wakes a
  /// ball. Static and kinematic bodies keep it but feel no gravity.
  void setGravityScale(BodyId id, float scale);
  /// The body's friction coefficient (BodyDef::friction).
  [[nodiscard]] float friction(BodyId id) const;
  /// Same range as BodyDef::friction; takes effect at the next step.
  void setFriction(BodyId id, float friction);
  /// The body's user data (BodyDef::userData).
  [[nodiscard]] std::uint64_t userData(BodyId id) const;
  /// Replaces the body's user data; the simulation never reads it.
  void setUserData(BodyId id, std::uint64_t value);
  /// The body's collision filter (BodyDef::filter).
  [[nodiscard]] Filter filter(BodyId id) const;
  /// Replaces the body's collision filter; it takes effect at the next
  /// step. A change wakes the body's island (a static box: every sleeping
  /// ball, as setPosition does), so that what rested on it may fall.
  void setFilter(BodyId id, const Filter& filter);
  /// The body's restitution: BodyDef::restitution, or the world's when
  /// that was unset.
  [[nodiscard]] float restitution(BodyId id) const;
  /// Restitution in [0, 1] (static boxes too); takes effect at the next
  /// collision. A collision uses max(e_a, e_b); walls use the world's.
  void setRestitution(BodyId id, float restitution);
  /// The body's linear and angular damping (BodyDef::linearDamping,
  /// BodyDef::angularDamping; 0 for static boxes).
  [[nodiscard]] float linearDamping(BodyId id) const;
  [[nodiscard]] float angularDamping(BodyId id) const;
  /// Balls only; in [0, limits::kMaxDamping]; takes effect at the next step.
  void setLinearDamping(BodyId id, float linearDamping);
  void setAngularDamping(BodyId id, float angularDamping);

  /// Adds a force (mass * units / s^2) at the ball's centre to the force
  /// accumulated since the last step. The next step adds force / mass * dt
  /// to the velocity (with gravity, before the contacts) and then clears
  /// the accumulated force, as Box2D does: a steady force is applied before
  /// every step. A nonzero force wakes the ball. Balls only; the force must
  /// be finite and the accumulated force / mass at most limits::kMaxGravity.
  void applyForce(BodyId id, Vec2 force);
  /// The force accumulated for the next step (zero after a step).
  [[nodiscard]] Vec2 force(BodyId id) const;
  /// Changes the ball's velocity now by impulse / mass (an impulse at the
  /// centre: no spin). A nonzero impulse wakes the ball. Balls only; the
  /// impulse must be finite and the new speed at most limits::kMaxSpeed.
  void applyLinearImpulse(BodyId id, Vec2 impulse);
  /// Changes the ball's angular velocity now by impulse / I, with I = m r^2
  /// / 2 (a solid disc), counter-clockwise positive. Spin matters only for
  /// balls with friction (it turns into motion at their contacts); a ball
  /// without friction keeps it, and its angle turns. A nonzero impulse
  /// wakes the ball. Balls only; finite, and the surface speed afterwards
  /// |w| r at most limits::kMaxSpeed.
  void applyAngularImpulse(BodyId id, float impulse);
  /// A radial blast: every ball whose shape comes within `radius` of
  /// `center` gets a linear impulse pointing away from the centre of
  /// magnitude impulse * (1 - d / radius), d the distance from `center` to
  /// the ball's surface (0 when the centre is inside the ball): the full
  /// impulse at the centre, falling linearly to 0 at `radius`. A ball whose
  /// centre is exactly at `center` has no direction and gets nothing.
  /// Static boxes do not move; the balls hit wake. Throws Error, with the
  /// world unchanged, for arguments that are not finite, a center beyond
  /// limits::kMaxQueryCoordinate, radius <= 0 or beyond it, a negative
  /// impulse, or one that would make a ball faster than limits::kMaxSpeed.
  void explode(Vec2 center, float radius, float impulse);

  /// False while the body sleeps (static and kinematic bodies: always false).
  [[nodiscard]] bool isAwake(BodyId id) const;
  /// true: wakes a sleeping ball and the balls it rests on (its island).
  /// false: puts the ball to sleep now (velocity zeroed); an awake ball
  /// that touches it wakes it again at the next step. No effect on static
  /// and kinematic bodies.
  void setAwake(BodyId id, bool awake);

  /// Advances the world by dt seconds: integrate -> swept boxes -> broad
  /// phase -> narrow phase -> solver -> position correction -> events,
  /// each phase in parallel on the world's task system.
  /// Throws Error for dt that is not finite or outside [limits::kMinDt,
  /// limits::kMaxDt]. Debug builds assert after each step that every
  /// position and velocity is finite.
  ///
  /// Strong guarantee: a step that throws (std::bad_alloc, an exception of
  /// the task system, a refused state) leaves every body's position,
  /// velocity and sleep state, the events and stats() as they were, and
  /// the world can be stepped again. It costs one copy of those arrays per
  /// step (into buffers kept between steps: no allocation once warm). The
  /// solver's persistent contacts (warm start, colours) come back too, so
  /// the steps after a failed one are, bit for bit, those of a world whose
  /// step never failed.
  ///
  /// While step() runs, nothing else may be called on this world from any
  /// thread (docs/concurrency.md): bodies, queries and events are being
  /// rewritten. Every member that can throw claims the world atomically
  /// (step and the changes alone, the reads together) and refuses with
  /// Error when it finds it claimed otherwise: a second step, a change
  /// during a step or beside a read, a read during a change. The noexcept
  /// accessors cannot refuse and must simply not be called meanwhile.
  void step(float dt);
  /// True while step() runs (for assertions in callers).
  [[nodiscard]] bool isStepping() const noexcept;
  /// The task system the world steps on.
  [[nodiscard]] TaskSystem& taskSystem() const noexcept;

  [[nodiscard]] std::span<const ContactEvent> contactBeginEvents() const noexcept;
  [[nodiscard]] std::span<const ContactEvent> contactEndEvents() const noexcept;
  // Events of the last step, each list sorted by (a.index, b.index) or
  // (sensor.index, visitor.index), the same for every thread count and
  // broad phase; valid until the next call that changes the world. When a
  // body is destroyed, its contacts and sensor overlaps end with events at
  // the next step (naming the destroyed body's id, no longer valid).

  /// Contacts of the last step that hit harder than
  /// WorldDef::hitEventThreshold, walls included.
  [[nodiscard]] std::span<const ContactHitEvent> contactHitEvents() const noexcept;
  /// Every pair touching after the last step (sleeping islands' included),
  /// with its geometry from the current positions and the last step's
  /// impulses, in a fixed order (by the ball's dense index, then the
  /// other's; walls last), the same for every thread count. Made by the
  /// first call after the world changed, O(contacts); valid until the next
  /// call that changes the world. Box2D's b2World_GetContactData.
  [[nodiscard]] std::span<const ContactData> contacts() const;
  /// The contacts of one body (as contacts() lists them), into `out`
  /// (cleared first): O(contacts). Box2D's b2Body_GetContactData.
  void contactsOf(BodyId id, std::vector<ContactData>& out) const;
  /// Balls that began overlapping a sensor in the last step.
  [[nodiscard]] std::span<const SensorEvent> sensorBeginEvents() const noexcept;
  /// Balls that stopped overlapping a sensor in the last step.
  [[nodiscard]] std::span<const SensorEvent> sensorEndEvents() const noexcept;
  /// BodyDef::isSensor of the body.
  [[nodiscard]] bool isSensor(BodyId id) const;
  /// Sets (or, with an empty function, removes) a callback asked about every
  /// contact the narrow phase finds between a ball and another body before
  /// the solver runs, once per step: returning false switches the contact
  /// off for that step (a one-way platform lets balls through from one
  /// side). It is called from the step's worker threads, many at once, so it
  /// must be thread-safe; for results that are the same for every thread
  /// count it must be a pure function of its arguments and of state that
  /// nothing changes during the step. It must not call the world, and should
  /// not throw (a throw fails the step, which is then rolled back). Not
  /// asked about walls or sensors. Throws Error during a step.
  void setPreSolve(PreSolveFn fn);
  [[nodiscard]] const StepStats& stats() const noexcept;

  [[nodiscard]] std::uint32_t bodyCount() const noexcept;
  /// The id of the body at dense position i in [0, bodyCount()). Bodies are
  /// kept in creation order until one is destroyed (the last body then
  /// takes the destroyed one's place), optimizeLayout() renumbers them, or
  /// a step does (WorldDef::autoLayout: a world of more than 1,025 bodies
  /// whose contacts are far apart in memory, as after creating a crowd in
  /// random order). Keep ids, not dense positions, across steps.
  [[nodiscard]] BodyId bodyAt(std::uint32_t i) const;
  [[nodiscard]] const WorldDef& def() const noexcept;
  /// Sum of 1/2 m v^2 and, for spinning balls, 1/2 I w^2 (I = m r^2 / 2).
  [[nodiscard]] double kineticEnergy() const noexcept;
  [[nodiscard]] Vec2 momentum() const noexcept;  ///< sum of m * v, in double then rounded

  // Read-only arrays in dense order (element i belongs to bodyAt(i)), for
  // renderers and bulk readers: no per-body calls. Static and kinematic
  // bodies are in them too: their centre, their velocity (zero for static
  // boxes) and their radius (0 for boxes, whose half extents come from
  // bounds(id)). A span stays valid until the next call
  // that changes the world (createBody, createBodies, destroyBody,
  // optimizeLayout, setPosition, setVelocity, setAwake, step, setBroadPhase, restore,
  // assignment); call again after one. Like the queries, they may be
  // called from many threads at once between steps. Throw Error during a
  // step or on a moved-from world.

  /// Centres. The bodies store x and y apart; the first call after a
  /// change copies them into this array (one pass, in parallel).
  [[nodiscard]] std::span<const Vec2> positions() const;
  /// Velocities, copied like positions() at the first call after a change.
  [[nodiscard]] std::span<const Vec2> velocities() const;
  /// Radii (0 for static boxes): the bodies' own array, no copy.
  [[nodiscard]] std::span<const float> radii() const;

  /// The world's whole simulation state as a versioned, checksummed buffer
  /// (docs/snapshots.md): bodies with their ids, sleep state, persistent
  /// contacts, touching pairs and the WorldDef fields that steer the
  /// simulation. Throws Error during a step.
  [[nodiscard]] std::vector<std::byte> snapshot() const;
  /// Replaces this world's whole state with a snapshot's, so that stepping
  /// it continues bit-identically to the world the snapshot was taken of,
  /// for any broad phase and thread count. The world takes the snapshot's
  /// WorldDef (bounds, gravity, solver settings, broad-phase type, ...) but
  /// keeps its own id, task system and thread count: a BodyId of the
  /// snapshotted world stays valid when it is restored into itself; in
  /// another world the same body has the same index and generation and
  /// this world's id. The events and stats of the last step are cleared.
  /// Throws Error, with the world unchanged, for a buffer that is
  /// truncated, corrupt (checksum), of another format version, byte order
  /// or float format, or inconsistent, and during a step.
  void restore(std::span<const std::byte> snapshot);

  /// The world's gravity (WorldDef::gravity, or the last setGravity).
  [[nodiscard]] Vec2 gravity() const noexcept;
  /// Changes the gravity from the next step on (WorldDef::gravity's
  /// limits, and every ball's gravityScale times it within
  /// limits::kMaxGravity); a change wakes every sleeping ball, as what
  /// rested under the old gravity may not under the new.
  void setGravity(Vec2 gravity);

  /// The broad phase in use (for statistics, spatial queries and
  /// BroadPhase::draw).
  [[nodiscard]] const BroadPhase& broadPhase() const noexcept;
  /// The structure the world steps with: WorldDef::broadPhase, or for Auto
  /// the one Auto picked at the last step or query (it switches as the body
  /// count changes, and logs each switch at info level).
  [[nodiscard]] BroadPhaseType activeBroadPhase() const noexcept;
  /// Shows the bodies, walls, contacts and boxes that `options` asks for
  /// (and, with options.region, only those in that box) to `out`, in an
  /// order that does not depend on the thread count
  /// (quadbin/engine/world_draw.hpp). Throws Error for a region that a
  /// query would refuse, during a step, or when a callback changes the world.
  void draw(WorldDraw& out, const WorldDrawOptions& options) const;
  /// Switches to a new, empty broad phase of `type` (def().broadPhase
  /// follows); it is filled from the bodies at the next step, or at the
  /// next query that needs it (a large box, a ray, a draw). The
  /// bodies are untouched. Pairs reach the solver in the new structure's
  /// order, so the motion that follows may differ in the last bits from a
  /// world that used `type` from the start. Throws Error during a step.
  void setBroadPhase(BroadPhaseType type);
  /// Steps on a task system of `threadCount` threads, with the meaning of
  /// WorldDef::threadCount (0 = all hardware threads); it replaces the
  /// system the world had, WorldDef::taskSystem included (the world lets go
  /// of it). The world keeps each system it makes, one per count, and
  /// reuses it when the count comes back: calling this with the count in
  /// use changes nothing, and any number of calls cost at most one system
  /// per distinct count. Results stay bit-identical. Throws Error for more
  /// than 1024 threads or during a step.
  void setThreadCount(std::uint32_t threadCount);

  // Spatial queries: exact against the bodies' shapes (circles and boxes),
  // results in creation order (dense index) unless said otherwise. They may
  // be called from many threads at once between steps, as long as no thread
  // changes the world meanwhile (createBody, setPosition, step, ...).
  // Throw Error for non-finite arguments, coordinates or lengths beyond
  // limits::kMaxQueryCoordinate, an inverted box (min > max), a negative
  // radius, a ray of zero direction or negative maxT, k = 0, and when
  // called during a step.

  /// Bodies whose shape touches the box (culling).
  void queryBox(const AABB& box, std::vector<BodyId>& out) const;
  /// Bodies whose shape comes within `radius` of `center` (neighbour search).
  void queryRadius(Vec2 center, float radius, std::vector<BodyId>& out) const;
  /// The closest body or wall the ray hits within [0, ray.maxT], if any.
  /// A closed world's walls are the four sides of its bounds, two-sided:
  /// a ray from inside hits the wall it leaves by, one from outside the
  /// wall it enters by (RayHit::wall names it, RayHit::body is null).
  /// Walls are reported whatever the QueryFilter, as they collide with
  /// every ball; an open world has none.
  [[nodiscard]] std::optional<RayHit> raycast(const Ray& ray) const;
  /// Every body and wall the ray hits, closest first (at equal distances
  /// bodies in creation order, then walls).
  void raycastAll(const Ray& ray, std::vector<RayHit>& out) const;
  /// The k bodies closest to the point (distance to their surface, 0
  /// inside), closest first; ties in creation order. k >= 1; all the
  /// bodies when k exceeds bodyCount().
  void nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out) const;

  // The same queries, reporting only the bodies `filter` accepts
  // (QueryFilter). They also throw Error for a filter.ignore that is not
  // null and not a live body of this world. nearest: the k closest of the
  // accepted bodies (all of them when fewer).
  void queryBox(const AABB& box, std::vector<BodyId>& out, const QueryFilter& filter) const;
  void queryRadius(Vec2 center, float radius, std::vector<BodyId>& out,
                   const QueryFilter& filter) const;
  [[nodiscard]] std::optional<RayHit> raycast(const Ray& ray, const QueryFilter& filter) const;
  void raycastAll(const Ray& ray, std::vector<RayHit>& out, const QueryFilter& filter) const;
  void nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out,
               const QueryFilter& filter) const;

 private:
  struct Impl;
  /// The state, or Error naming `what` for a moved-from world. `what`
  /// defaults to the calling member's own name (the compiler's
  /// __builtin_FUNCTION, in GCC and Clang), as do the claims and id checks
  /// behind it, so that no member spells its own name.
  Impl& live(const char* what = __builtin_FUNCTION()) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
