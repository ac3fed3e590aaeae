#pragma once
/// \file
/// Everything of the broadphase layer, the structures' own classes
/// included: for quadbin's layers, tests and tools. Not installed: a
/// program picks a structure by BroadPhaseType (broadphase/broadphase.hpp)
/// and passes its options (broadphase/options.hpp).

#include <quadbin/broadphase/auto.hpp>
#include <quadbin/broadphase/bin_grid.hpp>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/brute_force.hpp>
#include <quadbin/broadphase/diagonal_bsp.hpp>
#include <quadbin/broadphase/dynamic_aabb_tree.hpp>
#include <quadbin/broadphase/dynamic_centre_quadtree.hpp>
#include <quadbin/broadphase/leaf_quadtree.hpp>
#include <quadbin/broadphase/nona_tree.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/broadphase/quadtree.hpp>
#include <quadbin/broadphase/quadtree_container.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>
#include <quadbin/broadphase/sweep_and_prune.hpp>
