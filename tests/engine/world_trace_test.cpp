// A world step traced on one thread (quadbin/tasks/trace.hpp, quadbin-perf
// predict): every region belongs to a named stage, the tasks account for
// the regions' time and the stages for the step's, and tracing changes no
// result.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <quadbin/tasks/trace.hpp>
#include <set>
#include <string>

#include "support/state_hash.hpp"

using namespace quadbin;

TEST(WorldTrace, TheStagesAccountForTheStep) {
  const auto scene = scenes::generate(scenes::SceneKind::Clustered, 3000);
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Clustered);
  def.logLevel = LogLevel::Off;
  TaskTrace trace;
  def.taskSystem = std::make_shared<TracingTaskSystem>(trace);
  World traced = scenes::makeWorld(scene, def);
  def.taskSystem = nullptr;
  def.threadCount = 1;
  World plain = scenes::makeWorld(scene, def);
  const float dt = 1.0f / 60.0f;
  for (int s = 0; s < 5; ++s) {
    trace.clear();
    traced.step(dt);
    plain.step(dt);
  }
  EXPECT_EQ(test::hashState(traced), test::hashState(plain)) << "tracing changed a result";

  const std::set<std::string> named{
      "setup",         "integrate", "swept boxes", "broad phase",         "contacts",
      "solve",         "impacts",   "escapees",    "integrate positions", "position correction",
      "wall clamp",    "sleep",     "events",      "event geometry",      "hit events",
      "sensor events", "finish"};
  std::uint32_t regions = 0;
  double stagesNs = 0.0, regionsNs = 0.0, tasksNs = 0.0;
  for (const auto& st : trace.stages()) {
    EXPECT_TRUE(named.count(st.name) == 1) << "a region outside the step's stages: " << st.name;
    regions += st.regionCount;
    stagesNs += st.wallNs;
    tasksNs += trace.workNs(st);
    for (std::uint32_t r = st.firstRegion; r < st.firstRegion + st.regionCount; ++r) {
      regionsNs += trace.regions()[r].wallNs;
    }
  }
  EXPECT_EQ(regions, trace.regions().size()) << "a region in no stage";
  EXPECT_GT(trace.regions().size(), 5u);
  // The contacts stage's passes run in one region: joined to its first.
  EXPECT_TRUE(std::any_of(trace.regions().begin(), trace.regions().end(),
                          [](const TaskTrace::Region& r) { return r.joined; }));
  // The tasks are the regions' time but for the timing itself (a clock
  // read per task): at least 80 % of it.
  EXPECT_LE(tasksNs, regionsNs);
  EXPECT_GE(tasksNs, 0.8 * regionsNs);
  // The stages cover the step: within 10 % of its own clock.
  EXPECT_NEAR(stagesNs * 1e-6, traced.stats().totalMs, 0.1 * traced.stats().totalMs + 0.05);
  // With one worker the prediction is the traced time.
  double one = 0.0;
  for (const auto& p : predict(trace, 1, {})) one += p.predictedMs;
  EXPECT_NEAR(one, (stagesNs - (regionsNs - tasksNs)) * 1e-6, 1e-6);
}
