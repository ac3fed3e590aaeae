#pragma once
/// \file
/// The whole public API of quadbin: the World and what it is made with, the
/// broad phases' interface, factory and options, the Quadtree<T>
/// container, the narrow phase's shape tests and the geometry.

#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/broadphase/quadtree_container.hpp>
#include <quadbin/engine/body.hpp>
#include <quadbin/engine/world.hpp>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/engine/world_draw.hpp>
#include <quadbin/error.hpp>
#include <quadbin/geometry.hpp>
#include <quadbin/narrowphase.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <quadbin/version.hpp>
