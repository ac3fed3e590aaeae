#pragma once
/// \file
/// The library's log: one spdlog logger named "quadbin", quiet by default
/// (warnings and errors only). Users set its level and where it writes.

#include <spdlog/common.h>
#include <spdlog/logger.h>
#include <memory>

namespace quadbin {

enum class LogLevel : int { Trace, Debug, Info, Warn, Error, Off };

/// The library's logger (created on first use, writing to stderr).
[[nodiscard]] std::shared_ptr<spdlog::logger> logger();
void setLogLevel(LogLevel level);
[[nodiscard]] LogLevel logLevel();
/// Replaces every sink of the library's logger with `sink`.
void setLogSink(spdlog::sink_ptr sink);

}  // namespace quadbin
