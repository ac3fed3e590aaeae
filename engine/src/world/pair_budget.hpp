#pragma once
// Internal to the engine: the pair limit kept at the door. createBody,
// createBodies, setPosition, setRadius and restore refuse what would leave
// a world whose step the pair limit refuses (docs/limits.md, "The pair
// limit"), so that a sequence of accepted calls never leads to a world that
// cannot step.

#include <cstdint>
#include <memory>
#include <optional>
#include <quadbin/engine/body.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bodies/body_store.hpp"
#include "queries/query_index.hpp"
#include "world/body_ids.hpp"
#include "world/call_guard.hpp"

namespace quadbin {

class PairBudget {
 public:
  /// What the budget reads of the world, for one call.
  struct Env {
    const BodyStore& bodies;
    QueryIndex& queries;
    QueryStructure structure;
    const std::shared_ptr<TaskSystem>& tasks;
    Refusals& refusals;
  };

  /// Whether a world of n bodies can have more pairs than the limit
  /// allows (n (n - 1) / 2 pairs at most): where it cannot, nothing is
  /// counted.
  [[nodiscard]] static bool mayPassLimit(std::uint64_t n) noexcept;

  /// Each refuses the call (Error, nothing changed) when it would pass the
  /// pair limit, else updates the known count: a body about to be created
  /// from `d`, bodies from `defs`, dense body i (id `who`, for the
  /// message of `call`) about to take `box` (moved or resized).
  void admitBody(const Env& env, const BodyDef& d);
  void admitBodies(const Env& env, std::span<const BodyDef> defs);
  void admitMove(const Env& env, std::uint32_t i, const AABB& box, BodyId who,
                 std::string_view call);
  /// Dense bodies `moving` (each once) about to take `boxes`, in one count
  /// (setPositions).
  void admitMoves(const Env& env, std::span<const std::uint32_t> moving,
                  std::span<const AABB> boxes);
  /// Dense body i is about to be destroyed.
  void forgetBody(const Env& env, std::uint32_t i);
  /// The pairs of a snapshot's bodies, or Error when past the limit.
  std::uint64_t checkRestored(const Env& env, const BodyStore& restored);

  /// The count is known from elsewhere: a step's candidate pairs.
  void counted(std::uint64_t pairs) noexcept { known_ = pairs; }
  /// A restored snapshot's (checkRestored), for a world of n bodies.
  void restored(std::uint64_t n, std::uint64_t pairs) noexcept {
    if (mayPassLimit(n)) known_ = pairs;
  }
  /// The count of overlapping pairs the budget holds, if any.
  [[nodiscard]] std::optional<std::uint64_t> knownPairs() const noexcept { return known_; }
  /// Nothing is known (the bodies were replaced).
  void reset() noexcept { known_.reset(); }

 private:
  // Bodies whose tight box overlaps `box` (strictly), dense `self` left out.
  std::uint64_t overlapsOf(const Env& env, const AABB& box, std::uint32_t self);
  // known_, counted first if unset.
  std::uint64_t knownCount(const Env& env);
  [[noreturn]] static void refuse(const Env& env, std::uint64_t total, std::uint64_t n,
                                  const std::string& what);

  // The pairs of overlapping boxes the bodies are known to have: the last
  // step's candidate pairs, then what each call since added or took away.
  // Unset where no world of that many bodies can pass the limit, or where
  // nothing has counted them yet.
  std::optional<std::uint64_t> known_;
  std::vector<std::uint32_t> found_;  // scratch
  std::vector<AABB> boxes_;           // scratch
  std::vector<std::uint8_t> moving_;  // admitMoves' marks by dense index, 0 between calls
};

}  // namespace quadbin
