#pragma once
// A task system for the tests that says it has `threads` threads and runs
// every task on the caller, one after another: in order (the first task
// must do all the work itself), or last first. Code that waits for a task
// to start (instead of taking its work) deadlocks on it.

#include <cstdint>
#include <quadbin/tasks/task_system.hpp>

namespace quadbin::test {

class OnTheCallerTaskSystem final : public TaskSystem {
 public:
  OnTheCallerTaskSystem(std::uint32_t threads, bool lastFirst)
      : threads_(threads), lastFirst_(lastFirst) {}
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return threads_; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    body(0, count);
  }
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override {
    for (std::uint32_t i = 0; i < count; ++i) task(lastFirst_ ? count - 1 - i : i);
  }

 private:
  std::uint32_t threads_;
  bool lastFirst_;
};

}  // namespace quadbin::test
