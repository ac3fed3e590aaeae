// The contact store (contact_store.hpp): persistent contacts, carry-over,
// the rollback of a failed step, bodies destroyed between steps.
#include "contacts/contact_store.hpp"

#include "bodies/capacity.hpp"
#include "bodies/kept_scratch.hpp"

#include <algorithm>
#include <cassert>

namespace quadbin {

using contacts::isWall;
using contacts::orient;
using contacts::sameBodies;

namespace {
constexpr std::uint32_t kContactChunk = 4096;       // contacts per task (a constant: deterministic)
constexpr std::uint32_t kSerialColouring = 4096;    // fewer new contacts: coloured on one thread
constexpr std::uint32_t kGone = ~std::uint32_t{0};  // beginRemovals: a removed body's index after
}  // namespace

std::span<ContactStore::Contact> ContactStore::beginStep(std::size_t count) {
  previous_.swap(contacts_);
  setAside_ = true;
  contacts_.resize(count);
  return contacts_;
}

// Contacts that were there in the last step keep their impulse and colour;
// those that ended give their colour back. Both lists are canonical, so
// each chunk finds its start by binary search and then walks, marking the
// last step's contacts it finds (each at most once: the keys are unique)
// and listing the new ones, in order, for colourNew; the unmarked ones
// ended. The second region also lists, per chunk, the new contacts with a
// ball the chunk does not own (colourNew).
void ContactStore::carryOver(ConstraintGraph& graph, const BodyStore& bodies, TaskSystem& tasks,
                             FunctionRef<void(std::uint32_t, std::uint32_t)> fill) {
  const auto count = static_cast<std::uint32_t>(contacts_.size());
  const auto before = static_cast<std::uint32_t>(previous_.size());
  carried_.assign(before, 0);
  chunk_ = chunkFor(count);
  const std::uint32_t chunks = chunkCount(count, chunk_);
  fresh_.reset(chunks);
  forEachChunk(tasks, count, chunk_,
               [&](std::uint32_t chunk, std::uint32_t begin, std::uint32_t end) {
                 fill(begin, end);
                 std::vector<std::uint32_t>& fresh = fresh_[chunk];
                 auto it = std::lower_bound(previous_.begin(), previous_.end(), contacts_[begin]);
                 for (std::uint32_t k = begin; k < end; ++k) {
                   while (it != previous_.end() && *it < contacts_[k]) ++it;
                   if (it == previous_.end() || !sameBodies(*it, contacts_[k])) {
                     fresh.push_back(k);
                     continue;
                   }
                   contacts_[k].lambda = it->lambda;
                   contacts_[k].shift = it->shift;
                   contacts_[k].tangent = it->tangent;
                   contacts_[k].rolling = it->rolling;
                   contacts_[k].colour = it->colour;
                   carried_[static_cast<std::size_t>(it - previous_.begin())] = 1;
                 }
               });
  // A colour given back is a bit cleared: an atomic AND, in any order.
  const std::uint32_t giveBackChunk = chunkFor(before);
  const std::uint32_t giveBackTasks = chunkCount(before, giveBackChunk);
  rangeFirst_.resize(std::size_t{chunks} + 1);
  for (std::uint32_t c = 0; c < chunks; ++c) rangeFirst_[c] = contacts_[std::size_t{c} * chunk_].a;
  rangeFirst_[chunks] = ~std::uint32_t{0};
  crossing_.reset(chunks);
  tasks.forkJoin(giveBackTasks + chunks, [&](std::uint32_t t) {
    if (t < giveBackTasks) {
      const std::uint32_t begin = t * giveBackChunk, end = std::min(before, begin + giveBackChunk);
      for (std::uint32_t k = begin; k < end; ++k) {
        if (carried_[k] == 0) graph.giveBackConcurrently(previous_[k]);
      }
      return;
    }
    const std::uint32_t c = t - giveBackTasks;
    for (const std::uint32_t k : fresh_[c]) {
      if (ownedBy(bodies, c, contacts_[k]).crosses()) crossing_[c].push_back(k);
    }
  });
}

ContactStore::Owned ContactStore::ownedBy(const BodyStore& bodies, std::uint32_t range,
                                          const Contact& c) const noexcept {
  auto owned = [&](std::uint32_t i) {
    return i >= rangeFirst_[range] && i < rangeFirst_[range + 1];
  };
  const bool ballB = !isWall(c.b) && bodies.isBall(c.b);
  return {owned(c.a), ballB, ballB && owned(c.b)};
}

// Bit for bit the colours of the serial greedy colouring in canonical order
// (each new contact the lowest colour neither ball holds), for any thread
// count. Chunk c of carryOver owns the balls from its first contact's a up
// to the next chunk's (a ball appears in an earlier chunk's contact only as
// a crossing one's: contacts are sorted by a, and a < b). Each chunk walks
// its new contacts in order and colours one unless it crosses or touches a
// tainted ball; then it defers it and taints its own balls, so that every
// later contact of those balls waits too. The crossing contacts first taint
// the balls they reach in later chunks (serially: they are few). A contact
// coloured in parallel thus has no earlier new contact on its balls that is
// coloured elsewhere: it sees the bits it would see serially, and the
// deferred ones, coloured last in canonical order, see the same too.
void ContactStore::colourNew(ConstraintGraph& graph, const BodyStore& bodies, TaskSystem& tasks) {
  const std::uint32_t chunks = fresh_.size();
  tainted_.resize(bodies.size(), 0);
  for (std::uint32_t c = 0; c < chunks; ++c) {
    for (const std::uint32_t k : crossing_[c]) {
      const Contact& con = contacts_[k];
      const Owned own = ownedBy(bodies, c, con);
      if (!own.a) tainted_[con.a] = 1;
      if (own.ballB && !own.b) tainted_[con.b] = 1;
    }
  }
  deferred_.reset(chunks);
  auto colourChunk = [&](std::uint32_t c) {
    std::vector<std::uint32_t>& deferred = deferred_[c];
    for (const std::uint32_t k : fresh_[c]) {
      Contact& con = contacts_[k];
      const Owned own = ownedBy(bodies, c, con);
      // Only this chunk's balls' flags are read or written here.
      if (!own.crosses() && tainted_[con.a] == 0 && (!own.b || tainted_[con.b] == 0)) {
        con.colour = graph.colour(bodies, con.a, con.b);
        continue;
      }
      deferred.push_back(k);
      if (own.a) tainted_[con.a] = 1;
      if (own.b) tainted_[con.b] = 1;
    }
  };
  if (fresh_.totalSize() < kSerialColouring) {  // less than a region costs: the same, serially
    for (std::uint32_t c = 0; c < chunks; ++c) colourChunk(c);
  } else {
    tasks.forkJoin(chunks, colourChunk);
  }
  for (std::uint32_t c = 0; c < chunks; ++c) {
    for (const std::uint32_t k : deferred_[c]) {
      Contact& con = contacts_[k];
      con.colour = graph.colour(bodies, con.a, con.b);
      tainted_[con.a] = 0;
      if (!isWall(con.b) && con.b < tainted_.size()) tainted_[con.b] = 0;
    }
  }
}

bool ContactStore::contains(const Contact& c) const noexcept {
  const auto it = std::lower_bound(contacts_.begin(), contacts_.end(), c);
  return it != contacts_.end() && sameBodies(*it, c);
}

void ContactStore::restore(std::vector<Contact> contacts) noexcept {
  contacts_ = std::move(contacts);
  previous_.clear();
  setAside_ = false;
}

// Contacts found later in the step (few) into the canonical list: each goes where its
// pair belongs (no extra pair is in the list), and the contacts between two
// of them move up by the number of extras before them, copied in parallel
// into merged_, which then becomes the list (previous_ is kept for rollBack):
// what std::inplace_merge gives, without its serial pass and its buffer
// allocated every step.
void ContactStore::merge(std::vector<Contact>& extra, TaskSystem& tasks) {
  std::sort(extra.begin(), extra.end());
  const auto count = static_cast<std::uint32_t>(contacts_.size());
  const auto extras = static_cast<std::uint32_t>(extra.size());
  extraAt_.resize(extras);
  for (std::uint32_t j = 0; j < extras; ++j) {
    extraAt_[j] = static_cast<std::uint32_t>(
        std::lower_bound(contacts_.begin(), contacts_.end(), extra[j]) - contacts_.begin());
  }
  merged_.resize(std::size_t{count} + extras);
  const Contact* from = contacts_.data();
  Contact* to = merged_.data();
  forEachChunk(tasks, count, kContactChunk,
               [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) {
                 // Contact k moves up by the extras that go before it: at <= k.
                 auto j = static_cast<std::uint32_t>(
                     std::upper_bound(extraAt_.begin(), extraAt_.end(), begin) - extraAt_.begin());
                 for (std::uint32_t k = begin; k < end;) {
                   while (j < extras && extraAt_[j] <= k) ++j;
                   const std::uint32_t stop = j < extras ? std::min(end, extraAt_[j]) : end;
                   std::copy(from + k, from + stop, to + k + j);
                   k = stop;
                 }
               });
  for (std::uint32_t j = 0; j < extras; ++j) to[extraAt_[j] + j] = extra[j];
  contacts_.swap(merged_);
}

// The first `kept` contacts, still in canonical order, and renamed_ (the
// contacts whose bodies got new indices) merged into one canonical list,
// in place from the back; renamed_ is emptied.
void ContactStore::mergeRenamed(std::size_t kept) noexcept {
  std::sort(renamed_.begin(), renamed_.end());
  contacts_.resize(kept + renamed_.size());  // no larger than before: no allocation
  auto out = contacts_.end();
  auto from = contacts_.begin() + static_cast<std::ptrdiff_t>(kept);
  for (auto r = renamed_.end(); r != renamed_.begin();) {
    *--out = from != contacts_.begin() && r[-1] < from[-1] ? *--from : *--r;
  }
  renamed_.clear();
}

// A read-only scan finds the few contacts that name either body: the
// removed body's are dropped, the moved body's are renamed and set aside
// (their place in the canonical order changes; a pair of balls whose order
// flips swaps its ends, as World::optimizeLayout's renumbering does), and
// the runs of others between them close up in order, block by block; then
// the few set aside are merged back in, from the end.
void ContactStore::removeBody(const BodyStore& bodies, ConstraintGraph& graph,
                              std::uint32_t removed, std::uint32_t last) noexcept {
  auto now = [=](std::uint32_t i) { return i == last ? removed : i; };  // index after the move
  auto isBall = [&](std::uint32_t i) { return !isWall(i) && bodies.isBall(now(i)); };
  auto giveBack = [&](std::uint32_t i, std::uint8_t colour) {
    if (i != removed && isBall(i)) graph.giveBack(i, colour);
  };
  const auto count = static_cast<std::uint32_t>(contacts_.size());
  try {
    affected_.clear();
    for (std::uint32_t k = 0; k < count; ++k) {
      const Contact& c = contacts_[k];
      if (c.a == removed || c.b == removed || c.a == last || c.b == last) affected_.push_back(k);
    }
    renamed_.clear();
    renamed_.reserve(affected_.size());
  } catch (...) {  // std::bad_alloc: nothing has changed yet
    forget(graph);
    return;
  }
  std::uint32_t kept = affected_.empty() ? count : affected_[0];
  for (std::size_t j = 0; j < affected_.size(); ++j) {
    Contact c = contacts_[affected_[j]];
    if (c.a == removed || c.b == removed) {
      giveBack(c.a == removed ? c.b : c.a, c.colour);
    } else {
      c.a = now(c.a);
      c.b = isWall(c.b) ? c.b : now(c.b);
      orient(c, bodies);
      renamed_.push_back(c);  // reserved: no allocation
    }
    const std::uint32_t begin = affected_[j] + 1;
    const std::uint32_t end = j + 1 < affected_.size() ? affected_[j + 1] : count;
    std::copy(contacts_.begin() + begin, contacts_.begin() + end, contacts_.begin() + kept);
    kept += end - begin;
  }
  mergeRenamed(kept);
  graph.moveBody(removed, last);
  assert(consistent(bodies, graph));
}

void ContactStore::beginRemovals(const BodyStore& bodies, ConstraintGraph& graph,
                                 std::span<const std::uint32_t> removed) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  // The removals in turn on an index map: at[j] is the body now at index j
  // (by its index before), after_ the reverse, then each body's index after.
  // Both are kept at the identity between calls (at least n long), and
  // only the entries a removal changes are written, then put back: a few
  // removals from a large world clear no n-long maps.
  restoreRemovalMaps();         // a begin whose end never came
  growIdentity(removalAt_, n);  // may throw: the maps stay the identity
  growIdentity(after_, n);
  removalTouched_.reserve(3 * removed.size());
  std::vector<std::uint32_t>& at = removalAt_;
  std::uint32_t size = n;
  for (const std::uint32_t body : removed) {
    const std::uint32_t hole = after_[body], moved = at[--size];
    at[hole] = moved;
    after_[moved] = hole;
    after_[body] = kGone;
    for (const std::uint32_t k : {hole, moved, body}) removalTouched_.push_back(k);  // reserved
  }
  auto renamed = [&](const Contact& c) {
    return after_[c.a] != c.a || (!isWall(c.b) && after_[c.b] != c.b);
  };
  // One pass over the contacts: where the renamed ones are (a removed
  // body's are among them), then room for them; the allocations come
  // before anything changes.
  std::vector<std::uint32_t>& moving = affected_;
  moving.clear();
  renamed_.clear();
  try {
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      if (renamed(contacts_[k])) moving.push_back(static_cast<std::uint32_t>(k));
    }
    renamed_.reserve(moving.size());  // the last allocation: nothing has changed yet
  } catch (...) {
    restoreRemovalMaps();
    throw;
  }
  // The removed bodies' contacts give their colours back to the balls that
  // stay (a removed ball's own colours go with its entry).
  auto ball = [&](std::uint32_t i) { return !isWall(i) && bodies.isBall(i); };
  for (const std::uint32_t k : moving) {
    const Contact& c = contacts_[k];
    const bool goneA = after_[c.a] == kGone, goneB = !isWall(c.b) && after_[c.b] == kGone;
    if (goneA == goneB) continue;  // both stay, or both go
    const std::uint32_t stays = goneA ? c.b : c.a;
    if (ball(stays)) graph.giveBack(stays, c.colour);
  }
}

void ContactStore::restoreRemovalMaps() noexcept {
  for (const std::uint32_t k : removalTouched_) removalAt_[k] = after_[k] = k;
  removalTouched_.clear();
}

void ContactStore::endRemovals(const BodyStore& bodies,
                               [[maybe_unused]] const ConstraintGraph& graph) noexcept {
  // beginRemovals listed where the renamed contacts are (affected_, in
  // order): those leave, renamed or dropped, and the runs between them
  // move down in blocks, in order still.
  const std::vector<std::uint32_t>& moving = affected_;
  std::size_t kept = moving.empty() ? contacts_.size() : moving.front();
  for (std::size_t j = 0; j < moving.size(); ++j) {
    const Contact& c = contacts_[moving[j]];
    const std::uint32_t a = after_[c.a], b = isWall(c.b) ? c.b : after_[c.b];
    if (a != kGone && b != kGone) {
      Contact moved = c;
      moved.a = a;
      moved.b = b;
      contacts::orient(moved, bodies);
      renamed_.push_back(moved);  // reserved: no allocation
    }
    const std::size_t from = std::size_t{moving[j]} + 1;
    const std::size_t to = j + 1 < moving.size() ? moving[j + 1] : contacts_.size();
    std::copy(contacts_.begin() + static_cast<std::ptrdiff_t>(from),
              contacts_.begin() + static_cast<std::ptrdiff_t>(to),
              contacts_.begin() + static_cast<std::ptrdiff_t>(kept));
    kept += to - from;
  }
  mergeRenamed(kept);
  restoreRemovalMaps();
  assert(consistent(bodies, graph));
}

void ContactStore::dropBody(const BodyStore& bodies, ConstraintGraph& graph,
                            std::uint32_t i) noexcept {
  auto isBall = [&](std::uint32_t k) { return !isWall(k) && bodies.isBall(k); };
  std::size_t kept = 0;
  for (const Contact& c : contacts_) {
    if (c.a != i && c.b != i) {
      contacts_[kept++] = c;
      continue;
    }
    if (isBall(c.a)) graph.giveBack(c.a, c.colour);
    if (isBall(c.b)) graph.giveBack(c.b, c.colour);
  }
  contacts_.resize(kept);  // smaller: no allocation
  assert(consistent(bodies, graph));
}

bool ContactStore::consistent(const BodyStore& bodies, const ConstraintGraph& graph) const {
  const std::size_t n = bodies.size();
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    if (c.a >= n || (!isWall(c.b) && c.b >= n)) return false;
    if (k > 0 && !(contacts_[k - 1] < c)) return false;
  }
  return graph.matches(contacts_, bodies);
}

void ContactStore::rollBack(const BodyStore& bodies, ConstraintGraph& graph) noexcept {
  if (!setAside_) return;  // the step failed before it replaced them
  contacts_.swap(previous_);
  setAside_ = false;
  graph.rebuild(contacts_, bodies);  // as after every step
  assert(consistent(bodies, graph));
}

// merged_ is scratch here (merge swapped the list before it in): emptied
// first, so that growing it copies nothing into memory not yet touched.
void ContactStore::reserveRenumber() {
  merged_.clear();
  reserveGrowing(merged_, contacts_.size());
}

// The contacts of bodies that keep their index keep their order: only the
// others are sorted (in merged_, scratch between steps, with the room
// reserveRenumber made: a renumbering of a few bodies costs a pass and a
// small sort), and merged back in from the end.
void ContactStore::renumber(const Permutation& p, Permutation::Direction d,
                            const BodyStore& bodies) noexcept {
  auto renamed = [&](Contact c) {
    c.a = p.map(c.a, d);
    if (!contacts::isWall(c.b)) c.b = p.map(c.b, d);
    contacts::orient(c, bodies);
    return c;
  };
  auto moves = [&](const Contact& c) {
    return p.map(c.a, d) != c.a || (!contacts::isWall(c.b) && p.map(c.b, d) != c.b);
  };
  if (contacts_.size() > merged_.capacity() &&
      static_cast<std::size_t>(std::count_if(contacts_.begin(), contacts_.end(), moves)) >
          merged_.capacity()) {
    for (Contact& c : contacts_) c = renamed(c);
    std::sort(contacts_.begin(), contacts_.end());  // in place: allocates nothing
    return;
  }
  merged_.clear();
  std::size_t kept = 0;
  for (const Contact& c : contacts_) {
    if (moves(c)) {
      merged_.push_back(renamed(c));
    } else {
      contacts_[kept++] = c;
    }
  }
  if (merged_.empty()) return;
  std::sort(merged_.begin(), merged_.end());
  // From the back: the write position stays above the kept ones' read one.
  std::size_t at = contacts_.size(), i = kept, j = merged_.size();
  while (j > 0) {
    if (i > 0 && merged_[j - 1] < contacts_[i - 1]) {
      contacts_[--at] = contacts_[--i];
    } else {
      contacts_[--at] = merged_[--j];
    }
  }
}

void ContactStore::forget(ConstraintGraph& graph) noexcept {
  setAside_ = false;
  contacts_.clear();
  previous_.clear();
  graph.clear();
}

}  // namespace quadbin
