#include <gtest/gtest.h>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <mutex>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

using namespace quadbin;

namespace {

class CaptureSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::pair<spdlog::level::level_enum, std::string>> lines;

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    lines.emplace_back(msg.level, std::string(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}
};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sink = std::make_shared<CaptureSink>();
    setLogSink(sink);
    setLogLevel(LogLevel::Warn);
  }
  void TearDown() override {
    setLogSink(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    setLogLevel(LogLevel::Warn);
  }
  std::shared_ptr<CaptureSink> sink;
};

}  // namespace

TEST_F(LogTest, QuietByDefaultAndLevelIsSettable) {
  EXPECT_EQ(logLevel(), LogLevel::Warn);
  logger()->info("not shown");
  EXPECT_TRUE(sink->lines.empty());
  setLogLevel(LogLevel::Info);
  logger()->info("shown");
  EXPECT_EQ(sink->lines.size(), 1u);
  setLogLevel(LogLevel::Off);
  logger()->error("not shown either");
  EXPECT_EQ(sink->lines.size(), 1u);
  EXPECT_EQ(logLevel(), LogLevel::Off);
}

TEST_F(LogTest, RefusedInputIsLoggedOnceAtWarning) {
  World world;
  for (int i = 0; i < 5; ++i) EXPECT_THROW(world.step(-1.0f), Error);
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_EQ(sink->lines[0].first, spdlog::level::warn);
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
