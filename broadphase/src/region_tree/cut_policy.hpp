#pragma once
// What a region tree needs from its cut policy: how a region is cut and on
// which side of a cut a box or a point lies. Everything else (the build,
// the pair search, queries and ray walks) is the tree's, once
// (region_tree/tree.hpp). The policies: rect_grid_policy.hpp (the leaf
// quadtree's middle cuts, the dynamic-centre quadtree's mean cuts, the
// nona-tree's thirds) and the diagonal BSP's triangle cuts
// (diagonal_bsp.cpp).

#include <concepts>
#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/geometry.hpp>
#include <span>

#include "boxes.hpp"

namespace quadbin::detail {

/// A policy supplies:
///   Shape                          a region (and, once split, its cuts)
///   kMaxChildren                   children of one split (2 to 16)
///   kDepthCap                      the deepest tree it allows
///   kHalfOpenRoot                  the root owns [min, max) (true) or [min, max]
///   kOwnerByDescent                leaf ownership checked by walking up the cuts
///                                  (false: by leafOwns on the leaf's shape)
///   root(rect)                     the root shape
///   split(shape&, depth, node, items, children*, count&) -> bool
///                                  choose the cuts (write them into shape) and the
///                                  children's shapes; false keeps the node a leaf
///   insertMasks(shape, items, count, masks)  for each item, the children one
///                                  of its owner points descends to (bit i = child i)
///   queryMask(shape, box)          children holding any box that touches `box`
///   pointChild(shape, x, y)        the child a point descends to
///   leafOwns(shape, x, y)          (only if !kOwnerByDescent)
///   rayChildren(shape, children*, count, ray, t0, t1, RaySpan* out) -> count
///   drawLeaf(shape, depth, count, draw)  one leaf for BroadPhaseDraw
template <class P>
concept RegionCutPolicy = std::copy_constructible<P> &&
    requires(const P& policy, typename P::Shape& shape, const typename P::Shape& region,
             std::uint32_t n, std::uint32_t& count, std::span<const Item> items,
             const Item* itemArray, std::uint16_t* masks, typename P::Shape* children,
             const AABB& box, float x, const Ray& ray, RaySpan* spans, BroadPhaseDraw& draw) {
  { P::kMaxChildren } -> std::convertible_to<std::uint32_t>;
  { P::kDepthCap } -> std::convertible_to<std::uint32_t>;
  { P::kHalfOpenRoot } -> std::convertible_to<bool>;
  { P::kOwnerByDescent } -> std::convertible_to<bool>;
  { policy.root(box) } -> std::same_as<typename P::Shape>;
  { policy.split(shape, n, n, items, children, count) } -> std::convertible_to<bool>;
  policy.insertMasks(region, itemArray, n, masks);
  { policy.queryMask(region, box) } -> std::convertible_to<std::uint32_t>;
  { policy.pointChild(region, x, x) } -> std::convertible_to<std::uint32_t>;
  {
    policy.rayChildren(region, children, n, ray, x, x, spans)
    } -> std::convertible_to<std::uint32_t>;
  P::drawLeaf(region, n, n, draw);
} &&(P::kOwnerByDescent || requires(const P& policy, const typename P::Shape& region, float x) {
  { policy.leafOwns(region, x, x) } -> std::convertible_to<bool>;
});

}  // namespace quadbin::detail
