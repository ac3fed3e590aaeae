#pragma once
/// \file
/// TaskSystem: the one interface through which quadbin runs parallel work.
///
/// The engine and the broad phases never start threads; they hand index
/// ranges and independent tasks to a TaskSystem. quadbin ships two: a serial
/// one (everything on the calling thread) and one on oneTBB (a task arena of
/// a given size). A game with its own job system implements the two virtual
/// functions below and passes its object in `WorldDef::taskSystem` or
/// `BroadPhase::setTaskSystem`.
///
/// Results never depend on the task system: quadbin splits work by data
/// (fixed chunk sizes), never by thread count, and merges in a fixed order,
/// so any correct implementation gives bit-identical results.
///
/// Contract for implementations:
/// - every index (task) is run exactly once, and the call returns only when
///   all of them have finished (their writes visible to the caller);
/// - calls may nest: a task may call parallelFor or forkJoin again (running
///   the inner work inline on the calling thread is a correct answer);
/// - several threads may call the same object at once (two worlds sharing
///   one system, or queries refreshing a broad phase);
/// - if a task throws, the call rethrows one of the exceptions after the
///   other tasks have finished or been skipped (quadbin's own tasks throw
///   only std::bad_alloc).

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace quadbin {

template <class Signature>
class FunctionRef;

/// A non-owning reference to a callable: two pointers, no allocation (a
/// std::function would allocate for large lambdas). Valid only while the
/// callable it refers to lives; quadbin passes it down, never stores it.
template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F&, Args...>)
      // Converts like std::function; the constraint keeps copies and moves.
      // NOLINTNEXTLINE(google-explicit-constructor,bugprone-forwarding-reference-overload)
      FunctionRef(F&& f)
  noexcept
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

class TaskSystem {
 public:
  TaskSystem() = default;
  TaskSystem(const TaskSystem&) = delete;
  TaskSystem& operator=(const TaskSystem&) = delete;
  TaskSystem(TaskSystem&&) = delete;
  TaskSystem& operator=(TaskSystem&&) = delete;
  virtual ~TaskSystem() = default;

  /// Calls body(begin, end) on disjoint ranges that together cover
  /// [0, count) exactly once; ranges hold at least `grain` indices where
  /// the implementation splits at all (grain 0 is taken as 1). Returns
  /// when every range is done. A count of at most `grain` runs inline, and
  /// so does a call from inside a task of one of quadbin's own regions (a
  /// step's stage runs its passes as phases of one region: a call from the
  /// thread that leads it becomes a phase of it).
  void parallelFor(std::uint32_t count, std::uint32_t grain,
                   FunctionRef<void(std::uint32_t, std::uint32_t)> body);

  /// Fork-join: runs task(i) for every i in [0, count), concurrently where
  /// the implementation can, and returns when all have finished. A single
  /// task runs inline, and so do calls from inside a task of one of
  /// quadbin's own regions (as for parallelFor).
  void forkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task);

  /// Threads this system may run tasks on (1 for the serial one). For
  /// logging and statistics only: quadbin never splits work by it.
  [[nodiscard]] virtual std::uint32_t threadCount() const noexcept = 0;

 protected:
  /// count > grain >= 1.
  virtual void runParallelFor(std::uint32_t count, std::uint32_t grain,
                              FunctionRef<void(std::uint32_t, std::uint32_t)> body) = 0;
  /// count >= 2. By default a parallelFor with grain 1.
  virtual void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) {
    runParallelFor(count, 1, [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t i = begin; i < end; ++i) task(i);
    });
  }
};

/// Everything on the calling thread, in index order.
class SerialTaskSystem final : public TaskSystem {
 public:
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return 1; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t /*grain*/,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    body(0, count);
  }
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override {
    for (std::uint32_t i = 0; i < count; ++i) task(i);
  }
};

/// The process-wide serial system (what a structure uses when given none).
[[nodiscard]] TaskSystem& serialTaskSystem() noexcept;

/// A oneTBB system: its own tbb::task_arena of `threads` threads (0 = every
/// hardware thread). More threads than the hardware has are honoured (the
/// process's TBB worker limit is raised while the system lives), which tests
/// use to oversubscribe. Throws quadbin::Error if threads > 1024.
[[nodiscard]] std::shared_ptr<TaskSystem> makeTbbTaskSystem(std::uint32_t threads = 0);

/// What a World makes from WorldDef::threadCount: the serial system for 1
/// (no TBB threads at all), a TBB system for anything else (0 = all
/// hardware threads).
[[nodiscard]] std::shared_ptr<TaskSystem> makeTaskSystem(std::uint32_t threads);

/// The number of hardware threads oneTBB sees (what threads = 0 means).
[[nodiscard]] std::uint32_t hardwareThreads() noexcept;

}  // namespace quadbin
