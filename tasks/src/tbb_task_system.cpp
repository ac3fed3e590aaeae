#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <algorithm>
#include <optional>
#include <quadbin/error.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <string>

namespace quadbin {

namespace {

constexpr std::uint32_t kMaxThreads = 1024;

class TbbTaskSystem final : public TaskSystem {
 public:
  explicit TbbTaskSystem(std::uint32_t threads)
      : threads_(threads == 0 ? hardwareThreads() : threads) {
    // TBB caps its workers at the hardware's thread count unless told
    // otherwise; an arena asked for more would silently get fewer.
    if (threads_ > hardwareThreads()) {
      limit_.emplace(tbb::global_control::max_allowed_parallelism, threads_);
    }
    arena_.initialize(static_cast<int>(threads_));
  }

  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return threads_; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t grain,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    // execute() from a thread already in this arena runs the functor
    // directly, so nested calls cost nothing extra. Each task is isolated:
    // a thread that waits inside it for nested work (a caller's own TBB
    // loop) runs only that work, never another task of this call, which
    // may wait for the one it interrupted (a region's phases, a
    // StagedLoop's stages).
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, count, grain),
                        [&](const tbb::blocked_range<std::uint32_t>& r) {
                          tbb::this_task_arena::isolate([&] { body(r.begin(), r.end()); });
                        });
    });
  }
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override {
    arena_.execute([&] {
      // Grain 1 and the simple partitioner: every task may be stolen, which
      // is what independent tasks of uneven size want.
      tbb::parallel_for(
          tbb::blocked_range<std::uint32_t>(0, count, 1),
          [&](const tbb::blocked_range<std::uint32_t>& r) {
            for (std::uint32_t i = r.begin(); i < r.end(); ++i) {
              tbb::this_task_arena::isolate([&] { task(i); });
            }
          },
          tbb::simple_partitioner());
    });
  }

 private:
  std::uint32_t threads_;
  // Declared before the arena so that it outlives it.
  std::optional<tbb::global_control> limit_;
  tbb::task_arena arena_;
};

}  // namespace

std::uint32_t hardwareThreads() noexcept {
  return static_cast<std::uint32_t>(std::max(1, tbb::info::default_concurrency()));
}

std::shared_ptr<TaskSystem> makeTbbTaskSystem(std::uint32_t threads) {
  if (threads > kMaxThreads) {
    throw Error("thread count = " + std::to_string(threads) + " must be at most " +
                std::to_string(kMaxThreads));
  }
  return std::make_shared<TbbTaskSystem>(threads);
}

}  // namespace quadbin
