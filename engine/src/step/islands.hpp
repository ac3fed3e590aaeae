#pragma once
// Internal to the engine: islands of touching balls, and sleeping.
//
// After each step a ball's rest time grows while its speed stays under the
// sleep threshold and so does its displacement over the step (divided by
// dt): a ball that the position correction still pushes out of an overlap
// is not at rest, though its velocity is zero. When some ball has rested
// long enough, the awake balls are joined into islands along the touching
// ball-ball contacts (union-find in canonical contact order, each root the
// island's smallest index, so the islands do not depend on the thread
// count), and every island whose balls have all rested long enough falls
// asleep.

#include <cstdint>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"

namespace quadbin {

class Islands {
 public:
  /// Returns how many balls fell asleep. `undo` is the step's save: its
  /// px and py are where the bodies started the step; before it links any
  /// island it adds the links to it (most steps put none to sleep).
  std::uint32_t update(BodyStore& bodies, std::span<const contacts::Contact> contacts, float dt,
                       float sleepThreshold, float timeToSleep, BodySnapshot& undo,
                       TaskSystem& tasks);

 private:
  std::uint32_t find(std::uint32_t i) noexcept;

  std::vector<std::uint32_t> parent_, start_, members_;
  std::vector<float> minRest_;
};

}  // namespace quadbin
