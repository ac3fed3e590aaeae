// The escapee re-query (see escapee_query.hpp).
#include "contacts/escapee_query.hpp"

#include <algorithm>

#include "contacts/contact_set_inl.hpp"

namespace quadbin {

using contacts::isWall;
using contacts::sameBodies;

namespace {
constexpr std::uint32_t kEscapeeChunk = 64;  // escapees per re-query task
}  // namespace

std::uint32_t EscapeeQuery::find(const BodyStore& bodies, const SolverSettings& s,
                                 TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  lookedAt_ = escapees_.size();
  indexBuffers_.reset(chunkCount(n, kBodyChunk));
  forEachChunk(tasks, n, kBodyChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (bodies.awake[i] == 0) continue;
      if (step_.maxSpeed[i] * s.dt >
          step_.margin[i] + ContactSet::kEscapeTolerance * bodies.radius[i]) {
        indexBuffers_[c].push_back(i);
      }
    }
  });
  indexBuffers_.appendTo(tasks, escapees_);
  return static_cast<std::uint32_t>(escapees_.size() - lookedAt_);
}

// The balls grown[firstNew..] outran their boxes: bigger boxes, queried
// against the broad phase (read-only, so in parallel); the contacts found
// that the step does not have yet become extra contacts, coloured and
// solved (serially, they are few) with the others from now on.
// (The narrow phase again, for the escapees find() found last.)
void EscapeeQuery::lookAgain(BodyStore& bodies, const SolverSettings& s, const BroadPhase& broad,
                             std::vector<AABB>& boxes, ContactSet& contacts, TaskSystem& tasks) {
  const BodyFilters* filters = contacts.filters;
  const std::size_t firstNew = lookedAt_;
  const std::vector<std::uint32_t>& grown = escapees_;
  const auto fresh = static_cast<std::uint32_t>(grown.size() - firstNew);
  const std::uint32_t* newcomers = grown.data() + firstNew;
  // First every new box, then the queries, so that each query sees all of them.
  tasks.parallelFor(fresh, kEscapeeChunk, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const std::uint32_t i = newcomers[k];
      step_.margin[i] = step_.maxSpeed[i] * s.dt;
      boxes[i] = AABB::fromCircle({bodies.px[i], bodies.py[i]}, bodies.radius[i] + step_.margin[i]);
    }
  });
  extraBuffers_.reset(chunkCount(fresh, kEscapeeChunk));
  forEachChunk(
      tasks, fresh, kEscapeeChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
        std::vector<Contact>& out = extraBuffers_[c];
        auto emit = [&](std::uint32_t a, std::uint32_t b) { out.push_back({a, b, 0.0f, 0, 0}); };
        std::vector<std::uint32_t> found;
        // As filterPairs: filters and disabled bodies, when there are any.
        const bool filtered = filters != nullptr && (filters->active() || bodies.disabledCount > 0);
        auto collide = [&](std::uint32_t i, std::uint32_t j) {
          return !filtered || filters->keeps(bodies.enabled, i, j);
        };
        for (std::uint32_t k = begin; k < end; ++k) {
          const std::uint32_t i = newcomers[k];
          found.clear();
          broad.query(boxes[i], found);
          for (const std::uint32_t j : found) {
            if (j != i && collide(i, j)) contacts.addCandidate(bodies, i, j, true, emit);
          }
          if (s.closedWorld) contacts.addWalls(bodies, s, i, emit);
          // The broad phase still holds the old boxes of balls grown earlier.
          for (const std::uint32_t other : grown) {
            if (other != i && touches(boxes[i], boxes[other]) && collide(i, other)) {
              contacts.addCandidate(bodies, i, other, true, emit);
            }
          }
        }
      });
  std::vector<Contact>& batch = batch_;
  batch.clear();
  extraBuffers_.appendTo(tasks, batch);
  std::sort(batch.begin(), batch.end());
  batch.erase(std::unique(batch.begin(), batch.end(), sameBodies), batch.end());
  std::erase_if(batch, [&](const Contact& c) {
    const auto it = std::lower_bound(extraSorted_.begin(), extraSorted_.end(), c);
    return contacts.has(c) || (it != extraSorted_.end() && sameBodies(*it, c));
  });
  for (Contact& c : batch) {
    // A sleeping ball in the way wakes with its island (at rest, it moves
    // only if struck).
    if (!isWall(c.b) && bodies.isBall(c.b)) bodies.wakeIsland(c.b);
    c.colour = contacts.colour(bodies, c.a, c.b);
    StepRows::Row r{};
    contacts.makeRow(bodies, s, c, 0, r);
    r.group = StepRows::kApart;  // too late for the iterations: impacts only
    r.lambda = 0.0f;
    step_.extra.push_back(c);
    step_.extraRows.push_back(r);
  }
  const auto mid = static_cast<std::ptrdiff_t>(extraSorted_.size());
  extraSorted_.insert(extraSorted_.end(), batch.begin(), batch.end());
  std::inplace_merge(extraSorted_.begin(), extraSorted_.begin() + mid, extraSorted_.end());
}

}  // namespace quadbin
