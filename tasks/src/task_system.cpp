#include <quadbin/tasks/task_system.hpp>

#include <quadbin/tasks/one_region.hpp>

namespace quadbin {

// Inside a task of a region (inOneRegion) nothing more is parallel: a
// thread waiting there for nested work could take one of the region's
// own tasks, which wait for the phase it is in. On the thread leading a
// region, a call on any system of more than one thread is a phase of that
// region (a serial system keeps its word: the calling thread, in order).
void TaskSystem::parallelFor(std::uint32_t count, std::uint32_t grain,
                             FunctionRef<void(std::uint32_t, std::uint32_t)> body) {
  if (count == 0) return;
  if (grain == 0) grain = 1;
  if (count <= grain || detail::inRegionTask()) {
    body(0, count);
    return;
  }
  if (TaskSystem* region = detail::leadingRegion();
      region != nullptr && region != this && threadCount() > 1) {
    region->parallelFor(count, grain, body);
    return;
  }
  runParallelFor(count, grain, body);
}

void TaskSystem::forkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) {
  if (count == 0) return;
  if (count == 1 || detail::inRegionTask()) {
    for (std::uint32_t i = 0; i < count; ++i) task(i);
    return;
  }
  if (TaskSystem* region = detail::leadingRegion();
      region != nullptr && region != this && threadCount() > 1) {
    region->forkJoin(count, task);
    return;
  }
  runForkJoin(count, task);
}

TaskSystem& serialTaskSystem() noexcept {
  // Stateless, so one shared instance serves every thread.
  static SerialTaskSystem serial;
  return serial;
}

std::shared_ptr<TaskSystem> makeTaskSystem(std::uint32_t threads) {
  if (threads == 1) return std::make_shared<SerialTaskSystem>();
  return makeTbbTaskSystem(threads);
}

}  // namespace quadbin
