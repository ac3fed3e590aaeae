#pragma once
// The checks World::restore runs on a snapshot it has read, each refusing
// with quadbin::Error ("World::restore: ..."), the world untouched.
#include <string>

#include "bodies/body_store.hpp"
#include "snapshot/snapshot.hpp"

namespace quadbin::snapshots {

[[noreturn]] void fail(const std::string& why);
// Every body within the limits of creation, its derived values in agreement.
void checkBodies(const BodyStore& b, const WorldDef& def);
/// After the outlines: only a kinematic outline turns, its surface within
/// limits::kMaxSpeed (checkBodies let every kinematic body that is not a
/// circle through).
void checkTurning(const BodyStore& b);
// slotOf a one-to-one map into the slots, the free list the rest; fills
// s.denseOf.
void checkSlots(State& s);
// Contacts between live bodies, their impulses and colours within bounds.
void checkContacts(const State& s);
// The colours each ball holds: exactly those of its contacts.
void checkColourUse(const State& s);
// Sorted unique touching pairs of live bodies.
void checkTouching(const State& s);

}  // namespace quadbin::snapshots
