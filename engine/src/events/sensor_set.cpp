// Sensors, the contact filter and the geometry of contact events (see
// sensor_set.hpp).
#include "events/sensor_set.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <quadbin/narrowphase.hpp>

#include "bodies/ball_geometry.hpp"
#include "bodies/solid.hpp"
#include "events/sensor_sweep.hpp"

namespace quadbin {

namespace {
constexpr std::uint32_t kPairChunk = 16384;  // candidate pairs per task: a constant

bool sensorOverlaps(const BodyStore& b, std::uint32_t sensor, std::uint32_t ball) noexcept {
  const Vec2 c{b.px[ball], b.py[ball]};
  const float r = b.radius[ball];
  if (b.isCircle(sensor)) {
    const float reach = r + b.radius[sensor];
    return lengthSquared(Vec2{b.px[sensor], b.py[sensor]} - c) < reach * reach;
  }
  return lengthSquared(c - solid::closestPoint(solid::of(b, sensor), c)) < r * r;
}

// The ball's path from its start p0 to its end, moved with the sensor (which
// went from s0 to where it is): touched if it came closer than its radius.
bool sensorSwept(const BodyStore& b, std::uint32_t sensor, std::uint32_t ball, Vec2 s0,
                 Vec2 p0) noexcept {
  const Vec2 s1{b.px[sensor], b.py[sensor]};
  const Vec2 from = p0 + (s1 - s0), to{b.px[ball], b.py[ball]};
  const float r = b.radius[ball];
  if (b.isCircle(sensor)) return sweep::sweptBallTouchesCircle(from, to, r, s1, b.radius[sensor]);
  if (b.shape[sensor] == kNoHull)
    return sweep::sweptBallTouchesBox(from, to, r, b.tightBox(sensor));
  // A hull: the path comes within r (the ends strictly, as for boxes).
  const solid::Solid s = solid::of(b, sensor);
  if (lengthSquared(from - solid::closestPoint(s, from)) < r * r) return true;
  return solid::raycast(Ray{from, to - from, 1.0f}, s, r).has_value();
}
}  // namespace

// ---- contact filter ---------------------------------------------------------

ContactFilter ContactGate::filter() const noexcept {
  const bool callback = preSolve != nullptr && static_cast<bool>(*preSolve);
  if (bodies->sensorCount == 0 && !callback) return {};
  return {this, &ContactGate::allows};
}

bool ContactGate::allows(const void* context, std::uint32_t a, std::uint32_t b) {
  const auto& g = *static_cast<const ContactGate*>(context);
  const BodyStore& s = *g.bodies;
  if ((s.sensor[a] | s.sensor[b]) != 0) return false;
  if (g.preSolve == nullptr || !*g.preSolve) return true;
  const Vec2 c{s.px[a], s.py[a]};
  const Vec2 normal = s.isCircle(b) ? normalizeOr(Vec2{s.px[b], s.py[b]} - c)
                                    : solid::ballTo(solid::of(s, b), c).first;
  return (*g.preSolve)(g.ids.id(a), g.ids.id(b), normal);
}

// ---- sensors -----------------------------------------------------------------

void SensorSet::update(const BodyStore& bodies, std::span<const float> px0,
                       std::span<const float> py0, std::span<const Pair> pairs, const IdMap& ids,
                       TaskSystem& tasks) {
  touched_.clear();
  if (bodies.sensorCount > 0) {
    const auto count = static_cast<std::uint32_t>(pairs.size());
    buffers_.reset(chunkCount(count, kPairChunk));
    forEachChunk(
        tasks, count, kPairChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
          for (std::uint32_t k = begin; k < end; ++k) {
            std::uint32_t s = pairs[k].a, v = pairs[k].b;
            if (bodies.sensor[s] == bodies.sensor[v]) continue;  // none or both
            if (bodies.sensor[v] != 0) std::swap(s, v);
            if (!bodies.isBall(v)) continue;
            const bool atEnd = sensorOverlaps(bodies, s, v);
            if (!atEnd && !sensorSwept(bodies, s, v, {px0[s], py0[s]}, {px0[v], py0[v]})) continue;
            const std::uint32_t ss = ids.slotOf[s], vs = ids.slotOf[v];
            buffers_[c].push_back({{ss, ids.generation[ss], vs, ids.generation[vs]}, atEnd});
          }
        });
    buffers_.appendTo(tasks, touched_);
    std::sort(touched_.begin(), touched_.end());
  }
  nextValid_ = true;
  makeEvents(ids.worldId);
}

void SensorSet::updateAsleep(std::uint32_t worldId) {
  nextValid_ = false;
  makeEvents(worldId);
}

// Merge walk over the sorted overlaps of the last step and this step's
// touches: a touch that was no overlap begins, an overlap that is no longer
// one ends (a touch may do both). The pending ends of destroyed bodies join
// the end events in key order.
void SensorSet::makeEvents(std::uint32_t worldId) {
  nextBegin_.clear();
  nextEnd_.clear();
  auto event = [worldId](const SensorKey& k) {
    return SensorEvent{{k.sensorSlot, k.sensorGen, worldId},
                       {k.visitorSlot, k.visitorGen, worldId}};
  };
  std::vector<SensorKey>& ended = pendingEnd_;
  if (nextValid_) {
    next_.clear();
    std::size_t i = 0, j = 0;
    while (i < touched_.size() || j < overlaps_.size()) {
      if (j == overlaps_.size() || (i < touched_.size() && touched_[i].key < overlaps_[j])) {
        nextBegin_.push_back(event(touched_[i].key));
        if (!touched_[i].atEnd) nextEnd_.push_back(event(touched_[i].key));
      } else if (i == touched_.size() || overlaps_[j] < touched_[i].key) {
        nextEnd_.push_back(event(overlaps_[j++]));
        continue;
      } else {
        if (!touched_[i].atEnd) nextEnd_.push_back(event(overlaps_[j]));
        ++j;
      }
      if (touched_[i].atEnd) next_.push_back(touched_[i].key);
      ++i;
    }
  }
  if (!ended.empty()) {
    for (const SensorKey& k : ended) nextEnd_.push_back(event(k));
    std::sort(nextEnd_.begin(), nextEnd_.end(), [](const SensorEvent& l, const SensorEvent& r) {
      return SensorKey{l.sensor.index, l.sensor.generation, l.visitor.index, l.visitor.generation} <
             SensorKey{r.sensor.index, r.sensor.generation, r.visitor.index, r.visitor.generation};
    });
  }
}

void SensorSet::commit() noexcept {
  begin_.swap(nextBegin_);
  end_.swap(nextEnd_);
  if (nextValid_) overlaps_.swap(next_);
  nextValid_ = false;
  pendingEnd_.clear();
}

template <class Gone>
void SensorSet::endOverlaps(Gone gone) {
  for (const SensorKey& k : overlaps_) {
    if (gone(k)) pendingEnd_.insert(std::upper_bound(pendingEnd_.begin(), pendingEnd_.end(), k), k);
  }
  std::erase_if(overlaps_, gone);
}

void SensorSet::forgetBody(std::uint32_t slot) {
  endOverlaps([slot](const SensorKey& k) { return k.sensorSlot == slot || k.visitorSlot == slot; });
}

void SensorSet::forgetVisitor(std::uint32_t slot) {
  endOverlaps([slot](const SensorKey& k) { return k.visitorSlot == slot; });
}

void SensorSet::restoreState(std::vector<SensorKey> overlaps,
                             std::vector<SensorKey> pendingEnd) noexcept {
  overlaps_ = std::move(overlaps);
  pendingEnd_ = std::move(pendingEnd);
  begin_.clear();
  end_.clear();
  nextValid_ = false;
}

// ---- event geometry ------------------------------------------------------------

namespace {
// Where two circles touch, from a's side: halfway across the gap along the
// unit normal n from a to b (len: the distance between the centres).
Vec2 circlePoint(Vec2 pa, Vec2 n, float len, float ra, float rb) noexcept {
  const float gap = len - ra - rb;
  return pa + n * (ra + 0.5f * gap);
}
}  // namespace

void EventGeometry::fill(ContactEvent& e, std::uint32_t a, std::uint32_t b) const noexcept {
  const BodyStore& s = bodies;
  const Vec2 pa{s.px[a], s.py[a]}, pb{s.px[b], s.py[b]};
  if (s.isCircle(a) && s.isCircle(b)) {
    const Vec2 d = pb - pa;
    e.normal = normalizeOr(d);
    e.point = circlePoint(pa, e.normal, length(d), s.radius[a], s.radius[b]);
  } else {
    const bool ballFirst = s.isBall(a);
    const std::uint32_t ball = ballFirst ? a : b, box = ballFirst ? b : a;
    const auto [n, q] = solid::ballTo(solid::of(s, box), Vec2{s.px[ball], s.py[ball]});
    e.normal = ballFirst ? n : -n;
    e.point = q;
  }
  e.approachSpeed = std::max(0.0f, dot(startVelocity(a) - startVelocity(b), e.normal));
}

// Two circles apart (almost every contact) get their approach speed as
// fill computes it, but in the contact's order rather than the slot order:
// swapping a and b negates the offset, the normal and the relative velocity
// exactly, so the length and the speed are the same bits, and most contacts
// stop there. A hit is fill's event in the slot order, made from the same
// values (from b's side where b's slot comes first: fill's normal is then
// -n, bit for bit). Coincident centres (whose fallback normal is not
// negated by a swap) and boxes are unsure: hit asks fill.
EventGeometry::Verdict EventGeometry::circleHit(std::uint32_t a, std::uint32_t b, const IdMap& ids,
                                                float threshold,
                                                ContactHitEvent& h) const noexcept {
  const BodyStore& s = bodies;
  if (!s.isCircle(a) || !s.isCircle(b)) return Verdict::kUnsure;
  const Vec2 pa{s.px[a], s.py[a]}, pb{s.px[b], s.py[b]};
  const Vec2 d = pb - pa;
  const float len = length(d);
  if (!(len > 0.0f)) return Verdict::kUnsure;
  const Vec2 n = d / len;
  const float speed = std::max(0.0f, dot(startVelocity(a) - startVelocity(b), n));
  if (!(speed > threshold)) return Verdict::kNoHit;
  const bool flip = ids.slotOf[b] < ids.slotOf[a];
  const std::uint32_t first = flip ? b : a, second = flip ? a : b;
  h.a = ids.id(first);
  h.b = ids.id(second);
  h.normal = flip ? -n : n;
  h.point = circlePoint(flip ? pb : pa, h.normal, len, s.radius[first], s.radius[second]);
  h.wall = WallSide::None;
  h.approachSpeed = speed;
  return Verdict::kHit;
}

// Inlined into hits' loop, as circleHit is here.
[[gnu::always_inline]] inline bool EventGeometry::hit(const contacts::Contact& c, const IdMap& ids,
                                                      float threshold,
                                                      ContactHitEvent& h) const noexcept {
  if (c.touched == 0) return false;
  const BodyStore& s = bodies;
  if (contacts::isWall(c.b)) {
    const std::uint32_t side = contacts::wallSide(c.b);
    static constexpr Vec2 kNormals[4] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    h.normal = kNormals[side];
    h.approachSpeed = dot(startVelocity(c.a), h.normal);
    if (!(h.approachSpeed > threshold)) return false;
    const Vec2 p{s.px[c.a], s.py[c.a]};
    h.point = side == 0   ? Vec2{bounds.min.x, p.y}
              : side == 1 ? Vec2{bounds.max.x, p.y}
              : side == 2 ? Vec2{p.x, bounds.min.y}
                          : Vec2{p.x, bounds.max.y};
    h.a = ids.id(c.a);
    h.b = {};
    h.wall = static_cast<WallSide>(side + 1);
    return true;
  }
  const Verdict v = circleHit(c.a, c.b, ids, threshold, h);
  if (v != Verdict::kUnsure) return v == Verdict::kHit;
  // In slot order, as contact events are.
  std::uint32_t a = c.a, b = c.b;
  if (ids.slotOf[b] < ids.slotOf[a]) std::swap(a, b);
  ContactEvent e;
  fill(e, a, b);
  if (!(e.approachSpeed > threshold)) return false;
  h.a = ids.id(a);
  h.b = ids.id(b);
  h.wall = WallSide::None;
  h.point = e.point;
  h.normal = e.normal;
  h.approachSpeed = e.approachSpeed;
  return true;
}

void EventGeometry::hits(std::span<const contacts::Contact> contacts, const IdMap& ids,
                         float threshold, OrderedBuffers<ContactHitEvent>& buffers,
                         HitSortSpace& space, std::vector<ContactHitEvent>& out,
                         TaskSystem& tasks) const {
  // By the count alone, never the thread count (passChunk: a 100,000-ball
  // step has some thousands of contacts, which 16,384 left to one task).
  const std::uint32_t contactChunk = passChunk(static_cast<std::uint32_t>(contacts.size()));
  constexpr std::uint32_t kWallSides = 4;  // WallSide::MinX .. MaxY
  const auto count = static_cast<std::uint32_t>(contacts.size());
  // By (a's slot, b's slot), a wall (null b) after every body of the same a.
  const auto slots = static_cast<std::uint32_t>(ids.generation.size());
  auto second = [slots](const ContactHitEvent& h) {
    return h.wall == WallSide::None ? h.b.index : slots + static_cast<std::uint32_t>(h.wall);
  };
  auto before = [&](const ContactHitEvent& l, const ContactHitEvent& r) {
    return std::pair{l.a.index, second(l)} < std::pair{r.a.index, second(r)};
  };
  // Contacts come in canonical (dense) order: the hits are sorted already
  // while slots and dense indices are in the same order. Each chunk notes
  // whether its own came out in order; the boundaries are checked after.
  const std::uint32_t chunks = chunkCount(count, contactChunk);
  buffers.reset(chunks);
  space.inOrder.assign(chunks, 1);
  forEachChunk(tasks, count, contactChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::vector<ContactHitEvent>& found = buffers[c];
                 ContactHitEvent h;
                 for (std::uint32_t k = begin; k < end; ++k) {
                   if (!hit(contacts[k], ids, threshold, h)) continue;
                   if (!found.empty() && before(h, found.back())) space.inOrder[c] = 0;
                   found.push_back(h);
                 }
               });
  const bool sorted = buffers.joinedInOrder(space.inOrder, before);
  buffers.assignTo(tasks, out);  // over what `out` held: not cleared first
  if (sorted) return;
  // Else a radix sort of (a, second, index) keys on (a, second) alone, the
  // index riding along for the gather: a slot pair is one contact, so the
  // order is the comparison's.
  const auto n = static_cast<std::uint32_t>(out.size());
  const auto slotBits = static_cast<unsigned>(std::bit_width(slots + kWallSides));
  const auto indexBits = static_cast<unsigned>(std::bit_width(n));
  if (2 * slotBits + indexBits > 64) {
    std::sort(out.begin(), out.end(), before);
    return;
  }
  const std::uint32_t grain = passChunk(n);
  std::vector<std::uint64_t>& keys = space.keys;
  keys.resize(n);
  tasks.parallelFor(n, grain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint64_t pair = std::uint64_t{out[k].a.index} << slotBits | second(out[k]);
      keys[k] = pair << indexBits | k;
    }
  });
  parallelRadixSort(tasks, keys, space.scratch, space.counts, 2 * slotBits + indexBits, indexBits);
  const std::uint64_t mask = (std::uint64_t{1} << indexBits) - 1;
  space.sorted.resize(n);
  tasks.parallelFor(n, grain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) space.sorted[k] = out[keys[k] & mask];
  });
  out.swap(space.sorted);
}

}  // namespace quadbin
