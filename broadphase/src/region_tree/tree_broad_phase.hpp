#pragma once
// The facade the public region-tree classes wrap (each through its Impl):
// staged boxes, the lazily built tree, the BroadPhase operations.

#include <quadbin/broadphase/broadphase.hpp>
#include <span>
#include <vector>

#include "build.hpp"
#include "search.hpp"
#include "tree.hpp"

namespace quadbin::detail {

// The facade the public classes wrap: staged boxes, the lazily built tree,
// and the BroadPhase operations.

template <class Policy>
class TreeBroadPhase {
 public:
  TreeBroadPhase(Policy policy, const TreeLimits& limits) : tree_(std::move(policy), limits) {}

  void setBounds(const AABB& bounds) {
    tree_.setBounds(bounds);
    dirty_ = true;
  }
  void update(std::span<const AABB> boxes, TaskSystem& tasks) {
    BoxArrays& in = tree_.staged();
    const auto n = static_cast<std::uint32_t>(boxes.size());
    in.resize(n);
    tasks.parallelFor(n, 16384, [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t i = begin; i < end; ++i) {
        in.minX[i] = boxes[i].min.x;
        in.minY[i] = boxes[i].min.y;
        in.maxX[i] = boxes[i].max.x;
        in.maxY[i] = boxes[i].max.y;
        in.id[i] = i;
      }
    });
    tree_.build(tasks);
    dirty_ = false;
  }
  void clear() noexcept {
    tree_.staged().clear();
    dirty_ = true;
  }
  void insert(std::uint32_t id, const AABB& box) {
    tree_.staged().push(box.min.x, box.min.y, box.max.x, box.max.y, id);
    dirty_ = true;
  }
  void findPairs(std::vector<Pair>& out, TaskSystem& tasks) {
    buildIfDirty(tasks);
    tree_.findPairs(out, tasks);
  }
  void retrieve(const AABB& box, std::vector<std::uint32_t>& out, TaskSystem& tasks) {
    buildIfDirty(tasks);
    tree_.retrieve(box, out);
  }
  // Const queries never build (two threads may query at once): with
  // inserts not yet built, they scan the staged boxes instead.
  void query(const AABB& box, std::vector<std::uint32_t>& out) const {
    if (!dirty_) return tree_.query(box, out);
    const BoxArrays& in = tree_.staged();
    const std::size_t start = out.size();
    for (std::uint32_t i = 0; i < in.size(); ++i) {
      if (touches(in.box(i), box)) out.push_back(in.id[i]);
    }
    sortUniqueFrom(out, start);
  }
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
    if (!dirty_) return tree_.queryRay(ray, out);
    const BoxArrays& in = tree_.staged();
    const std::size_t start = out.size();
    for (std::uint32_t i = 0; i < in.size(); ++i) {
      if (raycast(ray, in.box(i))) out.push_back(in.id[i]);
    }
    sortUniqueFrom(out, start);
  }
  [[nodiscard]] std::size_t size() const noexcept { return tree_.staged().size(); }
  [[nodiscard]] std::size_t memoryBytes() const noexcept { return tree_.memoryBytes(); }
  /// Of the last build.
  [[nodiscard]] RegionTreeStats stats() const noexcept { return tree_.stats(); }
  /// The leaves of the last build.
  void draw(BroadPhaseDraw& out) const { tree_.draw(out); }

 private:
  void buildIfDirty(TaskSystem& tasks) {
    if (!dirty_) return;
    tree_.build(tasks);
    dirty_ = false;
  }

  RegionTree<Policy> tree_;
  bool dirty_ = false;
};
}  // namespace quadbin::detail
