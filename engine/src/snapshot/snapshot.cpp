// The snapshot format, version 3 (docs/snapshots.md): a 64-byte header,
// the WorldDef's simulation fields, the bodies as columns (materials, user
// data and filters included), the slots, the persistent contacts, the
// colours they hold, the touching pairs, the events and sensors block, and a
// 64-bit checksum of everything before it. Version 4 is version 3 with the
// bodies' outlines (segments, polygons) after the events block; a world
// without outlines writes version 3. Values are in the writer's byte
// order and IEEE-754 binary32, both recorded in the header and refused when
// they differ from the reader's.
#include "snapshot/snapshot.hpp"

#include <spdlog/fmt/fmt.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <quadbin/error.hpp>
#include <string>
#include <type_traits>
#include <utility>

#include "bodies/outline.hpp"
#include "bodies/validate.hpp"
#include "snapshot/snapshot_checks.hpp"

namespace quadbin::snapshots {

namespace {

constexpr std::array<char, 8> kMagic{'Q', 'B', 'S', 'N', 'A', 'P', '\r', '\n'};
constexpr std::uint32_t kHeaderBytes = 64;
constexpr std::uint32_t kByteOrder = 0x01020304;
constexpr float kFloatCheck = 1.0f / 3.0f;  // 0x3EAAAAAB in IEEE-754 binary32
constexpr std::uint32_t kDefBytes = 60;
constexpr std::uint64_t kBodyBytes = 1 + 13 * 4ull + 1 + 4 + 2 * 4ull  // per body, all columns
                                     + 6 * 4ull;  // materials, damping, forces, gravity scale
// Per body, after the body columns: user data, category bits, mask bits
// (8 bytes each) and group index (4).
constexpr std::uint64_t kFilterBytes = 3 * 8ull + 4;
constexpr std::uint64_t kContactBytes = 4 + 4 + 4 + 4 + 4 + 4 + 1 + 1;
constexpr std::uint64_t kTouchBytes = 4 * 4ull;
constexpr std::uint64_t kChecksumBytes = 8;

// 64 bits per word: xor, an odd multiply and a xorshift, each a bijection
// of the state, so a buffer that differs in one word (any single flipped
// byte) always gives another sum; about 4 GB/s.
std::uint64_t checksum(std::span<const std::byte> bytes) noexcept {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = 0x51ED270B27A3C5E1ull ^ bytes.size();
  const std::size_t words = bytes.size() / 8;
  for (std::size_t k = 0; k < words; ++k) {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes.data() + 8 * k, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, bytes.data() + 8 * words, bytes.size() - 8 * words);
  h = (h ^ tail) * kMul;
  h ^= h >> 32;
  return h;
}

std::uint64_t totalBytes(std::uint64_t bodies, std::uint64_t slots, std::uint64_t free,
                         std::uint64_t contacts, std::uint64_t colourUse,
                         std::uint64_t touching) noexcept {
  return kHeaderBytes + kDefBytes + bodies * kBodyBytes + 8 + bodies * kFilterBytes + bodies * 4 +
         slots * 4 + free * 4 + contacts * kContactBytes + colourUse * 8 + touching * kTouchBytes +
         kChecksumBytes;
}

class Writer {
 public:
  explicit Writer(std::size_t size) : out_(size) {}
  template <class T>
  void put(const T& value) noexcept {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(out_.data() + at_, &value, sizeof value);
    at_ += sizeof value;
  }
  template <class T>
  void putAll(std::span<const T> values) noexcept {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!values.empty()) std::memcpy(out_.data() + at_, values.data(), values.size_bytes());
    at_ += values.size_bytes();
  }
  [[nodiscard]] std::size_t at() const noexcept { return at_; }
  std::vector<std::byte> take() noexcept { return std::move(out_); }
  [[nodiscard]] std::span<const std::byte> written() const noexcept { return {out_.data(), at_}; }

 private:
  std::vector<std::byte> out_;
  std::size_t at_ = 0;
};

class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  template <class T>
  T get(const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T), what);
    T value{};
    std::memcpy(&value, in_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  template <class T>
  void getAll(std::vector<T>& out, std::uint64_t count, const char* what) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (count > (in_.size() - at_) / sizeof(T)) need(count * sizeof(T), what);
    out.resize(count);
    if (count != 0) std::memcpy(out.data(), in_.data() + at_, count * sizeof(T));
    at_ += count * sizeof(T);
  }
  [[nodiscard]] std::size_t at() const noexcept { return at_; }

 private:
  void need(std::uint64_t bytes, const char* what) const {
    if (bytes > in_.size() - at_) {
      fail(fmt::format("truncated: {} needs {} bytes at offset {}, {} are left", what, bytes, at_,
                       in_.size() - at_));
    }
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

void writeDef(Writer& w, const WorldDef& d) {
  const std::size_t start = w.at();
  w.put(d.bounds.min.x);
  w.put(d.bounds.min.y);
  w.put(d.bounds.max.x);
  w.put(d.bounds.max.y);
  w.put(d.boundary);
  w.put(d.gravity.x);
  w.put(d.gravity.y);
  w.put(d.restitution);
  w.put(static_cast<std::uint8_t>(d.restitutionThreshold.has_value()));
  w.put(d.restitutionThreshold.value_or(0.0f));
  w.put(static_cast<std::uint8_t>(d.enableSleep));
  w.put(d.sleepThreshold);
  w.put(d.timeToSleep);
  w.put(d.broadPhase);
  w.put(d.velocityIterations);
  w.put(d.solverPasses);
  w.put(d.positionPasses);
  w.put(d.wallFriction);
  (void)start;
  assert(w.at() - start == kDefBytes);
}

bool readFlag(Reader& r, const char* what) {
  const auto flag = r.get<std::uint8_t>(what);
  if (flag > 1) fail(fmt::format("{} = {} is not 0 or 1", what, flag));
  return flag != 0;
}

WorldDef readDef(Reader& r) {
  WorldDef d;
  d.bounds.min.x = r.get<float>("WorldDef.bounds");
  d.bounds.min.y = r.get<float>("WorldDef.bounds");
  d.bounds.max.x = r.get<float>("WorldDef.bounds");
  d.bounds.max.y = r.get<float>("WorldDef.bounds");
  d.boundary = r.get<Boundary>("WorldDef.boundary");
  d.gravity.x = r.get<float>("WorldDef.gravity");
  d.gravity.y = r.get<float>("WorldDef.gravity");
  d.restitution = r.get<float>("WorldDef.restitution");
  const bool hasThreshold = readFlag(r, "WorldDef.restitutionThreshold set");
  const auto threshold = r.get<float>("WorldDef.restitutionThreshold");
  if (hasThreshold) d.restitutionThreshold = threshold;
  if (!hasThreshold && std::bit_cast<std::uint32_t>(threshold) != 0) {
    fail("WorldDef.restitutionThreshold is unset but holds a value (a writer puts 0)");
  }
  d.enableSleep = readFlag(r, "WorldDef.enableSleep");
  d.sleepThreshold = r.get<float>("WorldDef.sleepThreshold");
  d.timeToSleep = r.get<float>("WorldDef.timeToSleep");
  d.broadPhase = r.get<BroadPhaseType>("WorldDef.broadPhase");
  d.velocityIterations = r.get<std::uint32_t>("WorldDef.velocityIterations");
  d.solverPasses = r.get<std::uint32_t>("WorldDef.solverPasses");
  d.positionPasses = r.get<std::uint32_t>("WorldDef.positionPasses");
  d.wallFriction = r.get<float>("WorldDef.wallFriction");
  d.threadCount = 1;  // the restoring world keeps its own
  return d;
}

void readBodies(Reader& r, BodyStore& b, std::uint32_t n) {
  r.getAll(b.type, n, "body types");
  for (auto* column : {&b.px, &b.py, &b.vx, &b.vy, &b.w, &b.angle, &b.friction, &b.rolling, &b.hx,
                       &b.hy, &b.radius, &b.mass, &b.invMass}) {
    r.getAll(*column, n, "body columns");
  }
  r.getAll(b.awake, n, "body awake flags");
  b.enabled.assign(n, 1);
  b.disabledCount = 0;
  b.shape.assign(n, kNoHull);  // the outlines come after the events block
  b.hulls.clear();
  b.freeHulls.clear();
  b.hullCount = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (b.awake[i] != kDisabled) continue;
    b.awake[i] = 0;
    b.enabled[i] = 0;
    ++b.disabledCount;
  }
  r.getAll(b.restTime, n, "body rest times");
  r.getAll(b.islandNext, n, "island links");
  r.getAll(b.islandPrev, n, "island links");
  b.maxRadius = r.get<float>("largest radius");
  b.maxRadiusCount =
      static_cast<std::uint32_t>(std::count(b.radius.begin(), b.radius.end(), b.maxRadius));
  b.boxCount = r.get<std::uint32_t>("box count");
  b.frictionBalls = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    b.frictionBalls += b.type[i] == BodyType::Ball && b.friction[i] > 0.0f ? 1u : 0u;
  }
  // Materials, damping and forces (forces.cpp): restitution, linear and
  // angular damping, and the force accumulated for the next step.
  for (auto* column :
       {&b.restitution, &b.linearDamping, &b.angularDamping, &b.fx, &b.fy, &b.gravityScale}) {
    r.getAll(*column, n, "body materials and forces");
  }
  b.dampedBalls = 0;
  b.scaledBalls = 0;
  b.forcesPending = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    b.dampedBalls += b.linearDamping[i] > 0.0f || b.angularDamping[i] > 0.0f ? 1u : 0u;
    b.scaledBalls += b.type[i] == BodyType::Ball && b.gravityScale[i] != 1.0f ? 1u : 0u;
    b.forcesPending = b.forcesPending || b.fx[i] != 0.0f || b.fy[i] != 0.0f;
  }
}

void readContacts(Reader& r, State& s, std::uint32_t count) {
  s.contacts.resize(count);
  for (contacts::Contact& c : s.contacts) {
    c.a = r.get<std::uint32_t>("contact");
    c.b = r.get<std::uint32_t>("contact");
    c.lambda = r.get<float>("contact");
    c.shift = r.get<float>("contact");
    c.tangent = r.get<float>("contact");
    c.rolling = r.get<float>("contact");
    c.colour = r.get<std::uint8_t>("contact");
    c.touched = r.get<std::uint8_t>("contact");
  }
}

// Whether the buffer is the sections before the events block (`before`
// bytes with the checksum) plus a whole events block.
bool eventsFit(std::span<const std::byte> buffer, std::uint64_t before, std::uint64_t bodies,
               bool hulls);

// ---- events and sensors: a block appended after the touching pairs ---------
// u32 counts of the pending contact ends, sensor overlaps and pending sensor
// ends; WorldDef::hitEventThreshold; one sensor flag byte per body; then the
// three lists of 16-byte keys.
constexpr std::uint64_t kEventHeadBytes = 3 * 4 + 4;

std::uint64_t eventBytes(std::uint64_t bodies, std::uint64_t keys) noexcept {
  return kEventHeadBytes + bodies + keys * kTouchBytes;
}

void writeEvents(Writer& w, const View& v) {
  w.put(static_cast<std::uint32_t>(v.pendingEnd.size()));
  w.put(static_cast<std::uint32_t>(v.sensorOverlaps.size()));
  w.put(static_cast<std::uint32_t>(v.sensorPendingEnd.size()));
  w.put(v.def.hitEventThreshold);
  w.putAll(std::span<const std::uint8_t>(v.bodies.sensor));
  for (const TouchKey& t : v.pendingEnd) w.put(t);
  for (const SensorKey& k : v.sensorOverlaps) w.put(k);
  for (const SensorKey& k : v.sensorPendingEnd) w.put(k);
}

// ---- outlines (version 4): after the events block ---------------------------
// u32 count, then per body with an outline: its dense index (u32, rising),
// the vertex count (u8), the chain flags (u8: 1 hasPrev, 2 hasNext), two
// bytes of padding, 8 vertices (the unused ones 0) and the previous and
// next vertex, as floats relative to the body's position.
constexpr std::uint64_t kHullBytes = 4 + 1 + 1 + 2 + 8 * 8ull + 2 * 8ull;

std::uint64_t hullBytes(std::uint64_t hulls) noexcept { return 4 + hulls * kHullBytes; }

void writeHulls(Writer& w, const BodyStore& b) {
  w.put(b.hullCount);
  for (std::uint32_t i = 0; i < b.size(); ++i) {
    const Hull* h = b.hullOf(i);
    if (h == nullptr) continue;
    w.put(i);
    w.put(h->count);
    w.put(static_cast<std::uint8_t>((h->hasPrev ? 1 : 0) | (h->hasNext ? 2 : 0)));
    w.put(std::uint16_t{0});
    for (const Vec2 v : h->vertices) w.put(v);
    w.put(h->hasPrev ? h->prev : Vec2{});
    w.put(h->hasNext ? h->next : Vec2{});
  }
}

// Two vectors with the same bits (+0 and -0 differ: the world writes back
// exactly what it read).
bool sameBits(Vec2 a, Vec2 b) noexcept {
  return std::bit_cast<std::uint32_t>(a.x) == std::bit_cast<std::uint32_t>(b.x) &&
         std::bit_cast<std::uint32_t>(a.y) == std::bit_cast<std::uint32_t>(b.y);
}

void readHulls(Reader& r, BodyStore& b, std::uint32_t n) {
  const auto count = r.get<std::uint32_t>("outline count");
  if (count > n) fail("more outlines than bodies");
  b.reserveHulls(count);
  std::uint32_t last = 0;
  for (std::uint32_t k = 0; k < count; ++k) {
    const auto i = r.get<std::uint32_t>("outline body");
    const auto vertices = r.get<std::uint8_t>("outline vertex count");
    const auto flags = r.get<std::uint8_t>("outline chain flags");
    const auto padding = r.get<std::uint16_t>("outline padding");
    std::array<Vec2, Hull::kMaxVertices> points{};
    for (Vec2& v : points) v = r.get<Vec2>("outline vertices");
    const auto prev = r.get<Vec2>("outline previous vertex");
    const auto next = r.get<Vec2>("outline next vertex");
    if (i >= n || (k > 0 && i <= last)) fail(fmt::format("outline {}: body {} out of order", k, i));
    last = i;
    if (b.isCircle(i) || b.type[i] == BodyType::Ball) {
      fail(fmt::format("body {}: a ball or kinematic ball has no outline", i));
    }
    std::optional<Hull> h;
    if (vertices == 2) {
      h = makeSegment(points[0], points[1], Vec2{});
    } else if (vertices >= 3 && vertices <= Hull::kMaxVertices) {
      h = makePolygon(std::span<const Vec2>(points.data(), vertices), Vec2{});
    }
    // The vertices as written, bit for bit (counter-clockwise already, so
    // the hull keeps them; the unused ones 0): what the world will write.
    if (!h || !std::equal(points.begin(), points.end(), h->vertices.begin(), sameBits)) {
      fail(fmt::format("body {}: outline of {} vertices is not a segment or convex polygon", i,
                       vertices));
    }
    if (flags > 3 || (vertices != 2 && flags != 0) || padding != 0) {
      fail(fmt::format("body {}: chain flags {} (only a segment has neighbours)", i, flags));
    }
    if (((flags & 1) == 0 && !sameBits(prev, Vec2{})) ||
        ((flags & 2) == 0 && !sameBits(next, Vec2{}))) {
      fail(fmt::format("body {}: a chain neighbour is set but not flagged", i));
    }
    h->hasPrev = (flags & 1) != 0;
    h->hasNext = (flags & 2) != 0;
    h->prev = h->hasPrev ? prev : Vec2{};
    h->next = h->hasNext ? next : Vec2{};
    for (const Vec2 p : {h->prev, h->next}) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || std::abs(p.x) > limits::kMaxSize ||
          std::abs(p.y) > limits::kMaxSize) {
        fail(fmt::format("body {}: a chain neighbour is not finite or too far", i));
      }
    }
    const Vec2 half = outline::halfOf(*h);
    if (half.x > b.hx[i] || half.y > b.hy[i]) {
      fail(fmt::format("body {}: halfExtents ({}, {}) do not hold its outline", i, b.hx[i],
                       b.hy[i]));
    }
    b.setHull(i, *h);
  }
}

bool eventsFit(std::span<const std::byte> buffer, std::uint64_t before, std::uint64_t bodies,
               bool hulls) {
  const std::uint64_t at = before - kChecksumBytes;  // where the block starts
  if (buffer.size() < before + eventBytes(bodies, 0)) return false;
  std::array<std::uint32_t, 3> counts{};
  std::memcpy(counts.data(), buffer.data() + at, sizeof counts);
  const std::uint64_t events =
      before + eventBytes(bodies, std::uint64_t{counts[0]} + counts[1] + counts[2]);
  if (!hulls) return events == buffer.size();
  if (buffer.size() < events + hullBytes(0)) return false;
  std::uint32_t outlines = 0;
  std::memcpy(&outlines, buffer.data() + events - kChecksumBytes, sizeof outlines);
  return events + hullBytes(outlines) == buffer.size();
}

template <class Key>
void checkSorted(const std::vector<Key>& keys, const char* what) {
  for (std::size_t k = 1; k < keys.size(); ++k) {
    if (!(keys[k - 1] < keys[k])) fail(fmt::format("{} {} is out of order", what, k));
  }
}

void readEvents(Reader& r, State& s, std::uint32_t n) {
  const auto pending = r.get<std::uint32_t>("pending end count");
  const auto overlaps = r.get<std::uint32_t>("sensor overlap count");
  const auto sensorPending = r.get<std::uint32_t>("pending sensor end count");
  s.def.hitEventThreshold = r.get<float>("WorldDef.hitEventThreshold");
  BodyStore& b = s.bodies;
  r.getAll(b.sensor, n, "sensor flags");
  b.sensorCount = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (b.sensor[i] > 1) fail(fmt::format("body {}: sensor flag is not 0 or 1", i));
    b.sensorCount += b.sensor[i];
  }
  r.getAll(s.pendingEnd, pending, "pending contact ends");
  r.getAll(s.sensorOverlaps, overlaps, "sensor overlaps");
  r.getAll(s.sensorPendingEnd, sensorPending, "pending sensor ends");
  checkSorted(s.pendingEnd, "pending contact end");
  checkSorted(s.sensorOverlaps, "sensor overlap");
  checkSorted(s.sensorPendingEnd, "pending sensor end");
  auto live = [&](std::uint32_t slot, std::uint32_t gen) {
    return slot < s.denseOf.size() && s.denseOf[slot] != kNoBody && s.generation[slot] == gen;
  };
  for (const SensorKey& k : s.sensorOverlaps) {
    if (!live(k.sensorSlot, k.sensorGen) || !live(k.visitorSlot, k.visitorGen) ||
        b.sensor[s.denseOf[k.sensorSlot]] == 0 || b.sensor[s.denseOf[k.visitorSlot]] != 0 ||
        !b.isBall(s.denseOf[k.visitorSlot])) {
      fail("a sensor overlap is not of a live sensor and a live ball");
    }
  }
}

}  // namespace

std::vector<std::byte> write(const View& v) {
  const BodyStore& b = v.bodies;
  const auto n = static_cast<std::uint32_t>(b.size());
  const std::uint64_t size =
      totalBytes(n, v.generation.size(), v.freeSlots.size(), v.contacts.size(), v.colourUse.size(),
                 v.touching.size()) +
      eventBytes(n, v.pendingEnd.size() + v.sensorOverlaps.size() + v.sensorPendingEnd.size()) +
      (b.hullCount != 0 ? hullBytes(b.hullCount) : 0);
  Writer w(size);
  w.put(kMagic);
  w.put(b.hullCount != 0 ? kHullFormatVersion : kFormatVersion);
  w.put(kHeaderBytes);
  w.put(kByteOrder);
  w.put(kFloatCheck);
  w.put(size);
  w.put(n);
  w.put(static_cast<std::uint32_t>(v.generation.size()));
  w.put(static_cast<std::uint32_t>(v.freeSlots.size()));
  w.put(static_cast<std::uint32_t>(v.contacts.size()));
  w.put(static_cast<std::uint32_t>(v.colourUse.size()));
  w.put(static_cast<std::uint32_t>(v.touching.size()));
  w.put(kDefBytes);
  w.put(static_cast<std::uint32_t>(kContactBytes));
  assert(w.at() == kHeaderBytes);
  writeDef(w, v.def);
  w.putAll(std::span<const BodyType>(b.type));
  for (const auto* column : {&b.px, &b.py, &b.vx, &b.vy, &b.w, &b.angle, &b.friction, &b.rolling,
                             &b.hx, &b.hy, &b.radius, &b.mass, &b.invMass}) {
    w.putAll(std::span<const float>(*column));
  }
  // One byte per body: 0 asleep, 1 awake, kDisabled a disabled body.
  if (b.disabledCount == 0) {
    w.putAll(std::span<const std::uint8_t>(b.awake));
  } else {
    for (std::size_t i = 0; i < b.size(); ++i) {
      w.put(b.enabled[i] != 0 ? b.awake[i] : kDisabled);
    }
  }
  w.putAll(std::span<const float>(b.restTime));
  w.putAll(std::span<const std::uint32_t>(b.islandNext));
  w.putAll(std::span<const std::uint32_t>(b.islandPrev));
  w.put(b.maxRadius);
  w.put(b.boxCount);
  // Materials, damping, forces and gravity scale (forces.cpp).
  for (const auto* column :
       {&b.restitution, &b.linearDamping, &b.angularDamping, &b.fx, &b.fy, &b.gravityScale}) {
    w.putAll(std::span<const float>(*column));
  }
  // User data and collision filters (docs/filtering.md), as columns.
  const BodyFilters& f = v.filters;
  assert(f.size() == n);
  w.putAll(std::span<const std::uint64_t>(f.userData));
  for (const Filter& x : f.filter) w.put(x.categoryBits);
  for (const Filter& x : f.filter) w.put(x.maskBits);
  for (const Filter& x : f.filter) w.put(x.groupIndex);
  w.putAll(v.slotOf);
  w.putAll(v.generation);
  w.putAll(v.freeSlots);
  for (const contacts::Contact& c : v.contacts) {
    w.put(c.a);
    w.put(c.b);
    w.put(c.lambda);
    w.put(c.shift);
    w.put(c.tangent);
    w.put(c.rolling);
    w.put(c.colour);
    w.put(c.touched);
  }
  w.putAll(v.colourUse);
  for (const TouchKey& t : v.touching) {
    w.put(t.slotA);
    w.put(t.genA);
    w.put(t.slotB);
    w.put(t.genB);
  }
  writeEvents(w, v);
  if (b.hullCount != 0) writeHulls(w, b);
  w.put(checksum(w.written()));
  assert(w.at() == size);
  return w.take();
}

State read(std::span<const std::byte> buffer) {
  const std::size_t size = buffer.size();
  if (size < kHeaderBytes + kChecksumBytes) {
    fail(fmt::format("truncated: {} bytes, a snapshot has at least {}", size,
                     kHeaderBytes + kChecksumBytes));
  }
  Reader r(buffer);
  if (r.get<std::array<char, 8>>("magic") != kMagic) fail("not a quadbin snapshot (magic)");
  // The version first: another version may lay out the rest differently.
  const auto version = r.get<std::uint32_t>("version");
  if (version != kFormatVersion && version != kHullFormatVersion) {
    fail(fmt::format("format version {}; this build reads versions {} and {}", version,
                     kFormatVersion, kHullFormatVersion));
  }
  if (r.get<std::uint32_t>("header size") != kHeaderBytes) fail("header size is not 64");
  if (r.get<std::uint32_t>("byte order") != kByteOrder) {
    fail("written in another byte order (or corrupt)");
  }
  // As bits: a float format whose 1/3 differs anywhere is another format.
  if (r.get<std::uint32_t>("float check") != std::bit_cast<std::uint32_t>(kFloatCheck)) {
    fail("written with another float format (or corrupt)");
  }
  if (const auto total = r.get<std::uint64_t>("size"); total != size) {
    fail(fmt::format("the header says {} bytes, the buffer has {} (truncated or extended)", total,
                     size));
  }
  std::uint64_t stored = 0;
  std::memcpy(&stored, buffer.data() + size - kChecksumBytes, kChecksumBytes);
  if (stored != checksum(buffer.first(size - kChecksumBytes))) fail("checksum mismatch: corrupt");

  const auto n = r.get<std::uint32_t>("body count");
  const auto slots = r.get<std::uint32_t>("slot count");
  const auto free = r.get<std::uint32_t>("free slot count");
  const auto contacts = r.get<std::uint32_t>("contact count");
  const auto colourUse = r.get<std::uint32_t>("colour use count");
  const auto touching = r.get<std::uint32_t>("touching pair count");
  if (r.get<std::uint32_t>("WorldDef size") != kDefBytes ||
      r.get<std::uint32_t>("contact size") != kContactBytes ||
      !eventsFit(buffer, totalBytes(n, slots, free, contacts, colourUse, touching), n,
                 version == kHullFormatVersion)) {
    fail("the section sizes do not add up to the buffer size");
  }
  State s;
  s.def = readDef(r);
  // The world's settings first: the bodies and contacts are checked against them.
  if (const std::string why = validate::worldDef(s.def); !why.empty()) {
    fail("the snapshot's " + why);
  }
  readBodies(r, s.bodies, n);
  checkBodies(s.bodies, s.def);
  // User data and collision filters: every value is one a body may have.
  r.getAll(s.filters.userData, n, "user data");
  s.filters.filter.resize(n);
  for (Filter& x : s.filters.filter) x.categoryBits = r.get<std::uint64_t>("filter categories");
  for (Filter& x : s.filters.filter) x.maskBits = r.get<std::uint64_t>("filter masks");
  for (Filter& x : s.filters.filter) x.groupIndex = r.get<std::int32_t>("filter groups");
  r.getAll(s.slotOf, n, "slots");
  r.getAll(s.generation, slots, "generations");
  r.getAll(s.freeSlots, free, "free slots");
  checkSlots(s);
  readContacts(r, s, contacts);
  checkContacts(s);
  r.getAll(s.colourUse, colourUse, "colour use");
  if (colourUse > n) fail("more colour use entries than bodies");
  checkColourUse(s);
  s.touching.resize(touching);
  for (TouchKey& t : s.touching) {
    t.slotA = r.get<std::uint32_t>("touching pair");
    t.genA = r.get<std::uint32_t>("touching pair");
    t.slotB = r.get<std::uint32_t>("touching pair");
    t.genB = r.get<std::uint32_t>("touching pair");
  }
  checkTouching(s);
  readEvents(r, s, n);
  if (version == kHullFormatVersion) readHulls(r, s.bodies, n);
  checkTurning(s.bodies);
  assert(r.at() == size - kChecksumBytes);
  return s;
}

}  // namespace quadbin::snapshots
