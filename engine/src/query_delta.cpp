#include "query_delta.hpp"

#include <algorithm>

#include "body_store.hpp"

namespace quadbin {

void QueryDelta::changed(std::uint32_t first, std::uint32_t end) noexcept {
  if (!built_) return;
  const std::uint32_t stop = std::min(end, count_);
  try {
    for (std::uint32_t i = first; i < stop; ++i) {
      if (stale_[i] == 0) {
        stale_[i] = 1;
        list_.push_back(i);
      }
    }
  } catch (...) {
    invalidate();  // out of memory: the next query rebuilds
  }
}

void QueryDelta::rebuilt(std::uint32_t n) {
  built_ = false;
  stale_.assign(n, 0);
  list_.clear();
  count_ = n;
  built_ = true;
}

void QueryDelta::dropStale(std::uint32_t n, std::vector<std::uint32_t>& found) const {
  std::erase_if(found, [&](std::uint32_t p) { return p >= n || stale_[p] != 0; });
}

void QueryDelta::mergeBox(const AABB& box, const BodyStore& bodies,
                          std::vector<std::uint32_t>& found) const {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  if (clean(n)) return;
  dropStale(n, found);
  for (const std::uint32_t i : list_) {
    if (i < n && touches(bodies.tightBox(i), box)) found.push_back(i);
  }
  for (std::uint32_t i = count_; i < n; ++i) {
    if (touches(bodies.tightBox(i), box)) found.push_back(i);
  }
}

void QueryDelta::mergeAll(std::uint32_t n, std::vector<std::uint32_t>& found) const {
  if (clean(n)) return;
  dropStale(n, found);
  for (const std::uint32_t i : list_) {
    if (i < n) found.push_back(i);
  }
  for (std::uint32_t i = count_; i < n; ++i) found.push_back(i);
}

}  // namespace quadbin
