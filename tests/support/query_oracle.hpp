#pragma once
// The spatial queries' oracle for tests: brute force over every body of a
// World with its own exact tests, answers compared as sorted slots, and
// test names for suites run over every broad phase.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

namespace quadbin::test {

inline std::string paramName(const ::testing::TestParamInfo<BroadPhaseType>& info) {
  std::string name(toString(info.param));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// Brute force over every body with the world's own exact tests: the
// bodies (their slots, sorted) a box or radius query must report.
inline std::vector<std::uint32_t> bruteBox(const World& w, const AABB& box) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    const float r = w.radius(id);
    if (r == 0.0f) {
      if (touches(w.bounds(id), box)) out.push_back(id.index);
    } else {
      const Vec2 c = w.position(id);
      if (lengthSquared(c - closestPoint(box, c)) <= r * r) out.push_back(id.index);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}
inline std::vector<std::uint32_t> bruteRadius(const World& w, Vec2 center, float radius) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    const float r = w.radius(id);
    if (r == 0.0f) {
      const AABB b = w.bounds(id);
      if (lengthSquared(center - closestPoint(b, center)) <= radius * radius) {
        out.push_back(id.index);
      }
    } else {
      const float reach = radius + r;
      if (lengthSquared(w.position(id) - center) <= reach * reach) out.push_back(id.index);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}
// A query's answer as the oracles give theirs: slots, sorted.
inline std::vector<std::uint32_t> indices(const std::vector<BodyId>& ids) {
  std::vector<std::uint32_t> out;
  for (const BodyId id : ids) out.push_back(id.index);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace quadbin::test
