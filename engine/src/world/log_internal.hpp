#pragma once
// The engine's side of the log (LogLevel and LogSink in include/quadbin/engine/world_def.hpp): one
// spdlog logger named "quadbin", not registered in spdlog's global registry, so a game's
// spdlog::drop_all() or set_level() neither silences nor floods it. spdlog stays a private
// dependency: nothing installed names it.

#include <spdlog/logger.h>

#include <memory>

namespace quadbin {

/// The library's logger (created on first use, writing to stderr).
[[nodiscard]] const std::shared_ptr<spdlog::logger>& logger();

}  // namespace quadbin
