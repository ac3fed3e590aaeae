#pragma once
/// \file
/// The library's log: quiet by default (warnings and errors only), written
/// to stderr unless the game gives its own sink. The library logs refused
/// input (once per kind of refusal, then at debug level) and bodies that
/// leave an open world, never once per frame.

#include <functional>
#include <string_view>

namespace quadbin {

enum class LogLevel : int { Trace, Debug, Info, Warn, Error, Off };

/// Receives each message the library logs at or above the current level:
/// its level and its text (one line, no trailing newline). Called on the
/// thread that logged, never from two threads at once.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

/// Messages below `level` are dropped (LogLevel::Off: all of them).
void setLogLevel(LogLevel level);
[[nodiscard]] LogLevel logLevel();
/// Sends every later message to `sink` instead of where they went before;
/// an empty function restores the default, stderr.
void setLogSink(LogSink sink);

}  // namespace quadbin
