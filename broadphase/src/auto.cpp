#include <quadbin/broadphase/auto.hpp>
#include <quadbin/error.hpp>
#include <string>

#include "checks.hpp"

namespace quadbin {

AutoBroadPhase::AutoBroadPhase(const AutoOptions& options)
    : options_(options), active_(makeBroadPhase(options.small)) {
  if (options.smallBelow > options.mediumBelow) {
    throw Error("AutoOptions.smallBelow = " + std::to_string(options.smallBelow) +
                " must be <= mediumBelow = " + std::to_string(options.mediumBelow));
  }
  for (auto type : {options.small, options.medium, options.large}) {
    if (type == BroadPhaseType::Auto)
      throw Error("AutoOptions: a structure may not be Auto itself");
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

BroadPhaseType AutoBroadPhase::choose(std::size_t count) const noexcept {
  const auto n = static_cast<double>(count);
  const BroadPhaseType now = active_->type();
  // A threshold is crossed upward at its value and downward only
  // `hysteresis` below it.
  auto below = [&](double threshold, bool currentlyBelow) {
    return currentlyBelow ? n < threshold : n < threshold * (1.0 - options_.hysteresis);
  };
  if (below(options_.smallBelow, now == options_.small)) return options_.small;
  if (below(options_.mediumBelow, now != options_.large)) return options_.medium;
  return options_.large;
}

void AutoBroadPhase::update(std::span<const AABB> boxes) {
  const BroadPhaseType pick = choose(boxes.size());
  if (pick != active_->type()) {
    // Checked before the switch, so that refused boxes change nothing (the
    // structure checks them again in its own update otherwise).
    detail::requireValidBoxes(boxes, "AutoBroadPhase::update");
    active_ = makeBroadPhase(pick);
    if (haveBounds_) active_->setBounds(bounds_);
    active_->setTaskSystem(sharedTasks());
  }
  active_->update(boxes);
}

}  // namespace quadbin
