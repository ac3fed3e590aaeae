#pragma once
// A fixture for tests that feed a World bad input on purpose: the library's
// log is off while the test runs (refusals would log), back at the default
// warning level afterwards; and a WorldDef whose world logs nothing.
#include <gtest/gtest.h>

#include <quadbin/engine/world_def.hpp>

namespace quadbin::test {

class QuietLog : public ::testing::Test {
 protected:
  void SetUp() override { setLogLevel(LogLevel::Off); }
  void TearDown() override { setLogLevel(LogLevel::Warn); }
};

/// A world definition whose log is off (its refusals are the test's),
/// under `gravity`.
inline WorldDef quietDef(Vec2 gravity = {}) {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.gravity = gravity;
  return def;
}

}  // namespace quadbin::test
