#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <quadbin/engine/log.hpp>

namespace quadbin {

std::shared_ptr<spdlog::logger> logger() {
  // Not registered in spdlog's global registry: a user's spdlog::drop_all()
  // or set_level() must not silence or flood the library.
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto log = std::make_shared<spdlog::logger>(
        "quadbin", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    log->set_level(spdlog::level::warn);
    return log;
  }();
  return instance;
}

void setLogLevel(LogLevel level) {
  logger()->set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(level) +
                                                             (level == LogLevel::Off ? 1 : 0)));
}

LogLevel logLevel() {
  const auto level = logger()->level();
  if (level == spdlog::level::off) return LogLevel::Off;
  if (level == spdlog::level::critical) return LogLevel::Error;
  return static_cast<LogLevel>(static_cast<int>(level));
}

void setLogSink(spdlog::sink_ptr sink) {
  auto log = logger();
  log->sinks().clear();
  log->sinks().push_back(std::move(sink));
}

}  // namespace quadbin
