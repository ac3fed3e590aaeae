#include <array>
#include <quadbin/broadphase/auto.hpp>
#include <quadbin/broadphase/bin_grid.hpp>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/brute_force.hpp>
#include <quadbin/broadphase/diagonal_bsp.hpp>
#include <quadbin/broadphase/dynamic_aabb_tree.hpp>
#include <quadbin/broadphase/dynamic_centre_quadtree.hpp>
#include <quadbin/broadphase/leaf_quadtree.hpp>
#include <quadbin/broadphase/nona_tree.hpp>
#include <quadbin/broadphase/quadtree.hpp>
#include <quadbin/broadphase/sweep_and_prune.hpp>

#include "checks.hpp"

namespace quadbin {

namespace {
struct NamedType {
  BroadPhaseType type;
  std::string_view name;
};
constexpr std::array kTypes = {
    NamedType{BroadPhaseType::BruteForce, "brute-force"},
    NamedType{BroadPhaseType::Quadtree, "quadtree"},
    NamedType{BroadPhaseType::BinGrid, "bin-grid"},
    NamedType{BroadPhaseType::SweepAndPrune, "sweep-and-prune"},
    NamedType{BroadPhaseType::DynamicAabbTree, "dynamic-aabb-tree"},
    NamedType{BroadPhaseType::LeafQuadtree, "leaf-quadtree"},
    NamedType{BroadPhaseType::DynamicCentreQuadtree, "dynamic-centre-quadtree"},
    NamedType{BroadPhaseType::NonaTree, "nona-tree"},
    NamedType{BroadPhaseType::DiagonalBsp, "diagonal-bsp"},
    NamedType{BroadPhaseType::Auto, "auto"},
};
constexpr std::array kAllTypes = [] {
  std::array<BroadPhaseType, kTypes.size()> all{};
  for (std::size_t i = 0; i < kTypes.size(); ++i) all[i] = kTypes[i].type;
  return all;
}();
}  // namespace

std::string_view toString(BroadPhaseType type) noexcept {
  for (const auto& t : kTypes) {
    if (t.type == type) return t.name;
  }
  return "unknown";
}

std::optional<BroadPhaseType> parseBroadPhaseType(std::string_view name) noexcept {
  for (const auto& t : kTypes) {
    if (t.name == name) return t.type;
  }
  return std::nullopt;
}

std::span<const BroadPhaseType> allBroadPhaseTypes() noexcept { return kAllTypes; }

void BroadPhase::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  detail::requireValidRay(ray, "BroadPhase::queryRay");
  query(ray.bounds(), out);  // finite ray, so no NaN; an infinite side is fine
}

std::unique_ptr<BroadPhase> makeBroadPhase(BroadPhaseType type) {
  return makeBroadPhase(type, BroadPhaseOptions{});
}

std::unique_ptr<BroadPhase> makeBroadPhase(BroadPhaseType type, const BroadPhaseOptions& options) {
  switch (type) {
    case BroadPhaseType::BruteForce:
      return std::make_unique<BruteForce>();
    case BroadPhaseType::Quadtree:
      return std::make_unique<QuadtreeBroadPhase>(options.quadtree);
    case BroadPhaseType::BinGrid:
      return std::make_unique<BinGrid>(options.binGrid);
    case BroadPhaseType::Auto:
      return std::make_unique<AutoBroadPhase>(options);
    case BroadPhaseType::SweepAndPrune:
      return std::make_unique<SweepAndPrune>(options.sweepAndPrune);
    case BroadPhaseType::DynamicAabbTree:
      return std::make_unique<DynamicAabbTree>(options.dynamicAabbTree);
    case BroadPhaseType::LeafQuadtree:
      return std::make_unique<LeafQuadtree>(options.leafQuadtree);
    case BroadPhaseType::DynamicCentreQuadtree:
      return std::make_unique<DynamicCentreQuadtree>(options.dynamicCentreQuadtree);
    case BroadPhaseType::NonaTree:
      return std::make_unique<NonaTree>(options.nonaTree);
    case BroadPhaseType::DiagonalBsp:
      return std::make_unique<DiagonalBsp>(options.diagonalBsp);
  }
  return std::make_unique<BruteForce>();
}

}  // namespace quadbin
