#pragma once
// The state of DynamicAabbTree (dynamic_aabb_tree.hpp) and its algorithms, defined in
// dynamic_aabb_tree.cpp.

#include <cstdint>
#include <quadbin/broadphase/dynamic_aabb_tree.hpp>
#include <span>
#include <utility>
#include <vector>

namespace quadbin {

struct DynamicAabbTree::Impl {
  explicit Impl(const DynamicAabbTreeOptions& options);
  void update(std::span<const AABB> boxes);
  void findPairs(std::vector<Pair>& out);
  void query(const AABB& box, std::vector<std::uint32_t>& out) const;
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const;
  [[nodiscard]] std::size_t memoryBytes() const noexcept;
  void draw(BroadPhaseDraw& out) const;
  [[nodiscard]] int height() const noexcept;
  [[nodiscard]] AABB fatBox(std::uint32_t proxy) const noexcept;
  [[nodiscard]] bool isValid() const;

  static constexpr std::uint32_t kNull = 0xffffffffu;

  // 32 bytes: two nodes per cache line. An internal node's box bounds the
  // fat boxes below it. A leaf has child1 == kNull, its proxy in child2 and
  // the proxy's TIGHT box in box (the fat one is in fat_), so that two
  // leaves meeting in the descent are tested exactly. A free node has
  // height -1 and the next free node in parent.
  struct Node {
    AABB box;
    std::uint32_t parent = kNull;
    std::uint32_t child1 = kNull;
    std::uint32_t child2 = kNull;
    std::int32_t height = 0;
    [[nodiscard]] bool isLeaf() const noexcept { return child1 == kNull; }
  };

  [[nodiscard]] AABB fatten(const AABB& tight) const noexcept;
  /// The tight box grown by `times` the fattening margin.
  [[nodiscard]] AABB grown(const AABB& tight, double times) const noexcept;
  /// The box a node's parent must contain: the fat box for a leaf, the
  /// node's own box otherwise.
  [[nodiscard]] const AABB& bound(std::uint32_t node) const noexcept;
  [[nodiscard]] std::uint32_t allocateNode();
  void freeNode(std::uint32_t node) noexcept;
  void insertLeaf(std::uint32_t leaf);
  void removeLeaf(std::uint32_t leaf) noexcept;
  void refitUp(std::uint32_t node) noexcept;
  [[nodiscard]] std::uint32_t rotate(std::uint32_t a) noexcept;
  void rebuild(std::span<const AABB> boxes);
  void splitRange(std::uint32_t first, std::uint32_t count) noexcept;
  void buildNodes(std::uint32_t node, std::uint32_t first, std::uint32_t count);

  DynamicAabbTreeOptions options_;
  std::vector<Node> nodes_;
  std::uint32_t root_ = kNull;
  std::uint32_t freeList_ = kNull;
  std::vector<std::uint32_t> leafOf_;  // proxy -> its leaf node
  // The fat box of each proxy, by proxy: what the leaf's parent bounds, and
  // what the per-frame containment test streams (instead of chasing leaves
  // through the node pool).
  std::vector<AABB> fat_;
  // Reused scratch (capacity kept between frames): proxies to re-insert,
  // the build's arrays, the descent stack of findPairs.
  std::vector<std::uint32_t> moved_;
  // The build: proxies sorted by centre x and by centre y (keys of
  // detail::sortKey), a side flag per proxy, scratch, fat and tight boxes
  // in leaf order.
  std::vector<std::uint64_t> byX_, byY_, buildScratch_;
  std::vector<std::uint8_t> side_;
  std::vector<AABB> buildFat_, buildTight_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairStack_;
  std::uint64_t rebuilds_ = 0;
  std::uint64_t reinsertions_ = 0;
};

}  // namespace quadbin
