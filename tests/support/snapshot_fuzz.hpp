#pragma once
// Snapshot buffers as a hostile peer sends them (docs/snapshots.md): valid
// snapshots mutated (bytes, bits, 4-byte fields set to hostile values,
// header counts, the size field, swapped words) and resealed, so that the
// mutations get past the checksum to the validation. The contract checked
// on each (checkRestore): a refused buffer leaves the world bit-identical;
// an accepted one is what the world then snapshots, byte for byte, and the
// world steps, with every position and velocity finite. Shared by the
// GoogleTest suites (the seed corpus and its mutations, the seeded World
// fuzzer's restore op) and the libFuzzer target snapshot_fuzzer.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <vector>

#include "broadphase_fuzz.hpp"  // fuzz::Source

namespace quadbin::test::fuzz {

using Bytes = std::vector<std::byte>;

/// The snapshot's checksum as docs/snapshots.md describes it, over the
/// `length` bytes before it: every whole 8-byte word, then one final step
/// on the zero-padded tail (0 to 7 bytes: it runs when the tail is empty).
inline std::uint64_t documentedChecksum(const std::byte* data, std::size_t length) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = 0x51ED270B27A3C5E1ull ^ length;
  const std::size_t words = length / 8;
  for (std::size_t k = 0; k < words; ++k) {
    std::uint64_t w = 0;
    std::memcpy(&w, data + 8 * k, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, data + 8 * words, length - 8 * words);
  h = (h ^ tail) * kMul;
  h ^= h >> 32;
  return h;
}

/// Makes `b` pass the size and checksum checks: the header's size field
/// (offset 24) set to the buffer's size and the last 8 bytes to the sum of
/// the rest. Buffers too short to hold them are left as they are.
inline void seal(Bytes& b) {
  if (b.size() >= 32) {
    const std::uint64_t size = b.size();
    std::memcpy(b.data() + 24, &size, 8);
  }
  if (b.size() < 72) return;
  const std::uint64_t h = documentedChecksum(b.data(), b.size() - 8);
  std::memcpy(b.data() + b.size() - 8, &h, 8);
}

/// One mutation of a snapshot, drawn from the kinds a crafted or damaged
/// buffer shows; the caller seals it.
inline void mutate(Source& src, Bytes& b) {
  if (b.empty()) return;
  const auto size = static_cast<std::uint32_t>(b.size());
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    if (at + 4 <= b.size()) std::memcpy(b.data() + at, &v, 4);
  };
  switch (src.below(8)) {
    case 0:  // a byte
      b[src.below(size)] = static_cast<std::byte>(src.below(256));
      break;
    case 1:  // a bit
      b[src.below(size)] ^= static_cast<std::byte>(1u << src.below(8));
      break;
    case 2:
    case 3: {  // a 4-byte field set to a hostile float
      static const float kValues[] = {3e38f,
                                      -3e38f,
                                      1e30f,
                                      -1e30f,
                                      1e9f,
                                      -1e9f,
                                      1e8f,
                                      1.01e8f,
                                      1e7f,
                                      2e7f,
                                      -0.0f,
                                      1e-40f,
                                      1e-20f,
                                      0.0f,
                                      -1.0f,
                                      1e20f,
                                      4.0f,
                                      std::numeric_limits<float>::infinity(),
                                      std::numeric_limits<float>::quiet_NaN()};
      const float v = kValues[src.below(sizeof kValues / sizeof kValues[0])];
      std::uint32_t bits = 0;
      std::memcpy(&bits, &v, 4);
      put32(src.below(size), bits);  // fields are not 4-aligned: any offset
      break;
    }
    case 4: {  // a 4-byte field set to a hostile integer
      static const std::uint32_t kValues[] = {
          0, 1, 2, 3, 4, 7, 63, 64, 65, 255, 0xFFFFFFFFu, 0xFFFFFFFBu, 0xFFFFFFFEu, 0x80000000u};
      put32(src.below(size), kValues[src.below(14)]);
      break;
    }
    case 5:  // a header count (bodies ... touching pairs)
      put32(32 + 4 * src.below(6), src.below(4) == 0 ? src.below(1u << 20) : src.below(64));
      break;
    case 6:  // the size: cut or grown
      b.resize(src.below(2) != 0 ? src.below(size) : size + src.below(64));
      break;
    default: {  // two 4-byte words swapped
      const std::size_t i = src.below(size), j = src.below(size);
      if (i + 4 <= b.size() && j + 4 <= b.size() && (i + 4 <= j || j + 4 <= i)) {
        std::swap_ranges(b.begin() + static_cast<std::ptrdiff_t>(i),
                         b.begin() + static_cast<std::ptrdiff_t>(i + 4),
                         b.begin() + static_cast<std::ptrdiff_t>(j));
      }
      break;
    }
  }
}

/// Restores `bytes` into `w` and checks the contract; returns what went
/// wrong, or an empty string. `accepted` tells which way it went.
inline std::string checkRestore(World& w, const Bytes& bytes, bool* accepted = nullptr) {
  const Bytes before = w.snapshot();
  try {
    w.restore(bytes);
  } catch (const Error& e) {
    if (accepted != nullptr) *accepted = false;
    if (std::string(e.what()).empty()) return "a refusal without a message";
    if (w.snapshot() != before)
      return std::string("a refused buffer changed the world: ") + e.what();
    return {};
  }
  if (accepted != nullptr) *accepted = true;
  if (w.snapshot() != bytes) return "an accepted buffer is not what the world then snapshots";
  for (int s = 0; s < 3; ++s) {
    try {
      w.step(1.0f / 60.0f);
    } catch (const Error& e) {
      return std::string("an accepted buffer gave a world that cannot step: ") + e.what();
    }
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      const Vec2 p = w.position(id), v = w.velocity(id);
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(v.x) ||
          !std::isfinite(v.y) || !std::isfinite(w.angularVelocity(id))) {
        return "an accepted buffer gave a world whose step left a value not finite";
      }
    }
  }
  return {};
}

/// The worlds the snapshot corpus starts from: the reference scenes, small,
/// after some steps, and worlds with every feature a snapshot holds
/// (sensors and their overlaps, kinematic bodies, filters, materials,
/// friction and spin, forces, sleeping islands, contacts of a destroyed
/// body pending their end events, free slots).
inline std::vector<Bytes> seedSnapshots() {
  std::vector<Bytes> out;
  for (const auto kind : {scenes::SceneKind::Uniform, scenes::SceneKind::Clustered,
                          scenes::SceneKind::Mixed, scenes::SceneKind::Pile}) {
    WorldDef def = scenes::worldDefFor(kind);
    def.threadCount = 1;
    def.logLevel = LogLevel::Off;
    World w = scenes::makeWorld(scenes::generate(kind, 60), def);
    for (int s = 0; s < 20; ++s) w.step(1.0f / 60.0f);
    out.push_back(w.snapshot());
  }
  // Every feature, in a closed box with gravity.
  WorldDef def;
  def.bounds = {{0, 0}, {40, 30}};
  def.gravity = {0, -9.8f};
  def.timeToSleep = 0.2f;
  def.threadCount = 1;
  def.logLevel = LogLevel::Off;
  def.hitEventThreshold = 0.5f;
  World w(def);
  w.createBody(BodyDef::staticBox({{5, 5}, {15, 6}}));
  w.createBody(BodyDef::kinematicBox({{20, 2}, {24, 3}}, {0.5f, 0}));
  w.createBody(BodyDef::kinematicBall({30, 10}, 1.5f, {0, 0.2f}));
  // Outlines (format version 4): a slope, a chain, a polygon, a turned box
  // and a kinematic wedge.
  w.createBody(BodyDef::staticSegment({1, 20}, {8, 16}));
  const std::array<Vec2, 4> chain{Vec2{26, 20}, Vec2{30, 18}, Vec2{34, 19}, Vec2{38, 22}};
  w.createChain(chain);
  const std::array<Vec2, 5> pentagon{Vec2{18, 14}, Vec2{20, 13}, Vec2{22, 14}, Vec2{21, 16},
                                     Vec2{19, 16}};
  w.createBody(BodyDef::staticPolygon(pentagon));
  w.createBody(BodyDef::staticBox({12, 20}, {2, 0.5f}, 0.4f));
  const std::array<Vec2, 3> wedge{Vec2{2, 2}, Vec2{5, 2}, Vec2{2, 4}};
  w.createBody(BodyDef::kinematicPolygon(wedge, {0.3f, 0}));
  BodyDef sensor = BodyDef::ball({10, 12}, 3.0f);
  sensor.isSensor = true;
  w.createBody(sensor);
  std::vector<BodyId> balls;
  for (int i = 0; i < 24; ++i) {
    BodyDef d = BodyDef::ball(
        {2.0f + static_cast<float>(i % 12) * 3.0f, 8.0f + static_cast<float>(i / 12) * 3.0f}, 0.8f,
        {static_cast<float>(i % 5) - 2.0f, 0});
    d.friction = i % 3 == 0 ? 0.6f : 0.0f;
    d.rollingResistance = i % 6 == 0 ? 0.05f : 0.0f;
    if (i % 4 == 1) d.restitution = 0.3f;
    d.linearDamping = i % 5 == 2 ? 0.5f : 0.0f;
    d.angularDamping = i % 7 == 3 ? 0.5f : 0.0f;
    d.userData = 1000u + static_cast<std::uint64_t>(i);
    if (i % 4 == 3) d.filter = {2, ~2ull, i % 8 == 3 ? -1 : 0};
    if (i % 9 == 4) d.mass = 3.0f;
    balls.push_back(w.createBody(d));
  }
  for (int s = 0; s < 40; ++s) w.step(1.0f / 60.0f);
  w.applyForce(balls[3], {5, 2});
  w.setAngularVelocity(balls[6], 2.0f);
  out.push_back(w.snapshot());
  for (int s = 0; s < 150; ++s) w.step(1.0f / 60.0f);  // some islands asleep
  out.push_back(w.snapshot());
  w.destroyBody(balls[0]);  // its contacts end at the next step
  w.destroyBody(balls[13]);
  out.push_back(w.snapshot());
  return out;
}

}  // namespace quadbin::test::fuzz
