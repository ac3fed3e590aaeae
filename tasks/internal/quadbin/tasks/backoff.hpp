#pragma once
/// \file
/// Backoff: how a thread waits for another's publication (a StagedLoop's
/// stage, a region's phase): spinning with the CPU's pause hint for a
/// few hundred rounds, where the wait is usually short, then yielding the
/// core to whoever else needs it. Internal to quadbin's layers (not
/// installed).

#include <thread>

namespace quadbin {

class Backoff {
 public:
  /// Rounds spent spinning before the first yield.
  static constexpr int kSpins = 256;

  /// One round of waiting.
  void pause() noexcept {
    if (rounds_++ < kSpins) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      asm volatile("yield");
#endif
    } else {
      std::this_thread::yield();
    }
  }
  /// Rounds waited so far.
  [[nodiscard]] int rounds() const noexcept { return rounds_; }

 private:
  int rounds_ = 0;
};

}  // namespace quadbin
