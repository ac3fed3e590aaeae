#pragma once
// A fixture for tests that feed a World bad input on purpose: the library's
// log is off while the test runs (refusals would log), back at the default
// warning level afterwards.
#include <gtest/gtest.h>

#include <quadbin/engine/log.hpp>

namespace quadbin::test {

class QuietLog : public ::testing::Test {
 protected:
  void SetUp() override { setLogLevel(LogLevel::Off); }
  void TearDown() override { setLogLevel(LogLevel::Warn); }
};

}  // namespace quadbin::test
