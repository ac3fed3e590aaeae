#include "checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <quadbin/error.hpp>
#include <string>

namespace quadbin::detail {

namespace {

[[nodiscard]] bool isValidBox(const AABB& b) noexcept {
  // Finite and ordered: -max <= min <= max <= +max on both axes (every
  // comparison with a NaN is false). Non-short-circuit '&' so that a loop
  // of these vectorises: the check runs on every update.
  constexpr float kMax = std::numeric_limits<float>::max();
  return static_cast<bool>((-kMax <= b.min.x) & (b.min.x <= b.max.x) & (b.max.x <= kMax) &
                           (-kMax <= b.min.y) & (b.min.y <= b.max.y) & (b.max.y <= kMax));
}

[[nodiscard]] std::string text(const AABB& b) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "{{%g, %g}, {%g, %g}}", static_cast<double>(b.min.x),
                static_cast<double>(b.min.y), static_cast<double>(b.max.x),
                static_cast<double>(b.max.y));
  return buf;
}

}  // namespace

void requireValidBox(const AABB& box, std::uint32_t index, const char* who) {
  if (isValidBox(box)) return;
  throw Error(std::string(who) + ": boxes[" + std::to_string(index) + "] = " + text(box) +
              " must be finite with min <= max");
}

void requireValidBoxes(std::span<const AABB> boxes, const char* who) {
  bool valid = true;
  for (const AABB& b : boxes) valid &= isValidBox(b);  // no branch per box
  if (valid) return;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    requireValidBox(boxes[i], static_cast<std::uint32_t>(i), who);
  }
}

AABB queryBox(const AABB& box, const char* who) {
  if (!(box.min.x <= box.max.x && box.min.y <= box.max.y)) {
    throw Error(std::string(who) + ": query box " + text(box) + " must have no NaN and min <= max");
  }
  constexpr float kMax = std::numeric_limits<float>::max();
  return {{std::clamp(box.min.x, -kMax, kMax), std::clamp(box.min.y, -kMax, kMax)},
          {std::clamp(box.max.x, -kMax, kMax), std::clamp(box.max.y, -kMax, kMax)}};
}

void requireValidRay(const Ray& ray, const char* who) {
  if (isFinite(ray.origin) && isFinite(ray.direction) && std::isfinite(ray.maxT)) return;
  char buf[160];
  std::snprintf(buf, sizeof buf, "origin {%g, %g}, direction {%g, %g}, maxT %g",
                static_cast<double>(ray.origin.x), static_cast<double>(ray.origin.y),
                static_cast<double>(ray.direction.x), static_cast<double>(ray.direction.y),
                static_cast<double>(ray.maxT));
  throw Error(std::string(who) + ": ray " + buf + " must be finite");
}

}  // namespace quadbin::detail
