#include <algorithm>
#include <cmath>
#include <quadbin/broadphase/auto.hpp>
#include <quadbin/error.hpp>
#include <string>
#include <vector>

namespace quadbin {

namespace {
constexpr std::size_t kSpreadSample = 256;
}

AutoBroadPhase::AutoBroadPhase(const AutoOptions& options)
    : options_(options), active_(makeBroadPhase(BroadPhaseType::BruteForce)) {
  if (options.bruteForceBelow > options.quadtreeBelow) {
    throw Error("AutoOptions.bruteForceBelow = " + std::to_string(options.bruteForceBelow) +
                " must be <= quadtreeBelow = " + std::to_string(options.quadtreeBelow));
  }
  if (!(options.sizeSpread >= 1.0f)) {
    throw Error("AutoOptions.sizeSpread = " + std::to_string(options.sizeSpread) + " must be >= 1");
  }
  if (!(options.hysteresis >= 0.0f && options.hysteresis < 1.0f)) {
    throw Error("AutoOptions.hysteresis = " + std::to_string(options.hysteresis) +
                " must be in [0, 1)");
  }
}

void AutoBroadPhase::setTaskSystem(std::shared_ptr<TaskSystem> tasks) {
  active_->setTaskSystem(tasks);
  BroadPhase::setTaskSystem(std::move(tasks));
}

void AutoBroadPhase::setBounds(const AABB& bounds) {
  bounds_ = bounds;
  haveBounds_ = true;
  active_->setBounds(bounds);
}

BroadPhaseType AutoBroadPhase::choose(std::span<const AABB> boxes) const {
  const auto n = static_cast<double>(boxes.size());
  const BroadPhaseType now = active_->type();
  // A threshold is crossed upward at its value and downward only
  // `hysteresis` below it.
  auto below = [&](double threshold, bool currentlyBelow) {
    return currentlyBelow ? n < threshold : n < threshold * (1.0 - options_.hysteresis);
  };
  if (below(options_.bruteForceBelow, now == BroadPhaseType::BruteForce)) {
    return BroadPhaseType::BruteForce;
  }
  if (below(options_.quadtreeBelow, now != BroadPhaseType::BinGrid))
    return BroadPhaseType::Quadtree;
  // Spread of sizes from an evenly strided sample.
  std::vector<float> extents;
  extents.reserve(kSpreadSample);
  const std::size_t stride = std::max<std::size_t>(1, boxes.size() / kSpreadSample);
  for (std::size_t i = 0; i < boxes.size(); i += stride) {
    extents.push_back(std::max(boxes[i].width(), boxes[i].height()));
  }
  const auto p10 = extents.begin() + static_cast<std::ptrdiff_t>(extents.size() / 10);
  const auto p90 = extents.begin() + static_cast<std::ptrdiff_t>(extents.size() * 9 / 10);
  std::nth_element(extents.begin(), p10, extents.end());
  const float small = *p10;
  std::nth_element(extents.begin(), p90, extents.end());
  const float large = *p90;
  const bool mixed = large > options_.sizeSpread * std::max(small, 1e-30f);
  return mixed ? BroadPhaseType::Quadtree : BroadPhaseType::BinGrid;
}

void AutoBroadPhase::update(std::span<const AABB> boxes) {
  const BroadPhaseType pick = choose(boxes);
  if (pick != active_->type()) {
    active_ = makeBroadPhase(pick);
    if (haveBounds_) active_->setBounds(bounds_);
    active_->setTaskSystem(sharedTasks());
  }
  active_->update(boxes);
}

}  // namespace quadbin
