#include "structures.hpp"

namespace quadbin::perf {

namespace {

// A quadbin broad phase as a perf structure.
class QuadbinStructure final : public Structure {
 public:
  explicit QuadbinStructure(BroadPhaseType type)
      : name_(toString(type)), bp_(makeBroadPhase(type)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  void setBounds(const AABB& bounds) override { bp_->setBounds(bounds); }
  void update(std::span<const AABB> boxes) override { bp_->update(boxes); }
  void findPairs(std::vector<Pair>& out) override { bp_->findPairs(out); }
  void findPairsInto(std::vector<Pair>& out) override { bp_->findPairsInto(out); }
  [[nodiscard]] std::size_t memoryBytes() const noexcept override { return bp_->memoryBytes(); }
  void setTaskSystem(const std::shared_ptr<TaskSystem>& tasks) override {
    bp_->setTaskSystem(tasks);
  }

 private:
  std::string_view name_;
  std::unique_ptr<BroadPhase> bp_;
};

}  // namespace

std::vector<std::string> structureNames() {
  std::vector<std::string> names;
  for (auto type : allBroadPhaseTypes()) names.emplace_back(toString(type));
  for (auto& peer : peerNames()) names.push_back(std::move(peer));
  return names;
}

std::unique_ptr<Structure> makeStructure(std::string_view name) {
  if (auto type = parseBroadPhaseType(name)) return std::make_unique<QuadbinStructure>(*type);
  return makePeer(name);
}

}  // namespace quadbin::perf
