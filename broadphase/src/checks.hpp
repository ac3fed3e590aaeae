#pragma once
// The input checks every broad phase makes at its boundary (what they accept
// is in docs/broadphase-limits.md): stored boxes must be finite with
// min <= max, query boxes free of NaN with min <= max, rays finite.

#include <cstdint>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>

namespace quadbin::detail {

/// Throws quadbin::Error naming `who`, the first refused box and its index
/// unless every box is finite with min <= max on both axes.
void requireValidBoxes(std::span<const AABB> boxes, const char* who);
/// The same, the boxes checked in chunks on `tasks` (a structure's update
/// with a task system: the check is a pass over every box).
void requireValidBoxes(std::span<const AABB> boxes, const char* who, TaskSystem& tasks);
/// The same for one box given with its index.
void requireValidBox(const AABB& box, std::uint32_t index, const char* who);
/// The box a query searches: throws quadbin::Error for a NaN or min > max;
/// infinite sides become the largest float, which gives the same answer
/// since every stored box is finite.
[[nodiscard]] AABB queryBox(const AABB& box, const char* who);
/// Throws quadbin::Error unless the ray's origin, direction and maxT are
/// finite.
void requireValidRay(const Ray& ray, const char* who);

}  // namespace quadbin::detail
