#include <gtest/gtest.h>

#include <quadbin/quadbin.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace quadbin;

namespace {

struct Captured {
  std::vector<std::pair<LogLevel, std::string>> lines;
};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    captured = std::make_shared<Captured>();
    setLogSink([c = captured](LogLevel level, std::string_view message) {
      c->lines.emplace_back(level, std::string(message));
    });
    setLogLevel(LogLevel::Warn);
    sink = captured.get();
  }
  void TearDown() override {
    setLogSink({});
    setLogLevel(LogLevel::Warn);
  }
  std::shared_ptr<Captured> captured;
  Captured* sink = nullptr;
};

}  // namespace

TEST_F(LogTest, QuietByDefaultAndLevelIsSettable) {
  EXPECT_EQ(logLevel(), LogLevel::Warn);
  // A refusal the world logs at warning level, then at debug level.
  World world;
  setLogLevel(LogLevel::Error);
  EXPECT_THROW(world.step(-1.0f), Error);
  EXPECT_TRUE(sink->lines.empty()) << "a warning below the Error level";
  setLogLevel(LogLevel::Debug);
  EXPECT_THROW(world.step(-2.0f), Error);
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_EQ(sink->lines[0].first, LogLevel::Debug) << "later refusals at debug level";
  setLogLevel(LogLevel::Off);
  EXPECT_THROW(world.step(-3.0f), Error);
  EXPECT_EQ(sink->lines.size(), 1u);
  EXPECT_EQ(logLevel(), LogLevel::Off);
  for (LogLevel level : {LogLevel::Trace, LogLevel::Debug, LogLevel::Info, LogLevel::Warn,
                         LogLevel::Error, LogLevel::Off}) {
    setLogLevel(level);
    EXPECT_EQ(logLevel(), level);
  }
}

TEST_F(LogTest, AnEmptySinkRestoresStderr) {
  setLogSink({});
  World world;
  testing::internal::CaptureStderr();
  EXPECT_THROW(world.step(-1.0f), Error);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("dt = -1"), std::string::npos) << err;
  EXPECT_TRUE(sink->lines.empty());
}

TEST_F(LogTest, RefusedInputIsLoggedOnceAtWarning) {
  World world;
  for (int i = 0; i < 5; ++i) EXPECT_THROW(world.step(-1.0f), Error);
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_EQ(sink->lines[0].first, LogLevel::Warn);
  EXPECT_NE(sink->lines[0].second.find("dt = -1"), std::string::npos);
}

TEST_F(LogTest, BodyLeavingTheWorldIsLoggedOnceNotPerFrame) {
  WorldDef def;
  def.boundary = Boundary::Open;
  World world(def);
  world.createBody(BodyDef::ball({99, 50}, 1, {100, 0}));
  world.createBody(BodyDef::ball({1, 50}, 1, {-100, 0}));
  for (int i = 0; i < 60; ++i) world.step(1.0f / 60.0f);
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_NE(sink->lines[0].second.find("left the world"), std::string::npos);
  EXPECT_EQ(world.stats().bodiesOutside, 2u);
}

TEST_F(LogTest, WorldDefLogLevelApplies) {
  WorldDef def;
  def.logLevel = LogLevel::Error;
  World world(def);
  EXPECT_EQ(logLevel(), LogLevel::Error);
  EXPECT_THROW(world.step(0.0f), Error);
  EXPECT_TRUE(sink->lines.empty());
}
