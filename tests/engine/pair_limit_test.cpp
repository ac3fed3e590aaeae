// The pair limit at the door: no sequence of accepted calls leads to a world
// whose every step the pair limit refuses. createBody, createBodies,
// setPosition, setPositions and setRadius refuse what would put the bodies' overlapping boxes past
// limits::maxPairs (docs/limits.md), say why, and change nothing; what they
// accept steps.
#include <gtest/gtest.h>

#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

using PairDoor = test::QuietLog;

constexpr float kDt = 1.0f / 60.0f;

WorldDef bigWorld() {
  WorldDef def;
  def.bounds = {{0, 0}, {1000, 1000}};
  return def;
}

void expectPairRefusal(const Error& e, const char* call) {
  const std::string what = e.what();
  EXPECT_EQ(what.rfind(call, 0), 0u) << what;
  EXPECT_NE(what.find("pairs of overlapping boxes"), std::string::npos) << what;
  EXPECT_NE(what.find("limit"), std::string::npos) << what;
}

// The smallest crowd on one point past the floor of 2^20 pairs: 1,449
// balls (1,448 make 1,047,628 pairs).
constexpr std::uint32_t kFitOnAPoint = 1448;

// 4,000 balls of radius 1, 60 to a row 4 apart (no two touch) from
// `corner`, created and stepped once.
std::vector<BodyId> spreadGrid(World& w, Vec2 corner) {
  std::vector<BodyDef> grid;
  for (int i = 0; i < 4000; ++i) {
    grid.push_back(BodyDef::ball({corner.x + static_cast<float>(i % 60) * 4.0f,
                                  corner.y + static_cast<float>(i / 60) * 4.0f},
                                 1.0f));
  }
  std::vector<BodyId> ids = w.createBodies(grid);
  w.step(kDt);
  return ids;
}

}  // namespace

TEST_F(PairDoor, ACrowdOnOnePointIsRefusedWholeByCreateBodies) {
  World w(bigWorld());
  std::vector<BodyDef> crowd(100000, BodyDef::ball({500, 500}, 1.0f));
  try {
    w.createBodies(crowd);
    FAIL() << "100,000 balls on one point were created";
  } catch (const Error& e) {
    expectPairRefusal(e, "createBodies");
  }
  EXPECT_EQ(w.bodyCount(), 0u);
  crowd.resize(kFitOnAPoint);
  EXPECT_NO_THROW(w.createBodies(crowd));
  EXPECT_NO_THROW(w.step(kDt));
}

TEST_F(PairDoor, ACrowdOnOnePointIsRefusedBodyByBody) {
  World w(bigWorld());
  std::uint32_t made = 0;
  try {
    for (; made < 100000; ++made) w.createBody(BodyDef::ball({500, 500}, 1.0f));
  } catch (const Error& e) {
    expectPairRefusal(e, "createBody");
  }
  EXPECT_EQ(made, kFitOnAPoint);
  EXPECT_EQ(w.bodyCount(), kFitOnAPoint);
  EXPECT_NO_THROW(w.step(kDt));
  // Spread out by the step: the world takes more.
  for (int s = 0; s < 30; ++s) w.step(kDt);
  EXPECT_NO_THROW(w.createBody(BodyDef::ball({500, 500}, 1.0f)));
}

TEST_F(PairDoor, DestroyingGivesRoomBack) {
  World w(bigWorld());
  std::vector<BodyDef> crowd(kFitOnAPoint, BodyDef::ball({500, 500}, 1.0f));
  const std::vector<BodyId> ids = w.createBodies(crowd);
  EXPECT_THROW(w.createBody(BodyDef::ball({500, 500}, 1.0f)), Error);
  w.destroyBody(ids[7]);
  EXPECT_NO_THROW(w.createBody(BodyDef::ball({500, 500}, 1.0f)));
  EXPECT_THROW(w.createBody(BodyDef::ball({500, 500}, 1.0f)), Error);
}

// Moving spread-out balls onto one point is refused at the move that would
// pass the limit; the world keeps stepping.
TEST_F(PairDoor, SetPositionOntoOnePointIsRefused) {
  World w(bigWorld());
  const std::vector<BodyId> ids = spreadGrid(w, {5, 5});
  std::size_t moved = 0;
  try {
    for (; moved < ids.size(); ++moved) w.setPosition(ids[moved], {800, 800});
  } catch (const Error& e) {
    expectPairRefusal(e, "setPosition");
  }
  EXPECT_EQ(moved, kFitOnAPoint);
  EXPECT_NE(w.position(ids[moved]).x, 800.0f) << "the refused move changed the body";
  EXPECT_NO_THROW(w.step(kDt));
  // Moving one of the crowd out and another in is accepted.
  w.setPosition(ids[0], {900, 100});
  EXPECT_NO_THROW(w.setPosition(ids[moved], {800, 800}));
  EXPECT_NO_THROW(w.step(kDt));
}

TEST_F(PairDoor, SetPositionsOntoOnePointIsRefusedWhole) {
  World w(bigWorld());
  const std::vector<BodyId> ids = spreadGrid(w, {5, 5});
  const std::vector<Vec2> before = {w.positions().begin(), w.positions().end()};
  // One ball more than fits on a point, in one call: nothing moves.
  std::vector<BodyId> crowd(ids.begin(), ids.begin() + kFitOnAPoint + 1);
  std::vector<Vec2> onto(crowd.size(), {800, 800});
  try {
    w.setPositions(crowd, onto);
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    expectPairRefusal(e, "setPositions");
  }
  EXPECT_EQ(std::vector<Vec2>(w.positions().begin(), w.positions().end()), before);
  // As many as fit are accepted (the pairs among the moved bodies count),
  // and then none more, though the call moves one out as it moves one in.
  crowd.pop_back();
  onto.pop_back();
  EXPECT_NO_THROW(w.setPositions(crowd, onto));
  EXPECT_NO_THROW(w.step(kDt));
  const std::vector<BodyId> swap = {ids[kFitOnAPoint], ids[kFitOnAPoint + 1]};
  EXPECT_THROW(w.setPositions(swap, std::vector<Vec2>{{800, 800}, {800, 800}}), Error);
  const std::vector<BodyId> outAndIn = {ids[0], ids[kFitOnAPoint]};
  EXPECT_NO_THROW(w.setPositions(outAndIn, std::vector<Vec2>{{900, 100}, {800, 800}}));
  EXPECT_NO_THROW(w.step(kDt));
}

// Static boxes count as the broad phases report them: planks crossing each
// other are refused at the plank that passes the limit.
TEST_F(PairDoor, CrossingPlanksAreRefusedAtCreation) {
  WorldDef def;
  def.bounds = {{0, 0}, {600, 600}};
  World w(def);
  // NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores): read after the catch
  const BodyId ball = w.createBody(BodyDef::ball({5, 5}, 0.01f, {1, 1}));
  int planks = 0;
  try {
    for (; planks < 1100; ++planks) {
      const float at = 30.0f + static_cast<float>(planks) * 0.5f;
      w.createBody(BodyDef::staticBox({{20, at}, {580, at + 0.1f}}));
      w.createBody(BodyDef::staticBox({{at, 20}, {at + 0.1f, 580}}));
    }
    FAIL() << "1,100 x 1,100 crossings were created";
  } catch (const Error& e) {
    expectPairRefusal(e, "createBody");
  }
  EXPECT_EQ(planks, 1024);  // 1,024 x 1,025 crossings pass 2^20
  EXPECT_NO_THROW(w.step(kDt));
  EXPECT_GT(w.position(ball).x, 5.0f);
}

// Growing balls one after another until their boxes overlap past the limit
// is refused at the ball that would pass it (setRadius goes through the
// same door as setPosition), with its radius kept; the world steps.
TEST_F(PairDoor, SetRadiusPastTheLimitIsRefused) {
  World w(bigWorld());
  const std::vector<BodyId> ids = spreadGrid(w, {380, 366});
  std::size_t grown = 0;
  try {
    for (; grown < ids.size(); ++grown) w.setRadius(ids[grown], 300.0f);
    FAIL() << "4,000 balls of radius 300 on a 240 x 268 grid were accepted";
  } catch (const Error& e) {
    expectPairRefusal(e, "setRadius");
  }
  // Each grown ball overlaps every other ball: about 4,000 pairs apiece.
  EXPECT_GT(grown, 200u);
  EXPECT_LT(grown, 400u);
  EXPECT_EQ(w.radius(ids[grown]), 1.0f) << "the refused call changed the radius";
  // Shrinking one of them back makes room for the next.
  w.setRadius(ids[0], 1.0f);
  EXPECT_NO_THROW(w.setRadius(ids[grown], 300.0f));
  EXPECT_THROW(w.setRadius(ids[grown + 1], 300.0f), Error);
  EXPECT_NO_THROW(w.step(kDt));
}
