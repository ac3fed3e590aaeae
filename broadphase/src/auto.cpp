#include <quadbin/broadphase/auto.hpp>
#include <quadbin/error.hpp>
#include <string>

#include "checks.hpp"

namespace quadbin {

struct AutoBroadPhase::Impl {
  AutoOptions options;
  BroadPhaseOptions picks;  // what the structures it switches to are made with
  std::unique_ptr<BroadPhase> active;
  AABB bounds{};
  bool haveBounds = false;
};

namespace {
// The defaults for the picks, `options` for the rule.
BroadPhaseOptions withRule(const AutoOptions& options) {
  BroadPhaseOptions all;
  all.autoSelect = options;
  return all;
}
}  // namespace

AutoBroadPhase::AutoBroadPhase(const AutoOptions& options) : AutoBroadPhase(withRule(options)) {}

AutoBroadPhase::AutoBroadPhase(const BroadPhaseOptions& all) : impl_(std::make_unique<Impl>()) {
  const AutoOptions& options = all.autoSelect;
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
  impl_->options = options;
  impl_->picks = all;
  // The picks' options are checked now, not at the first switch (a step).
  for (auto type : {options.medium, options.large}) {
    if (type != options.small) (void)makeBroadPhase(type, all);
  }
  impl_->active = makeBroadPhase(options.small, all);
}
AutoBroadPhase::~AutoBroadPhase() = default;

void AutoBroadPhase::setTaskSystem(std::shared_ptr<TaskSystem> tasks) {
  impl_->active->setTaskSystem(tasks);
  BroadPhase::setTaskSystem(std::move(tasks));
}

void AutoBroadPhase::setBounds(const AABB& bounds) {
  impl_->bounds = bounds;
  impl_->haveBounds = true;
  impl_->active->setBounds(bounds);
}

BroadPhaseType AutoBroadPhase::choose(std::size_t count) const noexcept {
  const AutoOptions& options = impl_->options;
  const auto n = static_cast<double>(count);
  const BroadPhaseType now = impl_->active->type();
  // A threshold is crossed upward at its value and downward only
  // `hysteresis` below it.
  auto below = [&](double threshold, bool currentlyBelow) {
    return currentlyBelow ? n < threshold : n < threshold * (1.0 - options.hysteresis);
  };
  if (below(options.smallBelow, now == options.small)) return options.small;
  if (below(options.mediumBelow, now != options.large)) return options.medium;
  return options.large;
}

void AutoBroadPhase::update(std::span<const AABB> boxes) {
  const BroadPhaseType pick = choose(boxes.size());
  std::unique_ptr<BroadPhase>& active = impl_->active;
  if (pick != active->type()) {
    // Checked before the switch, so that refused boxes change nothing (the
    // structure checks them again in its own update otherwise).
    detail::requireValidBoxes(boxes, "AutoBroadPhase::update");
    active = makeBroadPhase(pick, impl_->picks);
    if (impl_->haveBounds) active->setBounds(impl_->bounds);
    active->setTaskSystem(sharedTasks());
  }
  active->update(boxes);
}

void AutoBroadPhase::findPairs(std::vector<Pair>& out) { impl_->active->findPairs(out); }
void AutoBroadPhase::findPairsInto(std::vector<Pair>& out) { impl_->active->findPairsInto(out); }
void AutoBroadPhase::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->active->query(box, out);
}
void AutoBroadPhase::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  impl_->active->queryRay(ray, out);
}
std::size_t AutoBroadPhase::size() const noexcept { return impl_->active->size(); }
std::size_t AutoBroadPhase::memoryBytes() const noexcept { return impl_->active->memoryBytes(); }
void AutoBroadPhase::draw(BroadPhaseDraw& out) const { impl_->active->draw(out); }
BroadPhaseType AutoBroadPhase::active() const noexcept { return impl_->active->type(); }

}  // namespace quadbin
