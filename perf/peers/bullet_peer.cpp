// Bullet 3.24 peers (single precision, BulletCollision only), fed the frames
// the way btCollisionWorld feeds its broad phase: setAabb per proxy, then
// calculateOverlappingPairs, then the pairs are read from the
// btHashedOverlappingPairCache. Bullet is 3D: every box is a flat slab
// z in [-1, 1], the same for all, so two slabs overlap exactly when their
// x-y boxes do.
//
// "bullet-dbvt": btDbvtBroadphase with its defaults (two dynamic trees, no
// velocity prediction, incremental optimisation, lazy pair removal).
// "bullet-sap": bt32BitAxisSweep3, incremental sweep and prune over world
// bounds quantized to 31 bits. Its bounds are the ones given by setBounds,
// grown by a quarter on every side; a box outside them (or more proxies
// than its handle pool holds) makes the peer build a new sweep whose bounds
// cover every box (grown by a quarter again) and re-create all proxies, so
// boxes outside are never clamped onto the border. Proxies are created in
// order of min x (a bulk load that spares the x axis most of its insertion
// sort); loading is still quadratic, so more than 250,000 boxes are refused
// (quadbin::Error). Its raycast accelerator (a second broad phase,
// btDbvtBroadphase, kept in step) is disabled: pairs only.
//
// Bullet's pair cache holds candidates: pairs whose enlarged or quantized
// boxes overlap (btDbvt removes stale pairs only a tenth at a time). Both
// enlargements are conservative and Bullet's tests are closed, so every
// strictly overlapping pair is among them; findPairs keeps those whose
// tight float boxes overlap strictly. All of it is timed.
#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <quadbin/error.hpp>
#include <string>

#include "factories.hpp"

namespace quadbin::perf {

namespace {

constexpr float kSlabHalfDepth = 1.0f;

[[nodiscard]] btVector3 minCorner(const AABB& box) noexcept {
  return {box.min.x, box.min.y, -kSlabHalfDepth};
}
[[nodiscard]] btVector3 maxCorner(const AABB& box) noexcept {
  return {box.max.x, box.max.y, kSlabHalfDepth};
}

// The proxy's client object carries its index in the frame's span.
[[nodiscard]] void* toClient(std::uint32_t index) noexcept {
  // The pointer only carries the number: Bullet's API takes a void*.
  return reinterpret_cast<void*>(  // NOLINT(performance-no-int-to-ptr)
      static_cast<std::uintptr_t>(index));
}
[[nodiscard]] std::uint32_t fromClient(const btBroadphaseProxy* proxy) noexcept {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(proxy->m_clientObject));
}

// Heap bytes of one glibc malloc(request): 8 bytes of header, 16-byte
// granules, 32 bytes at least.
[[nodiscard]] std::size_t mallocBytes(std::size_t request) noexcept {
  return std::max<std::size_t>(32, (request + 8 + 15) & ~std::size_t{15});
}
// btAlignedAlloc(size, 16) asks malloc for size + a pointer + 15.
[[nodiscard]] std::size_t alignedBytes(std::size_t size) noexcept {
  return mallocBytes(size + sizeof(void*) + 15);
}

// The hashed pair cache: its pair array, and a hash table and a next array
// of ints sized to the pair array's capacity.
[[nodiscard]] std::size_t pairCacheBytes(btOverlappingPairCache* cache) {
  const auto capacity = static_cast<std::size_t>(cache->getOverlappingPairArray().capacity());
  return alignedBytes(sizeof(btHashedOverlappingPairCache)) +
         alignedBytes(capacity * sizeof(btBroadphasePair)) +
         2 * alignedBytes(capacity * sizeof(int));
}

// Removes every pair from the cache: one pass, so that destroying the
// proxies afterwards does not scan the whole cache once per proxy.
void clearPairCache(btOverlappingPairCache* cache) {
  struct RemoveAll : btOverlapCallback {
    bool processOverlap(btBroadphasePair& /*pair*/) override { return true; }
  } removeAll;
  cache->processAllOverlappingPairs(&removeAll, nullptr);
}

class DbvtEngine {
 public:
  static constexpr std::string_view kName = "bullet-dbvt";
  static constexpr std::uint32_t kDefaultRunMaxBodies = 0;  // no limit

  void setBounds(const AABB& /*bounds*/) noexcept {}  // the trees cover any box
  static void checkCount(std::size_t /*count*/) noexcept {}
  /// Never needs a rebuild: the trees cover any box and grow.
  [[nodiscard]] bool mustRebuild(std::span<const AABB> /*boxes*/) const noexcept { return false; }
  void rebuild(std::span<const AABB> /*boxes*/) {}

  [[nodiscard]] btBroadphaseProxy* create(const AABB& box, std::uint32_t index) {
    return broadPhase_.createProxy(minCorner(box), maxCorner(box), BOX_SHAPE_PROXYTYPE,
                                   toClient(index), btBroadphaseProxy::DefaultFilter,
                                   btBroadphaseProxy::AllFilter, nullptr);
  }
  void move(btBroadphaseProxy* proxy, const AABB& box) {
    broadPhase_.setAabb(proxy, minCorner(box), maxCorner(box), nullptr);
  }
  /// Creates the proxies of boxes[from, to) into proxies[from, to), in
  /// index order (as bodies are added to a btCollisionWorld).
  void createRange(std::span<const AABB> boxes, std::uint32_t from, std::uint32_t to,
                   std::vector<btBroadphaseProxy*>& proxies) {
    for (std::uint32_t i = from; i < to; ++i) proxies[i] = create(boxes[i], i);
  }
  void destroy(btBroadphaseProxy* proxy) { broadPhase_.destroyProxy(proxy, nullptr); }
  /// btDbvtBroadphase frees its trees but not the proxies it allocated.
  void release(std::span<btBroadphaseProxy* const> proxies) {
    clearPairCache(broadPhase_.getOverlappingPairCache());
    for (auto* proxy : proxies) broadPhase_.destroyProxy(proxy, nullptr);
  }
  [[nodiscard]] btOverlappingPairCache* calculatePairs() {
    broadPhase_.calculateOverlappingPairs(nullptr);
    return broadPhase_.getOverlappingPairCache();
  }

  /// One aligned allocation per proxy and per tree node (a tree of n leaves
  /// has 2n - 1 nodes, plus one cached free node), the pair cache, and the
  /// trees' collision stacks.
  [[nodiscard]] std::size_t memoryBytes(std::size_t proxies) {
    std::size_t nodes = 0, stacks = 0;
    for (const auto& set : broadPhase_.m_sets) {
      if (set.m_leaves > 0) nodes += 2 * static_cast<std::size_t>(set.m_leaves) - 1;
      if (set.m_free != nullptr) ++nodes;
      stacks += static_cast<std::size_t>(set.m_stkStack.capacity()) * sizeof(btDbvt::sStkNN);
    }
    return proxies * alignedBytes(sizeof(btDbvtProxy)) + nodes * alignedBytes(sizeof(btDbvtNode)) +
           pairCacheBytes(broadPhase_.getOverlappingPairCache()) + stacks;
  }

 private:
  btDbvtBroadphase broadPhase_;
};

class SapEngine {
 public:
  static constexpr std::string_view kName = "bullet-sap";
  using Sweep = btAxisSweep3Internal<unsigned int>;
  /// Loading n proxies costs about n^2 edge swaps: on the flat z axis every
  /// new proxy's min edge passes every max edge (all slabs overlap there),
  /// and on y it passes half the edges. About a minute at 100,000 on the
  /// development machine, so hours at 1,000,000: refused above this.
  static constexpr std::size_t kMaxProxies = 250'000;
  /// Loading takes seconds from a few tens of thousands: the main job stops here.
  static constexpr std::uint32_t kDefaultRunMaxBodies = 10'000;

  static void checkCount(std::size_t count) {
    if (count > kMaxProxies) {
      throw Error("bullet-sap: " + std::to_string(count) + " boxes, more than " +
                  std::to_string(kMaxProxies) +
                  " (loading a sweep and prune takes n^2 steps: use bullet-dbvt)");
    }
  }

  void setBounds(const AABB& bounds) noexcept { hint_ = bounds; }

  [[nodiscard]] bool mustRebuild(std::span<const AABB> boxes) const noexcept {
    if (!sweep_ || boxes.size() > capacity_) return true;
    return std::any_of(boxes.begin(), boxes.end(),
                       [this](const AABB& b) { return isFinite(b) && !contains(world_, b); });
  }
  /// A new, empty sweep whose bounds cover the hint and every box (a
  /// quarter of margin on each side) and whose handle pool holds a quarter
  /// more proxies than there are boxes.
  void rebuild(std::span<const AABB> boxes) {
    sweep_.reset();
    AABB world = hint_;
    bool haveWorld = hint_.isValid() && isFinite(hint_);
    for (const auto& b : boxes) {
      if (!isFinite(b)) continue;  // left to quantization's clamping
      world = haveWorld ? unionOf(world, b) : b;
      haveWorld = true;
    }
    if (!haveWorld) world = {{0, 0}, {1, 0}};
    const Vec2 margin = max(world.extents() * 0.25f, Vec2{1.0f, 1.0f});
    world_ = {world.min - margin, world.max + margin};
    capacity_ = std::max<std::size_t>(boxes.size() + boxes.size() / 4, 64);
    sweep_ = std::make_unique<bt32BitAxisSweep3>(
        btVector3(world_.min.x, world_.min.y, -2 * kSlabHalfDepth),
        btVector3(world_.max.x, world_.max.y, 2 * kSlabHalfDepth),
        static_cast<unsigned int>(capacity_), nullptr, /*disableRaycastAccelerator=*/true);
  }

  [[nodiscard]] btBroadphaseProxy* create(const AABB& box, std::uint32_t index) {
    return sweep_->createProxy(minCorner(box), maxCorner(box), BOX_SHAPE_PROXYTYPE, toClient(index),
                               btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter,
                               nullptr);
  }
  void move(btBroadphaseProxy* proxy, const AABB& box) {
    sweep_->setAabb(proxy, minCorner(box), maxCorner(box), nullptr);
  }
  /// Creates the proxies of boxes[from, to) into proxies[from, to), in
  /// order of min x: each new proxy's edges are inserted at the end of the
  /// axes and sorted down into place, so inserting along x makes the x axis
  /// nearly free (y and the flat z axis stay quadratic, see kMaxProxies).
  void createRange(std::span<const AABB> boxes, std::uint32_t from, std::uint32_t to,
                   std::vector<btBroadphaseProxy*>& proxies) {
    order_.resize(to - from);
    std::iota(order_.begin(), order_.end(), from);
    std::sort(order_.begin(), order_.end(), [boxes](std::uint32_t a, std::uint32_t b) {
      return boxes[a].min.x < boxes[b].min.x || (boxes[a].min.x == boxes[b].min.x && a < b);
    });
    for (const std::uint32_t i : order_) proxies[i] = create(boxes[i], i);
  }
  void destroy(btBroadphaseProxy* proxy) { sweep_->destroyProxy(proxy, nullptr); }
  /// The sweep frees its handle pool, which holds the proxies.
  void release(std::span<btBroadphaseProxy* const> /*proxies*/) noexcept {}
  [[nodiscard]] btOverlappingPairCache* calculatePairs() {
    sweep_->calculateOverlappingPairs(nullptr);
    return sweep_->getOverlappingPairCache();
  }

  /// The handle pool (capacity + 1 sentinel handles), three edge arrays of
  /// two edges per handle, and the pair cache: all allocated up front.
  [[nodiscard]] std::size_t memoryBytes(std::size_t /*proxies*/) {
    if (!sweep_) return 0;
    const std::size_t handles = capacity_ + 1;
    return alignedBytes(sizeof(bt32BitAxisSweep3)) + alignedBytes(handles * sizeof(Sweep::Handle)) +
           3 * alignedBytes(2 * handles * sizeof(Sweep::Edge)) +
           pairCacheBytes(sweep_->getOverlappingPairCache()) +
           order_.capacity() * sizeof(std::uint32_t);
  }

 private:
  AABB hint_{{0, 0}, {-1, -1}};  // invalid: no bounds given yet
  AABB world_{};
  std::size_t capacity_ = 0;
  std::unique_ptr<bt32BitAxisSweep3> sweep_;
  std::vector<std::uint32_t> order_;  // creation order scratch
};

template <class Engine>
class BulletPeer final : public Structure {
 public:
  BulletPeer() = default;
  ~BulletPeer() override { engine_.release(proxies_); }
  [[nodiscard]] std::string_view name() const noexcept override { return Engine::kName; }
  [[nodiscard]] std::uint32_t defaultRunMaxBodies() const noexcept override {
    return Engine::kDefaultRunMaxBodies;
  }
  void setBounds(const AABB& bounds) override { engine_.setBounds(bounds); }
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override {
    return engine_.memoryBytes(proxies_.size()) + proxies_.capacity() * sizeof(void*) +
           boxes_.capacity() * sizeof(AABB);
  }

 private:
  // mutable: Bullet's size accessors are not const.
  mutable Engine engine_;
  std::vector<btBroadphaseProxy*> proxies_;  // by index
  std::vector<AABB> boxes_;                  // this frame's tight boxes
};

template <class Engine>
void BulletPeer<Engine>::update(std::span<const AABB> boxes) {
  Engine::checkCount(boxes.size());
  if (engine_.mustRebuild(boxes)) {
    engine_.rebuild(boxes);  // a new, empty broad phase: every proxy is created again
    proxies_.clear();
  }
  const auto n = static_cast<std::uint32_t>(boxes.size());
  const auto old = static_cast<std::uint32_t>(proxies_.size());
  for (std::uint32_t i = old; i > n; --i) engine_.destroy(proxies_[i - 1]);
  if (n < old) proxies_.resize(n);
  for (std::uint32_t i = 0; i < std::min(n, old); ++i) engine_.move(proxies_[i], boxes[i]);
  if (n > old) {
    proxies_.resize(n);
    engine_.createRange(boxes, old, n, proxies_);
  }
  boxes_.assign(boxes.begin(), boxes.end());
}

template <class Engine>
void BulletPeer<Engine>::findPairs(std::vector<Pair>& out) {
  const btBroadphasePairArray& candidates = engine_.calculatePairs()->getOverlappingPairArray();
  for (int k = 0; k < candidates.size(); ++k) {
    const std::uint32_t a = fromClient(candidates[k].m_pProxy0);
    const std::uint32_t b = fromClient(candidates[k].m_pProxy1);
    if (overlaps(boxes_[a], boxes_[b])) out.push_back(a < b ? Pair{a, b} : Pair{b, a});
  }
}

}  // namespace

std::unique_ptr<Structure> makeBulletDbvtPeer() {
  return std::make_unique<BulletPeer<DbvtEngine>>();
}
std::unique_ptr<Structure> makeBulletSapPeer() { return std::make_unique<BulletPeer<SapEngine>>(); }

}  // namespace quadbin::perf
