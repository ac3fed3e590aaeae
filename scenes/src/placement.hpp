#pragma once
// Where a ball of a scene goes in the closed World that makeWorld builds:
// one rule for makeWorld and the scene-file parser, so that a file the
// parser accepts always builds.

#include <quadbin/geometry.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>

namespace quadbin::scenes::detail {

/// "" when the ball (x, y, r) lies inside the scene's world (MINX + r <= x
/// <= MAXX - r, the same on y, in double) and still fits once rounded to
/// float; then `at` is its float position, moved by at most a float
/// rounding where the rounding would put it a hair outside the walls.
/// Otherwise why not, and `at` is unchanged. Expects finite values, r > 0.
[[nodiscard]] std::string placeBall(const Scene& scene, double x, double y, double r, Vec2& at);

}  // namespace quadbin::scenes::detail
