#pragma once
// The worlds `quadbin-perf features` compares (docs/perf-cli.md,
// `features`): a reference scene's world with one game feature switched on
// the way a game would use it, stepped with that feature's per-step work
// (forces before the step; events and drawing after it).
#include <cstdint>
#include <memory>
#include <optional>
#include <quadbin/engine/world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quadbin::perf {

enum class Feature : std::uint8_t {
  Baseline,   ///< the scene as Workload B steps it
  Filter,     ///< every ball one of 4 categories, 2 category pairs rejected
  Sensors,    ///< 16 large static sensor boxes, their events read
  Materials,  ///< restitution per ball and linear damping
  Friction,   ///< friction 0.5 on every ball
  Kinematic,  ///< 4 kinematic paddles moving up and down
  Events,     ///< contact begin, end and hit events read every step
  PreSolve,   ///< a pre-solve callback that keeps every contact
  Force,      ///< applyForce on every ball every step
  Draw,       ///< World::draw into a counting WorldDraw every step
  Disabled,   ///< one ball in 100 disabled (World::setEnabled)
  Outlines,   ///< 16 turned boxes and 16 segments among the balls
};

/// Every feature, Baseline first, in report order.
[[nodiscard]] const std::vector<Feature>& allFeatures();
/// "filter", "sensors", ... ("baseline" for Baseline).
[[nodiscard]] std::string_view featureName(Feature f) noexcept;
[[nodiscard]] std::optional<Feature> parseFeature(std::string_view name) noexcept;
/// One line: how the feature is switched on.
[[nodiscard]] std::string_view featureHow(Feature f) noexcept;

/// A scene's world with one feature on, and its per-step work.
class FeatureWorld {
 public:
  /// Steps on `tasks` (shared by every world of a comparison).
  FeatureWorld(Feature feature, const scenes::Scene& scene, scenes::SceneKind kind,
               std::shared_ptr<TaskSystem> tasks);
  /// One step at dt = 1/60 with the feature's per-step work.
  void step();
  [[nodiscard]] Feature feature() const noexcept { return feature_; }
  /// What the feature's per-step work counted since the world was made
  /// (events read, callbacks drawn, forces applied); 0 when it has none.
  [[nodiscard]] std::uint64_t work() const noexcept { return work_; }
  /// Contacts of the last step.
  [[nodiscard]] std::uint32_t contacts() const noexcept { return world_.stats().contacts; }

 private:
  void setUp(const scenes::Scene& scene);
  void addPaddles(const scenes::Scene& scene);
  void addSensors(const scenes::Scene& scene);
  void addOutlines(const scenes::Scene& scene);
  void beforeStep();
  void afterStep();

  Feature feature_;
  World world_;
  std::vector<BodyId> balls_;
  std::vector<BodyId> paddles_;
  float paddleSpeed_ = 0.0f;
  std::vector<float> masses_;  // the force feature's, per ball
  std::uint64_t steps_ = 0;
  std::uint64_t work_ = 0;
};

}  // namespace quadbin::perf
