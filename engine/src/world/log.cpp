#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <quadbin/engine/world_def.hpp>
#include <utility>

#include "world/log_internal.hpp"

namespace quadbin {
namespace {

LogLevel fromSpdlog(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return LogLevel::Trace;
    case spdlog::level::debug:
      return LogLevel::Debug;
    case spdlog::level::info:
      return LogLevel::Info;
    case spdlog::level::warn:
      return LogLevel::Warn;
    case spdlog::level::err:
    case spdlog::level::critical:
      return LogLevel::Error;
    default:
      return LogLevel::Off;
  }
}

spdlog::level::level_enum toSpdlog(LogLevel level) {
  switch (level) {
    case LogLevel::Trace:
      return spdlog::level::trace;
    case LogLevel::Debug:
      return spdlog::level::debug;
    case LogLevel::Info:
      return spdlog::level::info;
    case LogLevel::Warn:
      return spdlog::level::warn;
    case LogLevel::Error:
      return spdlog::level::err;
    case LogLevel::Off:
      break;
  }
  return spdlog::level::off;
}

// Hands each message to the game's LogSink; base_sink's mutex serialises
// the calls.
class CallbackSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit CallbackSink(LogSink callback) : sink_(std::move(callback)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    sink_(fromSpdlog(msg.level), std::string_view(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  LogSink sink_;
};

}  // namespace

const std::shared_ptr<spdlog::logger>& logger() {
  static const std::shared_ptr<spdlog::logger> instance = [] {
    auto log = std::make_shared<spdlog::logger>(
        "quadbin", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    log->set_level(spdlog::level::warn);
    return log;
  }();
  return instance;
}

void setLogLevel(LogLevel level) { logger()->set_level(toSpdlog(level)); }

LogLevel logLevel() { return fromSpdlog(logger()->level()); }

void setLogSink(LogSink sink) {
  const auto& log = logger();
  spdlog::sink_ptr replacement;
  if (sink) {
    replacement = std::make_shared<CallbackSink>(std::move(sink));
  } else {
    replacement = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  }
  log->sinks().clear();
  log->sinks().push_back(std::move(replacement));
}

}  // namespace quadbin
