#pragma once
/// \file
/// StagedLoop: a sequence of parallel loops ("stages") that must run one
/// after the other, repeated for a number of passes, in ONE fork-join
/// region (Box2D v3's solver stages and blocks). A parallelFor per stage
/// would cost a task launch and a join per stage; for a solver's colours
/// (hundreds of short loops per step) the second thread then spends its
/// time starting and stealing, not working.
///
/// How it runs: one task per thread; the tasks walk the stages together.
/// A stage's rows are cut into blocks of a constant size, and the blocks
/// into one slice per task, each claimed through its own atomic counter: a
/// task takes the blocks of its own slice first, then what is left of the
/// others' (a late or slow thread's work is not lost). A stage may be
/// made of segments (addSegments): a block never straddles two, and a
/// slice is its share of each segment. A solver whose colours list their
/// rows in the order of their first body (per segment: the solver's
/// groups) gives a task the same region of bodies in every colour and
/// pass, whose cache lines then stay in that core's cache instead of
/// moving between cores at each colour. The thread that completes a stage's last block runs
/// the caller's hook for the next stage (and, after a pass's last stage,
/// the end-of-pass hook) and then publishes the next stage (release); a
/// next stage of one block it runs itself, in order, and publishes the
/// first one after it that has more (a solver's last colours are a few
/// rows each: a hand-over per colour would cost more than the colour). A
/// thread that finds no block left waits (spins briefly, then yields) for
/// that publication. Nobody ever waits for a task to start: a task that
/// never runs leaves its blocks to the others, and a block is only claimed
/// by a running thread, so the region cannot deadlock whatever the
/// scheduler does (a task system that runs the tasks one after the other
/// is correct too: the first does everything).
///
/// Determinism: which thread runs a block changes nothing when a stage's
/// blocks touch disjoint data (the caller's contract, as for a colour's
/// contacts); the hit counts are sums of integers; the hooks run in stage
/// order, one at a time. Internal to quadbin's layers (not installed).

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <quadbin/tasks/backoff.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <quadbin/tasks/trace.hpp>
#include <vector>

namespace quadbin {

class StagedLoop {
 public:
  /// Passes run in one region at most; more passes take more regions (it
  /// bounds the per-stage counters: passes x stages of them).
  static constexpr std::uint32_t kPassesPerRegion = 8;

  /// Forgets the stages (keeps the memory).
  void clear() noexcept { stages_.clear(); }
  /// Segments a stage may have (addSegments).
  static constexpr std::uint32_t kMaxSegments = 3;

  /// Appends a stage over the indices [first, first + count) (count > 0);
  /// `serial`: one block, run by one thread (items that share data).
  void add(std::uint32_t first, std::uint32_t count, bool serial) {
    Stage st{first, count, serial, 1, {}};
    st.parts[0] = count;
    stages_.push_back(st);
  }
  /// Appends a stage of consecutive segments (their sizes, at most
  /// kMaxSegments, some may be 0; the stage not empty) starting at `first`:
  /// blocks never straddle two segments, and each task's slice takes its
  /// share of every segment (a stage whose segments are each in the order
  /// of the data they touch gives a task the same data in every stage).
  void addSegments(std::uint32_t first, std::initializer_list<std::uint32_t> sizes) {
    assert(sizes.size() <= kMaxSegments);
    Stage st{first, 0, false, 0, {}};
    for (const std::uint32_t size : sizes) {
      if (size == 0) continue;
      st.parts[st.segments++] = size;
      st.count += size;
    }
    stages_.push_back(st);
  }

  /// Up to `passes` passes over the stages in order. body(begin, end) runs
  /// the indices [begin, end) of a stage and returns how many of them
  /// "hit"; it must not throw. before() runs before each stage of each
  /// pass, endPass(hits) after each pass with the pass's total hits, and
  /// the passes stop when it returns false. Blocks hold `block` indices.
  /// Runs serially, exactly as a loop would, on one thread or when no
  /// stage is longer than a block.
  template <class Body, class Before, class EndPass>
  void run(TaskSystem& tasks, std::uint32_t block, std::uint32_t passes, Body&& body,
           Before&& before, EndPass&& endPass) {
    if (stages_.empty() || passes == 0) return;
    std::uint32_t most = 0;  // the most blocks any stage has
    for (const Stage& st : stages_) most = std::max(most, blocksOf(st, block));
    const std::uint32_t threads = std::min(tasks.threadCount(), most);
    if (threads <= 1) {
      if (TaskTrace* trace = most > 1 ? traceOf(tasks) : nullptr) {
        traced(*trace, block, passes, body, before, endPass);
        return;
      }
      for (std::uint32_t pass = 0; pass < passes; ++pass) {
        std::uint32_t hits = 0;
        for (const Stage& st : stages_) {
          before();
          hits += body(st.first, st.first + st.count);
        }
        if (!endPass(hits)) return;
      }
      return;
    }
    for (std::uint32_t done = 0; done < passes; done += kPassesPerRegion) {
      const std::uint32_t here = std::min(kPassesPerRegion, passes - done);
      if (!region(tasks, threads, block, here, body, before, endPass)) return;
    }
  }

 private:
  struct Stage {
    std::uint32_t first, count;
    bool serial;
    std::uint32_t segments;  // parts[0 .. segments) are their sizes
    std::array<std::uint32_t, kMaxSegments> parts;
  };
  // One stage of one pass in a region; a cache line each.
  struct alignas(64) Sync {
    std::atomic<std::uint32_t> done{0};  // blocks finished
    std::atomic<std::uint32_t> hits{0};
  };
  struct alignas(64) Control {
    std::atomic<std::uint32_t> published{0};  // the stage threads may work on, or kDone
  };
  static constexpr std::uint32_t kDone = UINT32_MAX;

  [[nodiscard]] static std::uint32_t blocksOf(const Stage& st, std::uint32_t block) noexcept {
    if (st.serial) return 1;
    std::uint32_t blocks = 0;
    for (std::uint32_t g = 0; g < st.segments; ++g) blocks += (st.parts[g] - 1) / block + 1;
    return blocks;
  }
  // Blocks of slice t of `threads` in a segment of `blocks` blocks.
  [[nodiscard]] static std::uint32_t sliceBlocks(std::uint32_t blocks, std::uint32_t t,
                                                 std::uint32_t threads) noexcept {
    return sliceStart(blocks, t + 1, threads) - sliceStart(blocks, t, threads);
  }
  // The range of block j of slice t: its share of each segment in turn.
  // Returns false past the slice's last block.
  [[nodiscard]] static bool blockRange(const Stage& st, std::uint32_t block, std::uint32_t t,
                                       std::uint32_t threads, std::uint32_t j, std::uint32_t& begin,
                                       std::uint32_t& end) noexcept {
    if (st.serial) {
      if (t != threads - 1 || j != 0) return false;  // the one block: the last slice's
      begin = st.first;
      end = st.first + st.count;
      return true;
    }
    std::uint32_t start = st.first;
    for (std::uint32_t g = 0; g < st.segments; ++g) {
      const std::uint32_t blocks = (st.parts[g] - 1) / block + 1;
      const std::uint32_t mine = sliceBlocks(blocks, t, threads);
      if (j < mine) {
        begin = start + (sliceStart(blocks, t, threads) + j) * block;
        end = std::min(start + st.parts[g], begin + block);
        return true;
      }
      j -= mine;
      start += st.parts[g];
    }
    return false;
  }
  // The first block of slice t of `threads` (t = threads: the end).
  [[nodiscard]] static std::uint32_t sliceStart(std::uint32_t blocks, std::uint32_t t,
                                                std::uint32_t threads) noexcept {
    return static_cast<std::uint32_t>(std::uint64_t{blocks} * t / threads);
  }
  // Waits until stage g (or the end) is published; returns what was.
  [[nodiscard]] std::uint32_t waitFor(std::uint32_t g) const noexcept {
    std::uint32_t cur = control_->published.load(std::memory_order_acquire);
    for (Backoff wait; cur < g; cur = control_->published.load(std::memory_order_acquire)) {
      wait.pause();
    }
    return cur;
  }

  // run() on a TracingTaskSystem: serially, as one thread would, but block
  // by block, each timed into the trace; regions of kPassesPerRegion passes
  // as the parallel run has them, a stage's blocks one phase, each hook a
  // phase of its own (it runs alone between two stages).
  template <class Body, class Before, class EndPass>
  void traced(TaskTrace& trace, std::uint32_t block, std::uint32_t passes, Body& body,
              Before& before, EndPass& endPass) {
    auto timed = [&trace](auto&& work) {
      const auto t0 = TaskTrace::Clock::now();
      trace.enterTask();
      work();
      trace.leaveTask();
      trace.addTask(TaskTrace::nsSince(t0));
    };
    for (std::uint32_t done = 0; done < passes; done += kPassesPerRegion) {
      const std::uint32_t here = std::min(kPassesPerRegion, passes - done);
      bool more = true;
      trace.beginRegion();
      for (std::uint32_t pass = 0; pass < here && more; ++pass) {
        std::uint32_t hits = 0;
        for (const Stage& st : stages_) {
          trace.beginPhase();
          timed([&] { before(); });
          trace.beginPhase();
          std::uint32_t begin = 0, end = 0;
          for (std::uint32_t j = 0; blockRange(st, block, 0, 1, j, begin, end); ++j) {
            timed([&] { hits += body(begin, end); });
          }
        }
        trace.beginPhase();
        timed([&] { more = endPass(hits); });
      }
      trace.endRegion();
      if (!more) return;
    }
  }

  // `passes` passes in one fork-join region; returns whether endPass asked
  // for more after the last of them.
  template <class Body, class Before, class EndPass>
  bool region(TaskSystem& tasks, std::uint32_t threads, std::uint32_t block, std::uint32_t passes,
              Body& body, Before& before, EndPass& endPass) {
    const auto count = static_cast<std::uint32_t>(stages_.size());
    const std::uint32_t total = passes * count;
    if (syncCapacity_ < total) {
      sync_ = std::make_unique<Sync[]>(total);
      syncCapacity_ = total;
    }
    if (claimedCapacity_ < std::size_t{total} * threads) {
      claimed_ = std::make_unique<std::atomic<std::uint32_t>[]>(std::size_t{total} * threads);
      claimedCapacity_ = std::size_t{total} * threads;
    }
    for (std::uint32_t g = 0; g < total; ++g) {
      sync_[g].done.store(0, std::memory_order_relaxed);
      sync_[g].hits.store(0, std::memory_order_relaxed);
    }
    for (std::size_t k = 0; k < std::size_t{total} * threads; ++k) {
      claimed_[k].store(0, std::memory_order_relaxed);
    }
    bool more = true;  // written by the thread that ends the region
    // Run by the thread that completed stage g's last block: the hooks, and
    // the stages of one block that follow, run here in order (nothing to
    // share: handing each to the others would cost a wait for nothing),
    // then the first stage of more blocks is published.
    auto finish = [&](std::uint32_t g) {
      for (;; ++g) {
        if ((g + 1) % count == 0) {
          std::uint32_t hits = 0;
          for (std::uint32_t k = g + 1 - count; k <= g; ++k) {
            hits += sync_[k].hits.load(std::memory_order_relaxed);
          }
          more = endPass(hits);
          if (!more || g + 1 == total) {
            control_->published.store(kDone, std::memory_order_release);
            return;
          }
        }
        before();
        const Stage& next = stages_[(g + 1) % count];
        if (blocksOf(next, block) != 1) break;
        sync_[g + 1].hits.store(body(next.first, next.first + next.count),
                                std::memory_order_relaxed);
      }
      control_->published.store(g + 1, std::memory_order_release);
    };
    control_->published.store(0, std::memory_order_relaxed);
    before();
    tasks.forkJoin(threads, [&](std::uint32_t task) {
      for (std::uint32_t g = 0;; ++g) {
        g = waitFor(g);
        if (g == kDone) return;
        const Stage& st = stages_[g % count];
        Sync& sync = sync_[g];
        const std::uint32_t blocks = blocksOf(st, block);
        std::atomic<std::uint32_t>* claimed = claimed_.get() + std::size_t{g} * threads;
        // Its own slice first, then what is left of the others'.
        for (std::uint32_t k = 0; k < threads; ++k) {
          const std::uint32_t slice = (task + k) % threads;
          for (;;) {
            const std::uint32_t j = claimed[slice].fetch_add(1, std::memory_order_relaxed);
            std::uint32_t begin = 0, end = 0;
            if (!blockRange(st, block, slice, threads, j, begin, end)) break;
            const std::uint32_t hits = body(begin, end);
            if (hits != 0) sync.hits.fetch_add(hits, std::memory_order_relaxed);
            // acq_rel: the last block's thread sees every block's writes.
            if (sync.done.fetch_add(1, std::memory_order_acq_rel) + 1 == blocks) finish(g);
          }
        }
      }
    });
    return more;
  }

  std::vector<Stage> stages_;
  std::unique_ptr<Sync[]> sync_;
  std::uint32_t syncCapacity_ = 0;
  // Per stage of a region, per task: blocks handed out of its slice.
  std::unique_ptr<std::atomic<std::uint32_t>[]> claimed_;
  std::size_t claimedCapacity_ = 0;
  std::unique_ptr<Control> control_ = std::make_unique<Control>();
};

}  // namespace quadbin
