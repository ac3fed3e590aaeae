// A moved-from World: its noexcept accessors answer as an empty world's,
// every other member throws Error; never a crash.
#include <gtest/gtest.h>

#include <functional>
#include <quadbin/quadbin.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace quadbin;

namespace {

class MovedFromWorld : public ::testing::Test {
 protected:
  void SetUp() override {
    setLogLevel(LogLevel::Off);
    ball_ = from_.createBody(BodyDef::ball({10, 10}, 1, {1, 0}));
    to_ = std::move(from_);
  }
  void TearDown() override { setLogLevel(LogLevel::Warn); }

  World from_;
  World to_;
  BodyId ball_;
};

}  // namespace

// NOLINTBEGIN(bugprone-use-after-move): using the moved-from world is the point.
TEST_F(MovedFromWorld, NoexceptAccessorsAnswerAsAnEmptyWorld) {
  EXPECT_EQ(from_.bodyCount(), 0u);
  EXPECT_EQ(from_.id(), 0u);
  EXPECT_FALSE(from_.isValid(ball_));
  EXPECT_FALSE(from_.isValid(BodyId{}));
  EXPECT_FALSE(from_.isStepping());
  EXPECT_TRUE(from_.contactBeginEvents().empty());
  EXPECT_TRUE(from_.contactEndEvents().empty());
  EXPECT_EQ(from_.stats().totalMs, 0.0);
  EXPECT_EQ(from_.stats().awakeBodies, 0u);
  EXPECT_EQ(from_.def().bounds, WorldDef{}.bounds);
  EXPECT_EQ(from_.kineticEnergy(), 0.0);
  EXPECT_EQ(from_.momentum(), (Vec2{}));
  EXPECT_EQ(from_.taskSystem().threadCount(), 1u);
  EXPECT_EQ(from_.broadPhase().size(), 0u);
  std::vector<std::uint32_t> found{7};
  from_.broadPhase().query({{0, 0}, {100, 100}}, found);
  EXPECT_EQ(found, (std::vector<std::uint32_t>{7}));
  // The world it moved into has the body, under the same id.
  EXPECT_TRUE(to_.isValid(ball_));
  EXPECT_EQ(to_.position(ball_), (Vec2{10, 10}));
  EXPECT_EQ(to_.id(), ball_.world);
}

TEST_F(MovedFromWorld, EveryOtherMemberThrows) {
  std::vector<BodyId> ids;
  std::vector<RayHit> hits;
  const Ray ray{{0, 0}, {1, 0}, 10};
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"createBody",
       [&] {
         from_.createBody(BodyDef::ball({10, 10}, 1));
       }},
      {"destroyBody", [&] { from_.destroyBody(ball_); }},
      {"type", [&] { (void)from_.type(ball_); }},
      {"position", [&] { (void)from_.position(ball_); }},
      {"velocity", [&] { (void)from_.velocity(ball_); }},
      {"radius", [&] { (void)from_.radius(ball_); }},
      {"mass", [&] { (void)from_.mass(ball_); }},
      {"bounds", [&] { (void)from_.bounds(ball_); }},
      {"setPosition",
       [&] {
         from_.setPosition(ball_, {20, 20});
       }},
      {"setVelocity",
       [&] {
         from_.setVelocity(ball_, {0, 1});
       }},
      {"isAwake", [&] { (void)from_.isAwake(ball_); }},
      {"setAwake", [&] { from_.setAwake(ball_, true); }},
      {"step", [&] { from_.step(1.0f / 60.0f); }},
      {"bodyAt", [&] { (void)from_.bodyAt(0); }},
      {"setBroadPhase", [&] { from_.setBroadPhase(BroadPhaseType::BinGrid); }},
      {"setThreadCount", [&] { from_.setThreadCount(2); }},
      {"queryBox",
       [&] {
         from_.queryBox({{0, 0}, {100, 100}}, ids);
       }},
      {"queryRadius",
       [&] {
         from_.queryRadius({10, 10}, 5, ids);
       }},
      {"raycast", [&] { (void)from_.raycast(ray); }},
      {"raycast", [&] { from_.raycastAll(ray, hits); }},
      {"nearest",
       [&] {
         from_.nearest({10, 10}, 1, ids);
       }},
  };
  for (const auto& [name, call] : calls) {
    try {
      call();
      ADD_FAILURE() << name << " ran on a moved-from world";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find("moved from"), std::string::npos) << what;
    }
    EXPECT_EQ(from_.bodyCount(), 0u) << name;
  }
  EXPECT_EQ(to_.bodyCount(), 1u);
  EXPECT_EQ(to_.position(ball_), (Vec2{10, 10}));
}

TEST_F(MovedFromWorld, AssigningAWorldMakesItUsableAgain) {
  from_ = World{};
  EXPECT_NE(from_.id(), 0u);
  EXPECT_NE(from_.id(), to_.id());
  const BodyId id = from_.createBody(BodyDef::ball({50, 50}, 1, {3, 0}));
  from_.step(1.0f / 60.0f);
  EXPECT_GT(from_.position(id).x, 50.0f);
  EXPECT_FALSE(from_.isValid(ball_));  // the old id belongs to to_
  World again(std::move(to_));
  EXPECT_TRUE(again.isValid(ball_));
  EXPECT_EQ(to_.bodyCount(), 0u);
}
// NOLINTEND(bugprone-use-after-move)
