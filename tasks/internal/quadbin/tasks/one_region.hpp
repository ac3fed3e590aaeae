#pragma once
/// \file
/// inOneRegion: a sequence of parallel calls in ONE fork-join region.
///
/// A stage of a step is often a few parallel passes with a little serial
/// work between them (gather, sort, fill; count, prefix sums, scatter).
/// Each parallelFor or forkJoin is a region of its own: waking the workers,
/// spreading the tasks, the join; on many cores that costs tens of
/// microseconds, more than a pass over a few thousand items takes.
/// inOneRegion(tasks, width, body) starts one region of up to `width`
/// threads and runs body(team) on one of them, the leader; every
/// parallelFor and forkJoin body makes on `team` is a phase of that region:
/// the leader publishes the phase, every thread of the region claims its
/// tasks one at a time, and the leader goes on once they have all finished
/// (a barrier, not a region). Between phases the others wait (spin briefly,
/// then yield), as at a StagedLoop's stage.
///
/// The results are those of the same calls on `tasks`: the phases run the
/// same tasks (parallelFor's ranges are its grain, as the tracer cuts them)
/// in the same order of phases, and callers never split work by thread
/// count. A parallel call made from inside a phase's task, on any
/// TaskSystem, runs inline on its thread (a nested region could make a
/// waiting thread take one of the region's own waiting tasks); one made
/// by the leader on another TaskSystem than `team` is a phase too, and
/// inOneRegion called by the leader runs its body as part of the region.
/// Nobody waits for a thread to start: a phase's tasks are claimed only
/// by running threads, so the leader alone finishes the region if no other
/// thread ever joins it.
///
/// On a TracingTaskSystem the region is traced as one: each call a phase,
/// the leader's work between calls a phase of one task (quadbin-perf
/// predict, docs/scaling.md). Calls nested in a body already in one region
/// (inOneRegion on `team`) run as part of it. Internal to quadbin's layers
/// (not installed).

#include <cstdint>
#include <quadbin/tasks/task_system.hpp>

namespace quadbin {

/// Runs body(team) with every parallel call on `team` a phase of one
/// region of `tasks` of at most `width` threads (the most tasks a phase
/// will have is a good width). With one thread, or width <= 1, body gets
/// `tasks` itself. Rethrows what body or a task threw, after the region's
/// threads have left it, and what `tasks` threw unless body had already
/// run to its end (then only threads that would have joined were lost,
/// not work).
void inOneRegion(TaskSystem& tasks, std::uint32_t width, FunctionRef<void(TaskSystem&)> body);

namespace detail {
/// For TaskSystem's calls: whether this thread runs a task of a region,
/// and the region it leads (or null).
[[nodiscard]] bool inRegionTask() noexcept;
[[nodiscard]] TaskSystem* leadingRegion() noexcept;
}  // namespace detail

}  // namespace quadbin
