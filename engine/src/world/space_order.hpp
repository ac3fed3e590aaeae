// The world's bodies in space order (docs/concurrency.md, "Space order"):
// when the contacts of the last step join bodies far apart in memory, the
// next step starts by renumbering every body in a Morton order of its
// centre, as World::optimizeLayout does. The decision reads only what a
// snapshot holds (the stored contacts), so a restored world renumbers at
// the same steps as the one it was saved from.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "bodies/permutation.hpp"
#include "contacts/contact.hpp"

namespace quadbin {

/// A renumbering of the world: made first (it may throw), then applied in
/// place (it cannot), and undone the same way by a step that fails.
struct Renumbering {
  Permutation permutation;
  std::size_t colourEntries = 0;  // the contact colours' list before it
};

namespace space_order {

/// Two bodies more than this many dense indices apart are far in memory: a
/// window of 1,024 bodies' columns (about 100 KiB) stays in a core's cache.
inline constexpr std::uint32_t kNear = 1024;
/// The contacts looked at, evenly spaced in their canonical order.
inline constexpr std::uint32_t kSamples = 4096;
/// Fewer body-to-body contacts among the samples than this: no decision.
inline constexpr std::uint32_t kMinSamples = 64;

/// Whether more than a quarter of the sampled contacts between two bodies
/// join bodies far apart in memory (kNear). A world in Morton order keeps
/// that share near 5 % (docs/concurrency.md); bodies created in random
/// order put nearly every contact of a large world above it. O(kSamples).
[[nodiscard]] bool scattered(std::span<const contacts::Contact> stored) noexcept;

/// The bodies in Morton order of their centres (cells of a 2^32 x 2^32
/// grid over the centres' extent; a tie keeps the dense order): order[k]
/// is the body that becomes body k. Empty when the bodies are in that
/// order already.
[[nodiscard]] std::vector<std::uint32_t> mortonOrder(const BodyStore& bodies);

}  // namespace space_order
}  // namespace quadbin
