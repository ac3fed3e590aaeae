#pragma once
/// \file
/// Everything of the broadphase layer.

#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/brute_force.hpp>
#include <quadbin/broadphase/quadtree_container.hpp>
