#pragma once
/// \file
/// Everything of the geometry layer.

#include <quadbin/error.hpp>
#include <quadbin/geometry/aabb.hpp>
#include <quadbin/geometry/circle.hpp>
#include <quadbin/geometry/ray.hpp>
#include <quadbin/geometry/vec2.hpp>
