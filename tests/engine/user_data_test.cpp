// Per-body user data (BodyDef::userData, World::userData / setUserData), and
// user data and filters through destroy, createBodies and snapshots.
#include <gtest/gtest.h>

#include <cstring>
#include <quadbin/quadbin.hpp>
#include <random>
#include <unordered_map>
#include <vector>

using namespace quadbin;

namespace {

WorldDef quietDef() {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.threadCount = 1;
  return def;
}

TEST(UserData, StoredSetAndKeptAcrossDestroy) {
  World w(quietDef());
  std::unordered_map<BodyId, std::uint64_t> want;  // std::hash<BodyId> exists
  std::unordered_map<BodyId, Filter> filters;
  for (std::uint64_t k = 0; k < 20; ++k) {
    BodyDef d = BodyDef::ball({5.0f + 4.0f * static_cast<float>(k), 50}, 1);
    d.userData = 0xABCD000000000000ull + k;
    d.filter = {std::uint64_t{1} << (k % 5), ~k, static_cast<std::int32_t>(k % 3) - 1};
    const BodyId id = w.createBody(d);
    want[id] = d.userData;
    filters[id] = d.filter;
  }
  EXPECT_EQ(w.userData(w.bodyAt(0)), 0xABCD000000000000ull);
  const BodyId third = w.bodyAt(3);
  w.setUserData(third, 42);
  want[third] = 42;
  // Destroying moves the last body into the hole: its data moves with it.
  for (const std::uint32_t i : {0u, 7u, 3u}) {
    const BodyId id = w.bodyAt(i);
    w.destroyBody(id);
    want.erase(id);
    filters.erase(id);
    EXPECT_THROW((void)w.userData(id), Error);
    EXPECT_THROW(w.setUserData(id, 1), Error);
  }
  ASSERT_EQ(want.size(), w.bodyCount());
  for (const auto& [id, value] : want) {
    EXPECT_EQ(w.userData(id), value);
    EXPECT_EQ(w.filter(id), filters[id]);
  }
  EXPECT_EQ(BodyDef{}.userData, 0u);
  EXPECT_EQ(w.userData(w.createBody(BodyDef::ball({50, 80}, 1))), 0u);
}

TEST(UserData, CreateBodiesEqualsCreateBody) {
  std::vector<BodyDef> defs;
  for (std::uint64_t k = 0; k < 9000; ++k) {  // more than one parallel range
    BodyDef d =
        BodyDef::ball({1.0f + static_cast<float>(k % 98), 1.0f + static_cast<float>(k / 98)}, 0.4f);
    d.userData = k * 0x9E3779B97F4A7C15ull;
    d.filter.groupIndex = static_cast<std::int32_t>(k % 7);
    defs.push_back(d);
  }
  WorldDef def = quietDef();
  def.threadCount = 2;
  World bulk(def), single(def);
  const std::vector<BodyId> ids = bulk.createBodies(defs);
  for (std::size_t k = 0; k < defs.size(); ++k) {
    const BodyId id = single.createBody(defs[k]);
    ASSERT_EQ(bulk.userData(ids[k]), defs[k].userData);
    ASSERT_EQ(bulk.filter(ids[k]), defs[k].filter);
    ASSERT_EQ(single.userData(id), defs[k].userData);
  }
}

// A snapshot carries user data and filters; a restored world steps on
// bit-identically, with the filters in force.
TEST(UserData, SnapshotCarriesUserDataAndFilters) {
  WorldDef def = quietDef();
  def.gravity = {0, -10};
  World a(def);
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> x(5, 95), y(5, 95), v(-20, 20);
  std::vector<BodyDef> defs;
  BodyDef floor = BodyDef::staticBox({{10, 30}, {90, 32}});
  floor.filter = {2, ~0ull, 0};
  defs.push_back(floor);
  for (std::uint64_t k = 0; k < 200; ++k) {
    BodyDef d = BodyDef::ball({x(rng), y(rng)}, 1.0f, {v(rng), v(rng)});
    d.userData = 1000 + k;
    d.filter = k % 3 == 0 ? Filter{1, ~std::uint64_t{2}, 0} : Filter{1, ~0ull, k % 5 == 0 ? -1 : 0};
    defs.push_back(d);
  }
  a.createBodies(defs);
  for (int s = 0; s < 20; ++s) a.step(1.0f / 60.0f);
  a.setUserData(a.bodyAt(4), 77);
  a.setFilter(a.bodyAt(5), {4, 4, 0});
  const std::vector<std::byte> saved = a.snapshot();

  World b(quietDef());
  b.restore(saved);
  ASSERT_EQ(b.bodyCount(), a.bodyCount());
  for (std::uint32_t i = 0; i < a.bodyCount(); ++i) {
    ASSERT_EQ(b.userData(b.bodyAt(i)), a.userData(a.bodyAt(i)));
    ASSERT_EQ(b.filter(b.bodyAt(i)), a.filter(a.bodyAt(i)));
  }
  EXPECT_EQ(b.userData(b.bodyAt(4)), 77u);
  EXPECT_EQ(b.snapshot(), saved);
  for (int s = 0; s < 30; ++s) {
    a.step(1.0f / 60.0f);
    b.step(1.0f / 60.0f);
  }
  const auto pa = a.positions(), pb = b.positions();
  ASSERT_EQ(pa.size(), pb.size());
  EXPECT_EQ(std::memcmp(pa.data(), pb.data(), pa.size_bytes()), 0);
  // Restoring into itself puts the old values back.
  a.restore(saved);
  EXPECT_EQ(a.userData(a.bodyAt(4)), 77u);
  EXPECT_EQ(a.filter(a.bodyAt(5)), (Filter{4, 4, 0}));
}

}  // namespace
