// What the solver's stages share (see step_rows.hpp).
#include "solver/step_rows.hpp"

namespace quadbin {

void StepRows::beginSolve(const BodyStore& bodies, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  state.resize(n);
  maxSpeed.resize(n);
  clock = 1;
  tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      // changed = 1: rows start unchecked (0), so every row is checked once.
      state[i] = {{bodies.px[i], bodies.py[i]}, {bodies.vx[i], bodies.vy[i]}, {}, 0.0f, 1};
      maxSpeed[i] = length(state[i].v);  // the resting contacts' solve may raise it
    }
  });
  extra.clear();
  extraRows.clear();
}

}  // namespace quadbin
