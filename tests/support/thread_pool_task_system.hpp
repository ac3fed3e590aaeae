#pragma once
// A small thread pool behind the TaskSystem seam, for the tests: it shows
// that a game's own scheduler plugs in, and, built only on std::thread,
// std::mutex, std::condition_variable and std::atomic, every hand-off in it
// is visible to ThreadSanitizer (the Debian libtbb is not instrumented, so
// TSan cannot see the happens-before edges inside TBB; see docs/concurrency.md).

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <quadbin/tasks/task_system.hpp>
#include <thread>
#include <vector>

namespace quadbin::test {

class ThreadPoolTaskSystem final : public TaskSystem {
 public:
  explicit ThreadPoolTaskSystem(std::uint32_t threads) : threads_(std::max(1u, threads)) {
    for (std::uint32_t i = 1; i < threads_; ++i) workers_.emplace_back([this] { workerLoop(); });
  }
  ~ThreadPoolTaskSystem() override {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  ThreadPoolTaskSystem(const ThreadPoolTaskSystem&) = delete;
  ThreadPoolTaskSystem& operator=(const ThreadPoolTaskSystem&) = delete;

  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return threads_; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t grain,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    if (current() == this || workers_.empty()) {
      body(0, count);  // nested call from one of our tasks, or no workers: inline
      return;
    }
    const std::lock_guard submit(submitMutex_);  // one job at a time
    Job job{count, grain, (count - 1) / grain + 1, &body, {0}, {}, nullptr};
    {
      const std::lock_guard lock(mutex_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    const ThreadPoolTaskSystem* outer = current();
    current() = this;
    work(job);
    current() = outer;
    {
      std::unique_lock lock(mutex_);
      job_ = nullptr;  // no worker picks it up from now on
      idle_.wait(lock, [this] { return busy_ == 0; });
    }
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  struct Job {
    std::uint32_t count, grain, chunks;
    FunctionRef<void(std::uint32_t, std::uint32_t)>* body;
    std::atomic<std::uint32_t> next;
    std::mutex errorMutex;
    std::exception_ptr error;
  };

  static const ThreadPoolTaskSystem*& current() {
    thread_local const ThreadPoolTaskSystem* pool = nullptr;
    return pool;
  }

  static void work(Job& job) {
    for (;;) {
      const std::uint32_t chunk = job.next.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= job.chunks) return;
      const std::uint32_t begin = chunk * job.grain;
      try {
        (*job.body)(begin, std::min(job.count, begin + job.grain));
      } catch (...) {
        const std::lock_guard lock(job.errorMutex);
        if (!job.error) job.error = std::current_exception();
        job.next.store(job.chunks, std::memory_order_relaxed);  // skip the rest
      }
    }
  }

  void workerLoop() {
    current() = this;
    std::uint64_t seen = 0;
    for (;;) {
      Job* job = nullptr;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (job_ != nullptr && generation_ != seen); });
        if (stop_) return;
        seen = generation_;
        job = job_;
        ++busy_;
      }
      work(*job);
      {
        const std::lock_guard lock(mutex_);
        --busy_;
      }
      idle_.notify_all();
    }
  }

  std::uint32_t threads_;
  std::vector<std::thread> workers_;
  std::mutex submitMutex_;
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  std::uint32_t busy_ = 0;
  bool stop_ = false;
};

/// The task system the parallel tests run on for `threads` threads: oneTBB
/// (what a World makes from WorldDef::threadCount), except under
/// ThreadSanitizer, where the instrumented pool above stands in for it.
inline std::shared_ptr<TaskSystem> makeTestTaskSystem(std::uint32_t threads) {
#if defined(__SANITIZE_THREAD__)
  return std::make_shared<ThreadPoolTaskSystem>(threads);
#else
  return makeTaskSystem(threads);
#endif
}

}  // namespace quadbin::test
