#pragma once
// Who uses a world: every member that can throw claims it first, with one
// compare-and-swap on one word, and a call that finds it taken is refused
// (no window between the check and the claim). Stepping or changing: one
// caller alone (step; a member that changes the world); otherwise the
// number of readers (throwing accessors, queries), any number at once.
// Refusals are logged: the first at warning level, the rest at debug.
#include <atomic>
#include <cstdint>
#include <string>

namespace quadbin {

// Refused calls: logged, then thrown as quadbin::Error.
class Refusals {
 public:
  void log(const std::string& message);
  [[noreturn]] void refuse(const std::string& message);

 private:
  std::atomic<bool> warned_{false};  // queries may refuse from many threads
};

class CallGuard {
 public:
  static constexpr std::uint32_t kIdle = 0;
  static constexpr std::uint32_t kStepping = UINT32_MAX;
  static constexpr std::uint32_t kChanging = UINT32_MAX - 1;

  // A claim on the world for one call, released when it ends.
  class Use {
   public:
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    ~Use() {
      if (as_ == kIdle) {
        guard_.users_.fetch_sub(1, std::memory_order_release);
      } else {
        guard_.users_.store(kIdle, std::memory_order_release);
      }
    }

   private:
    friend class CallGuard;
    Use(CallGuard& guard, std::uint32_t as) noexcept : guard_(guard), as_(as) {}
    CallGuard& guard_;
    std::uint32_t as_;  // kStepping or kChanging alone; kIdle: one reader
  };

  // The world for `what` alone (as kStepping or kChanging), or Error.
  [[nodiscard]] Use claimAlone(std::uint32_t as, const char* what, Refusals& refusals) {
    std::uint32_t seen = kIdle;
    if (!users_.compare_exchange_strong(seen, as, std::memory_order_acquire,
                                        std::memory_order_relaxed)) {
      refuseBusy(what, seen, refusals);
    }
    return {*this, as};
  }
  // The world for reading, beside other readers, or Error.
  [[nodiscard]] Use claimRead(const char* what, Refusals& refusals) {
    std::uint32_t seen = users_.load(std::memory_order_relaxed);
    do {
      if (seen >= kChanging) refuseBusy(what, seen, refusals);
    } while (!users_.compare_exchange_weak(seen, seen + 1, std::memory_order_acquire,
                                           std::memory_order_relaxed));
    return {*this, kIdle};
  }
  [[nodiscard]] bool stepping() const noexcept {
    return users_.load(std::memory_order_acquire) == kStepping;
  }

 private:
  [[noreturn]] static void refuseBusy(const char* what, std::uint32_t seen, Refusals& refusals);

  std::atomic<std::uint32_t> users_{kIdle};
};

}  // namespace quadbin
