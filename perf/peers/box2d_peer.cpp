// Box2D 2.4.1 peers, fed the frames the way b2World feeds its broad phase.
//
// "box2d-tree": a b2DynamicTree. Each frame every proxy is moved with
// MoveProxy(box, displacement) (displacement = the move of the box's centre
// since the last frame, as b2Body::SynchronizeFixtures passes it); Box2D
// re-inserts only the proxies that left their fat box. Each re-inserted
// proxy then queries the tree with its fat box, as b2BroadPhase::UpdatePairs
// does, and a pair of two re-inserted proxies is kept from the query of
// the lower index only.
// "box2d-broadphase": the same through b2BroadPhase itself (MoveProxy, then
// UpdatePairs with a callback), the code path b2World runs.
//
// Box2D reports only the pairs that may be new; "it is up to the client to
// track subsequent overlap" (b2_broad_phase.h), which b2ContactManager does
// with its contact list. Here the client keeps the set of pairs whose fat
// boxes overlap: a pair of two proxies that were not re-inserted keeps its
// fat boxes, so it stays; every pair with a re-inserted proxy is dropped and
// reported again by the queries, which makes the new set without a lookup.
// findPairs then filters that set to the strict overlap of the tight boxes
// (a fat box contains its tight box, and Box2D's overlap test is closed, so
// no strictly overlapping pair is missed). All of it is timed.
#include <box2d/b2_broad_phase.h>
#include <box2d/b2_dynamic_tree.h>

#include <algorithm>
#include <cstdint>

#include "factories.hpp"

namespace quadbin::perf {

namespace {

[[nodiscard]] b2AABB toB2(const AABB& box) noexcept {
  b2AABB out;
  out.lowerBound.Set(box.min.x, box.min.y);
  out.upperBound.Set(box.max.x, box.max.y);
  return out;
}

[[nodiscard]] bool sameBox(const b2AABB& a, const b2AABB& b) noexcept {
  return a.lowerBound.x == b.lowerBound.x && a.lowerBound.y == b.lowerBound.y &&
         a.upperBound.x == b.upperBound.x && a.upperBound.y == b.upperBound.y;
}

// Box2D's user data carries the proxy's index in the frame's span.
[[nodiscard]] void* toUserData(std::uint32_t index) noexcept {
  // The pointer only carries the number: Box2D's API takes a void*.
  return reinterpret_cast<void*>(  // NOLINT(performance-no-int-to-ptr)
      static_cast<std::uintptr_t>(index));
}
[[nodiscard]] std::uint32_t fromUserData(void* data) noexcept {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data));
}

// Box2D grows its arrays by doubling from 16 (b2DynamicTree's node pool,
// b2BroadPhase's move and pair buffers) and never shrinks them: the capacity
// after `peak` elements were held at once.
[[nodiscard]] std::size_t box2dCapacity(std::size_t peak) noexcept {
  std::size_t capacity = 16;
  while (capacity < peak) capacity *= 2;
  return capacity;
}

// The bytes of b2DynamicTree's node pool after `peakProxies` leaves: a tree
// of n leaves holds 2n - 1 nodes.
[[nodiscard]] std::size_t treeBytes(std::size_t peakProxies) noexcept {
  return box2dCapacity(peakProxies > 0 ? 2 * peakProxies - 1 : 0) * sizeof(b2TreeNode);
}

// b2DynamicTree, queried per re-inserted proxy by this peer.
class TreeEngine {
 public:
  static constexpr std::string_view kName = "box2d-tree";

  [[nodiscard]] int32 create(const b2AABB& box, std::uint32_t index) {
    return tree_.CreateProxy(box, toUserData(index));
  }
  [[nodiscard]] bool move(int32 id, const b2AABB& box, const b2Vec2& displacement) {
    return tree_.MoveProxy(id, box, displacement);
  }
  void destroy(int32 id) { tree_.DestroyProxy(id); }

  /// Calls add(q, p) once for every pair of overlapping fat boxes with at
  /// least one re-inserted proxy.
  template <class Add>
  void reportPairs(std::span<const std::uint32_t> movedList, const std::vector<std::uint8_t>& moved,
                   const std::vector<int32>& ids, Add add) {
    struct Callback {
      const b2DynamicTree* tree;
      const std::vector<std::uint8_t>* moved;
      Add* add;
      std::uint32_t query;
      // Box2D calls it by this name.
      bool QueryCallback(int32 proxyId) {  // NOLINT(readability-identifier-naming)
        const std::uint32_t other = fromUserData(tree->GetUserData(proxyId));
        // Itself, or a pair of two moved proxies already reported by the lower one.
        if (other == query || ((*moved)[other] != 0 && other < query)) return true;
        (*add)(query, other);
        return true;
      }
    };
    Callback callback{&tree_, &moved, &add, 0};
    for (const std::uint32_t q : movedList) {
      callback.query = q;
      tree_.Query(&callback, tree_.GetFatAABB(ids[q]));
    }
  }

  void notePeaks(std::size_t /*moved*/, std::size_t /*reported*/) noexcept {}
  [[nodiscard]] std::size_t memoryBytes(std::size_t peakProxies) const noexcept {
    return treeBytes(peakProxies);
  }

 private:
  b2DynamicTree tree_;
};

// b2BroadPhase: its move buffer, its UpdatePairs, its pair buffer.
class BroadPhaseEngine {
 public:
  static constexpr std::string_view kName = "box2d-broadphase";

  [[nodiscard]] int32 create(const b2AABB& box, std::uint32_t index) {
    return broadPhase_.CreateProxy(box, toUserData(index));
  }
  /// b2BroadPhase::MoveProxy does not say whether it re-inserted the proxy;
  /// a re-insertion always changes the fat box (the box left it, or it was
  /// too large), so the fat box tells.
  [[nodiscard]] bool move(int32 id, const b2AABB& box, const b2Vec2& displacement) {
    const b2AABB before = broadPhase_.GetFatAABB(id);
    broadPhase_.MoveProxy(id, box, displacement);
    return !sameBox(before, broadPhase_.GetFatAABB(id));
  }
  void destroy(int32 id) { broadPhase_.DestroyProxy(id); }

  template <class Add>
  void reportPairs(std::span<const std::uint32_t> /*movedList*/,
                   const std::vector<std::uint8_t>& /*moved*/, const std::vector<int32>& /*ids*/,
                   Add add) {
    struct Callback {
      Add* add;
      std::size_t count;
      // Box2D calls it by this name.
      void AddPair(void* userDataA, void* userDataB) {  // NOLINT(readability-identifier-naming)
        (*add)(fromUserData(userDataA), fromUserData(userDataB));
        ++count;
      }
    };
    Callback callback{&add, 0};
    broadPhase_.UpdatePairs(&callback);
    peakPairBuffer_ = std::max(peakPairBuffer_, callback.count);
  }

  void notePeaks(std::size_t moved, std::size_t /*reported*/) noexcept {
    peakMoveBuffer_ = std::max(peakMoveBuffer_, moved);
  }
  [[nodiscard]] std::size_t memoryBytes(std::size_t peakProxies) const noexcept {
    return treeBytes(peakProxies) + box2dCapacity(peakMoveBuffer_) * sizeof(int32) +
           box2dCapacity(peakPairBuffer_) * sizeof(b2Pair);
  }

 private:
  b2BroadPhase broadPhase_;
  std::size_t peakMoveBuffer_ = 0, peakPairBuffer_ = 0;
};

template <class Engine>
class Box2dPeer final : public Structure {
 public:
  [[nodiscard]] std::string_view name() const noexcept override { return Engine::kName; }
  // Box2D's tree covers any box: it needs no bounds.
  void setBounds(const AABB& /*bounds*/) override {}
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;

 private:
  void refreshFatPairs();

  Engine engine_;
  std::vector<int32> ids_;           // Box2D proxy id by index
  std::vector<AABB> boxes_;          // this frame's tight boxes
  std::vector<std::uint8_t> moved_;  // re-inserted since the last refresh, by index
  std::vector<std::uint32_t> movedList_;
  std::vector<Pair> fatPairs_;  // every pair whose fat boxes overlap
  bool pending_ = false;        // moves not yet folded into fatPairs_
  std::size_t peakProxies_ = 0;
};

template <class Engine>
void Box2dPeer<Engine>::update(std::span<const AABB> boxes) {
  // Two updates without findPairs: fold the first one's moves in first.
  refreshFatPairs();
  const auto n = static_cast<std::uint32_t>(boxes.size());
  const auto old = static_cast<std::uint32_t>(ids_.size());
  if (n < old) {
    for (std::uint32_t i = n; i < old; ++i) engine_.destroy(ids_[i]);
    std::erase_if(fatPairs_, [n](Pair p) { return p.b >= n; });
    ids_.resize(n);
    boxes_.resize(n);
  }
  moved_.resize(n, 0);  // all clear: refreshFatPairs cleared the flags it used
  for (std::uint32_t i = 0; i < std::min(n, old); ++i) {
    const Vec2 shift = boxes[i].center() - boxes_[i].center();
    if (engine_.move(ids_[i], toB2(boxes[i]), b2Vec2(shift.x, shift.y))) {
      moved_[i] = 1;
      movedList_.push_back(i);
    }
  }
  for (std::uint32_t i = old; i < n; ++i) {
    ids_.push_back(engine_.create(toB2(boxes[i]), i));
    moved_[i] = 1;
    movedList_.push_back(i);
  }
  boxes_.assign(boxes.begin(), boxes.end());
  peakProxies_ = std::max<std::size_t>(peakProxies_, n);
  engine_.notePeaks(movedList_.size(), 0);
  pending_ = true;
}

template <class Engine>
void Box2dPeer<Engine>::refreshFatPairs() {
  if (!pending_) return;
  // A pair of two proxies that kept their fat boxes still overlaps; every
  // pair with a re-inserted proxy is reported again below.
  std::erase_if(fatPairs_, [this](Pair p) { return (moved_[p.a] | moved_[p.b]) != 0; });
  engine_.reportPairs(movedList_, moved_, ids_, [this](std::uint32_t x, std::uint32_t y) {
    fatPairs_.push_back(x < y ? Pair{x, y} : Pair{y, x});
  });
  for (const std::uint32_t i : movedList_) moved_[i] = 0;
  movedList_.clear();
  pending_ = false;
}

template <class Engine>
void Box2dPeer<Engine>::findPairs(std::vector<Pair>& out) {
  refreshFatPairs();
  for (const Pair p : fatPairs_) {
    if (overlaps(boxes_[p.a], boxes_[p.b])) out.push_back(p);
  }
}

/// Box2D's arrays as its growth rules size them (see box2dCapacity), plus
/// this client's arrays by capacity.
template <class Engine>
std::size_t Box2dPeer<Engine>::memoryBytes() const noexcept {
  return engine_.memoryBytes(peakProxies_) + ids_.capacity() * sizeof(int32) +
         boxes_.capacity() * sizeof(AABB) + moved_.capacity() +
         movedList_.capacity() * sizeof(std::uint32_t) + fatPairs_.capacity() * sizeof(Pair);
}

}  // namespace

std::unique_ptr<Structure> makeBox2dTreePeer() { return std::make_unique<Box2dPeer<TreeEngine>>(); }
std::unique_ptr<Structure> makeBox2dBroadPhasePeer() {
  return std::make_unique<Box2dPeer<BroadPhaseEngine>>();
}

}  // namespace quadbin::perf
