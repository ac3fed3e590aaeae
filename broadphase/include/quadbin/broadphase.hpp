#pragma once
/// \file
/// Everything of the broadphase layer.

#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/brute_force.hpp>
#include <quadbin/broadphase/diagonal_bsp.hpp>
#include <quadbin/broadphase/dynamic_centre_quadtree.hpp>
#include <quadbin/broadphase/leaf_quadtree.hpp>
#include <quadbin/broadphase/nona_tree.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>
