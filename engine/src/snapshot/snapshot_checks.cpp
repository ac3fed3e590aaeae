// The checks World::restore runs on a snapshot it has read (docs/snapshots.md):
// every value within the limits creation enforces, and every value derived
// from them in agreement with what the world would have made.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <quadbin/error.hpp>
#include <string>

#include "bodies/validate.hpp"
#include "contacts/constraint_graph.hpp"
#include "snapshot/snapshot_checks.hpp"

namespace quadbin::snapshots {

void fail(const std::string& why) { throw Error("World::restore: " + why); }

// Every body as World makes and steps it: its values within the limits
// createBody and the setters enforce (validate::body, the same table and
// messages), the values derived from them in agreement (boxes, inverse
// mass, largest radius, box count), a sleeping ball still and on a closed
// island list (so that waking it ends), and in a closed world each ball
// inside the walls.
void checkTurning(const BodyStore& b) {
  for (std::uint32_t i = 0; i < b.size(); ++i) {
    if (b.radius[i] > 0.0f || b.w[i] == 0.0f) continue;
    const std::string prefix = fmt::format("body {}: ", i);
    if (b.shape[i] == kNoHull) {
      fail(prefix + fmt::format("angularVelocity = {}: a box does not turn", b.w[i]));
    }
    if (const std::string why = validate::body(b.values(i), prefix); !why.empty()) fail(why);
  }
}

void checkBodies(const BodyStore& b, const WorldDef& def) {
  const auto n = static_cast<std::uint32_t>(b.size());
  float maxRadius = 0.0f;
  std::uint32_t boxes = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string prefix = fmt::format("body {}: ", i);
    auto bad = [&](const std::string& why) { fail(prefix + why); };
    if (static_cast<std::uint8_t>(b.type[i]) > static_cast<std::uint8_t>(BodyType::Kinematic)) {
      bad(fmt::format("type = {} is not a BodyType (0 to 2)", static_cast<int>(b.type[i])));
    }
    const bool ball = b.type[i] == BodyType::Ball;
    validate::BodyValues v = b.values(i);
    // A kinematic body that is not a circle may be an outline that turns:
    // its outline comes later in the buffer, and checkTurning checks its
    // spin against it then.
    if (b.type[i] == BodyType::Kinematic && b.radius[i] == 0.0f) {
      v.turnReach = std::numeric_limits<float>::min();
    }
    if (const std::string why = validate::body(v, prefix); !why.empty()) fail(why);
    if (const std::string why = validate::gravityScale(v.gravityScale, def.gravity, "gravityScale");
        !why.empty()) {
      bad(why);
    }
    if (ball) {
      const std::string why = validate::insideBounds(v.position, v.radius, def, "position");
      if (!why.empty()) bad(why);
    }
    // Derived values: a circle's box is its radius; a ball's inverse mass
    // is 1 / mass (as createBody makes it); static and kinematic bodies
    // have infinite mass, no damping and no force.
    if (b.radius[i] > 0.0f && (b.hx[i] != b.radius[i] || b.hy[i] != b.radius[i])) {
      bad(fmt::format("halfExtents = ({}, {}) do not match radius = {}", b.hx[i], b.hy[i],
                      b.radius[i]));
    }
    if (ball && b.invMass[i] != 1.0f / b.mass[i]) {
      bad(fmt::format("inverse mass = {} does not match mass = {} (1 / mass = {})", b.invMass[i],
                      b.mass[i], 1.0f / b.mass[i]));
    }
    if (!ball && (b.mass[i] != std::numeric_limits<float>::infinity() || b.invMass[i] != 0.0f ||
                  b.linearDamping[i] != 0.0f || b.angularDamping[i] != 0.0f || b.fx[i] != 0.0f ||
                  b.fy[i] != 0.0f)) {
      bad("a static or kinematic body with a finite mass, damping or a force");
    }
    if (b.type[i] == BodyType::StaticBox && b.radius[i] != 0.0f) bad("a static box with a radius");
    if (!std::isfinite(b.restTime[i]) || b.restTime[i] < 0.0f) {
      bad(fmt::format("rest time = {} is not a time", b.restTime[i]));
    }
    if (b.awake[i] > 1) bad("awake is not 0 or 1");
    const std::uint32_t next = b.islandNext[i], prev = b.islandPrev[i];
    if ((next == kNoBody) != (prev == kNoBody)) bad("half an island link");
    if (next != kNoBody &&
        (next >= n || prev >= n || b.islandPrev[next] != i || b.islandNext[prev] != i)) {
      bad("a broken island list");
    }
    boxes += ball ? 0u : 1u;
    if (b.enabled[i] == 0) {  // a disabled body: as it was, out of the simulation
      if (b.awake[i] != 0 || next != kNoBody) bad("a disabled body that is awake or in an island");
    } else if (ball) {
      if ((b.awake[i] == 0) != (next != kNoBody)) bad("asleep without an island, or the reverse");
      if (b.awake[i] == 0 && (b.vx[i] != 0.0f || b.vy[i] != 0.0f || b.w[i] != 0.0f)) {
        bad("asleep with a velocity (sleep zeroes it)");
      }
    } else if (b.awake[i] != 0 || next != kNoBody) {
      bad("a static or kinematic body that is awake");
    }
    maxRadius = std::max(maxRadius, b.radius[i]);
  }
  if (b.maxRadius != maxRadius) fail("the largest radius does not match the bodies");
  if (b.boxCount != boxes) fail("the box count does not match the bodies");
}

// slotOf a one-to-one map into the slots, the free list the rest, once each.
void checkSlots(State& s) {
  const auto slots = static_cast<std::uint32_t>(s.generation.size());
  if (s.slotOf.size() + s.freeSlots.size() != slots) {
    fail("the live and free slots do not add up to the slot count");
  }
  s.denseOf.assign(slots, kNoBody);
  for (std::uint32_t i = 0; i < s.slotOf.size(); ++i) {
    const std::uint32_t slot = s.slotOf[i];
    if (slot >= slots || s.denseOf[slot] != kNoBody) {
      fail(fmt::format("body {} has slot {}: out of range or taken twice", i, slot));
    }
    s.denseOf[slot] = i;
  }
  std::vector<std::uint8_t> freed(slots, 0);
  for (const std::uint32_t slot : s.freeSlots) {
    if (slot >= slots || s.denseOf[slot] != kNoBody || freed[slot] != 0) {
      fail(fmt::format("free slot {}: out of range, live or listed twice", slot));
    }
    freed[slot] = 1;
  }
}

// Contacts in canonical order (unique pairs), each of an existing ball and
// a later ball, a static or kinematic body or a wall (of a closed world),
// with a colour the solver can hold, at most one contact of each colour per
// ball, and impulses that, warm started, move neither end by more than
// contacts::kMaxWarmChange: a crafted impulse of 1e30 would otherwise
// make a step's velocities infinite.
void checkContacts(const State& s) {
  const auto n = static_cast<std::uint32_t>(s.bodies.size());
  const BodyStore& b = s.bodies;
  const bool closed = s.def.boundary == Boundary::Closed;
  std::vector<std::uint64_t> held(n, 0);
  for (std::size_t k = 0; k < s.contacts.size(); ++k) {
    const contacts::Contact& c = s.contacts[k];
    auto bad = [&](const char* why) {
      fail(fmt::format("contact {} (bodies {} and {}): {}", k, c.a, c.b, why));
    };
    const bool wall = contacts::isWall(c.b);
    if (wall && !(closed && contacts::wallSide(c.b) < 4)) bad("a wall that is not there");
    if (c.a >= n || b.type[c.a] != BodyType::Ball || !(wall || (c.b < n && c.b != c.a))) {
      bad("not of a ball and another body");
    }
    if (!wall && b.isBall(c.b) && c.b < c.a) bad("two balls out of their order");
    if (b.enabled[c.a] == 0 || (!wall && b.enabled[c.b] == 0)) bad("a disabled body's");
    if (k > 0 && !(s.contacts[k - 1] < c)) bad("out of order or listed twice");
    if (c.colour > contacts::kColours || c.touched > 1) bad("a colour or flag out of range");
    // As ContactSet::store holds them (contacts::warmable); the friction
    // and rolling impulses are held within the normal one's cone when warm
    // started.
    const float im = std::max(b.invMass[c.a], wall || !b.isBall(c.b) ? 0.0f : b.invMass[c.b]);
    if (!(c.lambda >= 0.0f) || !(c.shift >= 0.0f) || !std::isfinite(c.lambda) ||
        !std::isfinite(c.shift) || !std::isfinite(c.tangent) || !std::isfinite(c.rolling) ||
        c.lambda * im > contacts::kMaxWarmChange || c.shift * im > contacts::kMaxWarmChange) {
      bad("an impulse out of range");
    }
    if (c.colour < contacts::kColours) {
      const std::uint64_t bit = std::uint64_t{1} << c.colour;
      const bool ballB = !wall && b.isBall(c.b);
      if ((held[c.a] & bit) != 0 || (ballB && (held[c.b] & bit) != 0)) {
        bad("a colour its ball already holds");
      }
      held[c.a] |= bit;
      if (ballB) held[c.b] |= bit;
    }
  }
}

// The colours each ball holds: exactly those of its contacts (the solver
// colours new contacts around them; a wrong entry would give one ball two
// contacts of a colour, solved at once on two threads).
void checkColourUse(const State& s) {
  std::vector<std::uint64_t> held(std::max(s.colourUse.size(), s.bodies.size()), 0);
  ConstraintGraph::colourUseOf(s.contacts, s.bodies, held);
  for (std::size_t i = 0; i < held.size(); ++i) {
    if ((i < s.colourUse.size() ? s.colourUse[i] : 0) != held[i]) {
      fail(fmt::format("body {}: colour use {:#x} does not match its contacts' colours {:#x}", i,
                       i < s.colourUse.size() ? s.colourUse[i] : 0, held[i]));
    }
  }
}

// Sorted unique pairs of live bodies, with their current generations (the
// events compare them with the next step's).
void checkTouching(const State& s) {
  for (std::size_t k = 0; k < s.touching.size(); ++k) {
    const TouchKey& t = s.touching[k];
    auto live = [&](std::uint32_t slot, std::uint32_t gen) {
      return slot < s.denseOf.size() && s.denseOf[slot] != kNoBody && s.generation[slot] == gen;
    };
    if (!(t.slotA < t.slotB) || !live(t.slotA, t.genA) || !live(t.slotB, t.genB) ||
        (k > 0 && !(s.touching[k - 1] < t))) {
      fail(fmt::format("touching pair {} (slots {} and {}) is not of live bodies or out of order",
                       k, t.slotA, t.slotB));
    }
  }
}

}  // namespace quadbin::snapshots
