// Collision filters and user data (filtering.hpp, docs/filtering.md).
#include "bodies/filtering.hpp"

#include <algorithm>
#include <utility>

#include "bodies/capacity.hpp"

namespace quadbin {

namespace {
constexpr std::uint32_t kPairChunk = 16384;  // pairs per filtering task: a constant
bool isCustom(const Filter& f) noexcept { return !(f == Filter{}); }
}  // namespace

void BodyFilters::push(const Filter& f, std::uint64_t user) {
  filter.push_back(f);
  userData.push_back(user);
  custom += isCustom(f) ? 1u : 0u;
}

void BodyFilters::reserve(std::size_t count) {
  reserveGrowing(filter, count);
  reserveGrowing(userData, count);
}

void BodyFilters::resize(std::size_t count) {
  filter.resize(count);
  userData.resize(count);
}

void BodyFilters::finishBulk(std::size_t from) noexcept {
  for (std::size_t i = from; i < filter.size(); ++i) custom += isCustom(filter[i]) ? 1u : 0u;
}

void BodyFilters::setFilter(std::uint32_t i, const Filter& f) noexcept {
  custom -= isCustom(filter[i]) ? 1u : 0u;
  filter[i] = f;
  custom += isCustom(f) ? 1u : 0u;
}

void BodyFilters::swapRemove(std::uint32_t i) noexcept {
  custom -= isCustom(filter[i]) ? 1u : 0u;
  filter[i] = filter.back();
  userData[i] = userData.back();
  filter.pop_back();
  userData.pop_back();
}

void BodyFilters::renumber(const Permutation& p, Permutation::Direction d) noexcept {
  p.move(filter, d);
  p.move(userData, d);
}

void BodyFilters::assign(BodyFilters&& other) noexcept {
  filter = std::move(other.filter);
  userData = std::move(other.userData);
  custom = 0;
  finishBulk(0);
}

void BodyFilters::filterPairs(std::vector<Pair>& pairs, std::span<const std::uint8_t> enabled,
                              bool someDisabled, TaskSystem& tasks) {
  if (!active() && !someDisabled) return;
  const auto count = static_cast<std::uint32_t>(pairs.size());
  kept_.reset(chunkCount(count, kPairChunk));
  forEachChunk(tasks, count, kPairChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::vector<Pair>& out = kept_[c];
                 for (std::uint32_t k = begin; k < end; ++k) {
                   if (keeps(enabled, pairs[k].a, pairs[k].b)) out.push_back(pairs[k]);
                 }
               });
  if (kept_.totalSize() == pairs.size()) return;  // nothing rejected: no copy
  pairs.clear();
  kept_.appendTo(tasks, pairs);
}

}  // namespace quadbin
