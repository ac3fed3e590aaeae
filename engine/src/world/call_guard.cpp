// The world's call guard and its refusals (call_guard.hpp).
#include "world/call_guard.hpp"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include <quadbin/error.hpp>

#include "world/log_internal.hpp"

namespace quadbin {

void Refusals::log(const std::string& message) {
  if (!warned_.exchange(true, std::memory_order_relaxed)) {
    logger()->warn("refused: {} (later refusals are logged at debug level)", message);
  } else {
    logger()->debug("refused: {}", message);
  }
}

void Refusals::refuse(const std::string& message) {
  log(message);
  throw Error(message);
}

void CallGuard::refuseBusy(const char* what, std::uint32_t seen, Refusals& refusals) {
  if (seen == kStepping) {
    refusals.refuse(fmt::format(
        "{}: called while World::step runs; nothing may be called on a world during its step "
        "(see docs/concurrency.md)",
        what));
  }
  if (seen == kChanging) {
    refusals.refuse(fmt::format(
        "{}: called while another call changes this world (createBody, destroyBody, set...); "
        "a world must not be used from another thread while it changes (see "
        "docs/concurrency.md)",
        what));
  }
  refusals.refuse(fmt::format(
      "{}: called while {} other call(s) read this world (queries or accessors); nothing may "
      "change a world while other threads read it (see docs/concurrency.md)",
      what, seen));
}

}  // namespace quadbin
