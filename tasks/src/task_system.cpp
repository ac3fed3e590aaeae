#include <quadbin/tasks/task_system.hpp>

namespace quadbin {

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
