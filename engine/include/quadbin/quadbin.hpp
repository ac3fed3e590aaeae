#pragma once
/// \file
/// The whole public API of quadbin.

#include <quadbin/broadphase.hpp>
#include <quadbin/engine/log.hpp>
#include <quadbin/engine/world.hpp>
#include <quadbin/engine/world_draw.hpp>
#include <quadbin/geometry.hpp>
#include <quadbin/narrowphase.hpp>
#include <quadbin/version.hpp>
