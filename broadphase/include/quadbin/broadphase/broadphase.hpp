#pragma once
/// \file
/// The interface every broad phase implements (BroadPhase), the factory that
/// makes one by type (makeBroadPhase), and BroadPhaseDraw, what a broad
/// phase shows of its inside to a debug drawer. A broad phase takes one box
/// per proxy (proxy i = boxes[i]) each frame and reports every pair of
/// strictly overlapping boxes once. The structures themselves are internal:
/// a program picks one by BroadPhaseType and passes its options
/// (quadbin/broadphase/options.hpp).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <string_view>
#include <vector>

// BroadPhaseDraw: what a broad phase shows of its inside to a debug drawer
// (Box2D's b2Draw, for the spatial structure rather than the bodies).
//
// BroadPhase::draw(out) walks the structure as the last update (or
// findPairs) left it and calls `out` once per cell, region, box or
// interval. It is for viewers and tests (demo/, quadbin-demo): it is const,
// allocates nothing and never runs in a world's step, but it visits every
// node, so call it once per displayed frame, not per query.
//
// What each structure reports:
// - quadtree:          cell() per node in use; count = boxes stored in that
// node itself (straddlers stay in inner nodes)
// - leaf-quadtree, dynamic-centre, nona-tree:
// cell() per leaf; count = boxes in the leaf (a box
// reaching several leaves counts in each)
// - diagonal-bsp:      polygon() per leaf triangle (cell() for a root that
// was never cut); count as for the leaves above
// - bin-grid:          cell() per non-empty cell; depth = level (0 finest);
// count = boxes in the cell
// - dynamic-aabb-tree: treeBox() per node; internal nodes bound their
// subtree's fat boxes, leaves give the proxy's fat box
// - sweep-and-prune:   interval() per proxy, in sweep order, on the axis it
// sorts on
// - brute-force:       nothing (it has no structure)
// - auto:              whatever the structure it picked reports

namespace quadbin {

/// Receives a broad phase's structure. Every callback does nothing by
/// default: a drawer overrides the ones it shows.
class BroadPhaseDraw {
 public:
  BroadPhaseDraw() = default;
  BroadPhaseDraw(const BroadPhaseDraw&) = default;
  BroadPhaseDraw& operator=(const BroadPhaseDraw&) = default;
  BroadPhaseDraw(BroadPhaseDraw&&) = default;
  BroadPhaseDraw& operator=(BroadPhaseDraw&&) = default;
  virtual ~BroadPhaseDraw() = default;

  /// A rectangular cell of a space partition (tree node or grid cell) at
  /// `depth` (root 0; grid: level), holding `count` boxes.
  virtual void cell(const AABB& box, std::uint32_t depth, std::uint32_t count) {
    (void)box;
    (void)depth;
    (void)count;
  }
  /// A convex region of a space partition (BSP leaf), its corners in order.
  virtual void polygon(std::span<const Vec2> corners, std::uint32_t depth, std::uint32_t count) {
    (void)corners;
    (void)depth;
    (void)count;
  }
  /// A node of a bounding-volume tree at `depth` (root 0): an internal
  /// node's box, or a leaf's (fat) box.
  virtual void treeBox(const AABB& box, std::uint32_t depth, bool leaf) {
    (void)box;
    (void)depth;
    (void)leaf;
  }
  /// The extent [lo, hi] of one proxy on `axis` (0: x, 1: y), `rank`-th in
  /// the sorted order a sweep walks.
  virtual void interval(std::uint32_t axis, float lo, float hi, std::uint32_t rank) {
    (void)axis;
    (void)lo;
    (void)hi;
    (void)rank;
  }
};

}  // namespace quadbin

// The interface every broad phase implements, and the factory that makes one
// by type. A broad phase takes one box per proxy (proxy i = boxes[i]) each
// frame and reports every pair of strictly overlapping boxes once.

namespace quadbin {

/// Two proxies whose boxes overlap; always a < b.
struct Pair {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  friend constexpr bool operator==(Pair, Pair) noexcept = default;
  friend constexpr bool operator<(Pair l, Pair r) noexcept {
    return l.a != r.a ? l.a < r.a : l.b < r.b;
  }
  /// One 64-bit number ordered like the pair: handy for sorting and sets.
  [[nodiscard]] constexpr std::uint64_t key() const noexcept {
    return (std::uint64_t{a} << 32) | b;
  }
};

/// The structures quadbin ships. Names (toString / parseBroadPhaseType) are the
/// ones the perf suite's --broadphase accepts.
enum class BroadPhaseType : std::uint8_t {
  BruteForce,
  Quadtree,
  BinGrid,
  SweepAndPrune,
  DynamicAabbTree,
  LeafQuadtree,
  DynamicCentreQuadtree,
  NonaTree,
  DiagonalBsp,
  Auto,  ///< picks one of the above from the boxes (AutoBroadPhase); keep last
};

[[nodiscard]] std::string_view toString(BroadPhaseType type) noexcept;
/// The type called `name`, or nothing for an unknown name.
[[nodiscard]] std::optional<BroadPhaseType> parseBroadPhaseType(std::string_view name) noexcept;
/// Every type, in the order `quadbin-perf list` prints them.
[[nodiscard]] std::span<const BroadPhaseType> allBroadPhaseTypes() noexcept;

/// Contract of every structure:
/// - update(boxes) takes this frame's boxes; boxes[i] is proxy i. The count may
///   change between frames (proxies at the end appear or disappear; a proxy
///   whose index persists is treated as the same object, moved). update copies
///   what it keeps: the span need not outlive the call. Incremental structures
///   compare with the previous frame and touch only what changed.
/// - findPairs appends every pair (a < b) with overlaps(boxes[a], boxes[b]),
///   strict on both axes, each exactly once, in an order that depends only on
///   the sequence of inputs (never on timing or thread count).
/// - query appends every proxy whose box touches `box` (borders included),
///   each once.
/// - Accepted input (docs/broadphase-limits.md): update refuses, with a
///   quadbin::Error naming the index and the box and before changing
///   anything, a box with a NaN or infinite coordinate or with min > max.
///   Every finite box is handled exactly, from a point to the whole float
///   range. query refuses a box with a NaN or min > max (infinite sides
///   are fine); queryRay refuses a ray with a non-finite origin, direction
///   or maxT. Memory stays within a bound linear in the box count, set by
///   the options (each refused outside its documented range).
/// One virtual call per frame or per query, never per pair.
///
/// Threads: update and findPairs run their parallel parts on the structure's
/// TaskSystem (setTaskSystem; serial by default) and give the same pairs, in
/// the same order, on any of them. The const queries may be called from many
/// threads at once, but not while update or findPairs runs.
class BroadPhase {
 public:
  BroadPhase() = default;
  BroadPhase(const BroadPhase&) = delete;
  BroadPhase& operator=(const BroadPhase&) = delete;
  BroadPhase(BroadPhase&&) = delete;
  BroadPhase& operator=(BroadPhase&&) = delete;
  virtual ~BroadPhase() = default;

  [[nodiscard]] virtual BroadPhaseType type() const noexcept = 0;
  /// Where the boxes are expected to be (the world's bounds). A hint for
  /// structures that partition space; every structure stays exact for
  /// boxes outside it. Structures that do not need it ignore it.
  virtual void setBounds(const AABB& bounds) { (void)bounds; }
  virtual void update(std::span<const AABB> boxes) = 0;
  virtual void findPairs(std::vector<Pair>& out) = 0;
  /// The same pairs in `out` in place of what it held: a structure that
  /// gathers its pairs in parallel overwrites `out`'s elements where they
  /// are instead of value-initialising, on one thread, the room it then
  /// fills (millions of pairs: milliseconds of serial memory writes). By
  /// default out.clear() then findPairs(out).
  virtual void findPairsInto(std::vector<Pair>& out) {
    out.clear();
    findPairs(out);
  }
  virtual void query(const AABB& box, std::vector<std::uint32_t>& out) const = 0;
  /// Appends every proxy whose box the ray may hit (a superset of the
  /// exact hits, each once): by default the proxies touching the ray's
  /// bounding box; trees override it to walk only the nodes the ray crosses.
  virtual void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const;
  /// Proxies held since the last update.
  [[nodiscard]] virtual std::size_t size() const noexcept = 0;
  /// Heap bytes the structure holds (capacity, not just size).
  [[nodiscard]] virtual std::size_t memoryBytes() const noexcept = 0;
  /// Shows the structure as the last update left it to a debug drawer
  /// (quadbin/broadphase/debug_draw.hpp says what each structure reports).
  /// For viewers and tests: visits every node, allocates nothing. The base
  /// reports nothing.
  virtual void draw(BroadPhaseDraw& out) const { (void)out; }

  /// Where update and findPairs run their parallel work; nullptr (the
  /// default) runs it on the calling thread. The structure shares ownership
  /// of the system, so it lives as long as the structure uses it. Not to be
  /// called while another member runs.
  virtual void setTaskSystem(std::shared_ptr<TaskSystem> tasks) { tasks_ = std::move(tasks); }
  /// Whether update or findPairs use the task system at all (structures
  /// without parallel code run serially whatever they are given).
  [[nodiscard]] virtual bool usesTaskSystem() const noexcept { return false; }

 protected:
  /// The system set by setTaskSystem, or the serial one.
  [[nodiscard]] TaskSystem& tasks() const noexcept { return tasks_ ? *tasks_ : serialTaskSystem(); }
  [[nodiscard]] const std::shared_ptr<TaskSystem>& sharedTasks() const noexcept { return tasks_; }

 private:
  std::shared_ptr<TaskSystem> tasks_;
};

/// A new, empty structure of the given type.
[[nodiscard]] std::unique_ptr<BroadPhase> makeBroadPhase(BroadPhaseType type);

}  // namespace quadbin
