// World::draw: what a WorldDraw receives, against the world's own accessors,
// a brute-force contact scan and a brute-force region filter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

constexpr float kSlop = 0.005f;  // world_draw.hpp: 0.5% of the smaller radius

// One callback as it arrived.
struct Record {
  enum Kind { kWalls, kBall, kBox, kContact, kAabb, kSensor } kind;
  BodyId a, b;
  Vec2 p, q;  // ball: centre, velocity; contact: point, normal
  AABB box;   // walls, static box, aabb
  float r = 0.0f, angle = 0.0f, gap = 0.0f;
  bool awake = false;
  BodyType type = BodyType::Ball;
  friend bool operator==(const Record&, const Record&) = default;
};

// gtest's name for a printer: short lines instead of byte dumps on failure.
// NOLINTNEXTLINE(readability-identifier-naming)
void PrintTo(const Record& r, std::ostream* os) {
  *os << "{kind " << r.kind << ", a " << r.a.index << ", b " << r.b.index << ", p (" << r.p.x
      << ", " << r.p.y << "), r " << r.r << "}";
}

class Recorder final : public WorldDraw {
 public:
  std::vector<Record> records;
  void ball(const DrawnBall& x) override {
    records.push_back({Record::kBall,
                       x.id,
                       {},
                       x.center,
                       x.velocity,
                       {},
                       x.radius,
                       x.angle,
                       0.0f,
                       x.awake,
                       x.type});
  }
  void staticBox(const DrawnBox& x) override {
    records.push_back({Record::kBox, x.id, {}, {}, {}, x.box});
  }
  void walls(const AABB& bounds) override {
    records.push_back({Record::kWalls, {}, {}, {}, {}, bounds});
  }
  void contact(const DrawnContact& c) override {
    records.push_back({Record::kContact, c.a, c.b, c.point, c.normal, {}, 0.0f, 0.0f, c.gap});
  }
  void sensorOverlap(BodyId sensor, BodyId visitor, Vec2 point) override {
    records.push_back({Record::kSensor, sensor, visitor, point, {}, {}});
  }
  void aabb(BodyId id, const AABB& box) override {
    records.push_back({Record::kAabb, id, {}, {}, {}, box});
  }

  [[nodiscard]] std::vector<Record> only(Record::Kind kind) const {
    std::vector<Record> out;
    for (const Record& r : records) {
      if (r.kind == kind) out.push_back(r);
    }
    return out;
  }
};

WorldDrawOptions everything() {
  WorldDrawOptions o;
  o.contacts = true;
  o.aabbs = true;
  o.sensorOverlaps = true;
  return o;
}

std::vector<Record> drawn(const World& world, const WorldDrawOptions& options) {
  Recorder rec;
  world.draw(rec, options);
  return rec.records;
}

// A pile under gravity with a few static boxes in it, stepped until much of
// it rests (touching contacts, walls, boxes, sleeping balls).
World pileWorld(std::uint32_t n, std::uint32_t threads,
                BroadPhaseType broad = BroadPhaseType::Auto) {
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Pile);
  def.threadCount = threads;
  def.broadPhase = broad;
  World world = scenes::makeWorld(scenes::generate(scenes::SceneKind::Pile, n), def);
  const AABB b = world.def().bounds;
  const float w = b.max.x - b.min.x;
  for (int k = 1; k <= 3; ++k) {
    const float x = b.min.x + w * static_cast<float>(k) / 4.0f;
    const AABB box{{x - 0.04f * w, b.min.y + 0.1f * w}, {x + 0.04f * w, b.min.y + 0.12f * w}};
    std::vector<BodyId> inside;
    world.queryBox(box, inside);
    for (const BodyId id : inside) world.destroyBody(id);
    world.createBody(BodyDef::staticBox(box));
  }
  for (int s = 0; s < 150; ++s) world.step(1.0f / 60.0f);
  return world;
}

// Every touching pair by the documented rule, over all pairs: (a, b) dense
// with a a ball; b = UINT32_MAX - side for walls.
struct Touch {
  std::uint32_t a, b;
  Vec2 point, normal;
  float gap;
};

std::vector<Touch> bruteForceContacts(const World& world) {
  const std::span<const Vec2> pos = world.positions();
  const std::span<const float> rad = world.radii();
  const std::uint32_t n = world.bodyCount();
  std::vector<Touch> out;
  auto add = [&](std::uint32_t a, std::uint32_t b, Vec2 normal, float gap, float slop) {
    if (gap <= slop) out.push_back({a, b, pos[a] + normal * (rad[a] + 0.5f * gap), normal, gap});
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const BodyId id = world.bodyAt(i);
    if (world.type(id) != BodyType::Ball) continue;
    for (std::uint32_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const BodyId other = world.bodyAt(j);
      if (world.type(other) == BodyType::Ball) {
        if (j < i) continue;
        const Vec2 d = pos[j] - pos[i];
        const float dist = length(d);
        add(i, j, dist > 0.0f ? d / dist : Vec2{1, 0}, dist - rad[i] - rad[j],
            kSlop * std::min(rad[i], rad[j]));
      } else {
        const AABB box = world.bounds(other);
        const Vec2 d = closestPoint(box, pos[i]) - pos[i];
        const float dist = length(d);
        if (!(dist > 0.0f)) ADD_FAILURE() << "a ball's centre inside a box: the scene went wrong";
        add(i, j, d / dist, dist - rad[i], kSlop * rad[i]);
      }
    }
    const AABB& w = world.def().bounds;
    const float toWall[4] = {pos[i].x - w.min.x, w.max.x - pos[i].x, pos[i].y - w.min.y,
                             w.max.y - pos[i].y};
    const Vec2 normals[4] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (std::uint32_t side = 0; side < 4; ++side) {
      add(i, UINT32_MAX - side, normals[side], toWall[side] - rad[i], kSlop * rad[i]);
    }
  }
  return out;
}

using WorldDrawTest = test::QuietLog;

}  // namespace

TEST_F(WorldDrawTest, BodiesAndBoxesMatchTheWorld) {
  const World world = pileWorld(600, 2);
  const std::vector<Record> all = drawn(world, everything());
  // Walls first, once.
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0].kind, Record::kWalls);
  EXPECT_EQ(all[0].box, world.def().bounds);
  // Then each body in dense order, its aabb right after it.
  std::size_t k = 1;
  std::uint32_t asleep = 0, boxes = 0;
  for (std::uint32_t i = 0; i < world.bodyCount(); ++i) {
    const BodyId id = world.bodyAt(i);
    ASSERT_LT(k + 1, all.size());
    const Record& body = all[k++];
    if (world.type(id) == BodyType::Ball) {
      ASSERT_EQ(body.kind, Record::kBall) << i;
      EXPECT_EQ(body.a, id);
      EXPECT_EQ(body.p, world.position(id));
      EXPECT_EQ(body.q, world.velocity(id));
      EXPECT_EQ(body.r, world.radius(id));
      EXPECT_EQ(body.angle, world.angle(id));
      EXPECT_EQ(body.awake, world.isAwake(id));
      EXPECT_EQ(body.type, BodyType::Ball);
      asleep += body.awake ? 0 : 1;
    } else {
      ASSERT_EQ(body.kind, Record::kBox) << i;
      EXPECT_EQ(body.a, id);
      EXPECT_EQ(body.box, world.bounds(id));
      ++boxes;
    }
    const Record& aabb = all[k++];
    ASSERT_EQ(aabb.kind, Record::kAabb) << i;
    EXPECT_EQ(aabb.a, id);
    EXPECT_EQ(aabb.box, world.bounds(id));
  }
  // Then only contacts (no sensors: the world has none).
  for (; k < all.size(); ++k) EXPECT_EQ(all[k].kind, Record::kContact);
  EXPECT_EQ(boxes, 3u);
  EXPECT_GT(asleep, 0u) << "the scene should have sleeping balls";
}

TEST_F(WorldDrawTest, ContactsMatchABruteForceScan) {
  const World world = pileWorld(600, 2);
  const std::vector<Touch> expected = bruteForceContacts(world);
  const std::vector<Record> all = drawn(world, everything());
  std::vector<Record> contacts;
  for (const Record& r : all) {
    if (r.kind == Record::kContact) contacts.push_back(r);
  }
  ASSERT_EQ(contacts.size(), expected.size());
  std::uint32_t walls = 0, boxes = 0;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const Touch& t = expected[k];
    const Record& c = contacts[k];
    EXPECT_EQ(c.a, world.bodyAt(t.a)) << k;
    if (t.b > UINT32_MAX - 4) {
      EXPECT_TRUE(c.b.isNull()) << k;
      ++walls;
    } else {
      EXPECT_EQ(c.b, world.bodyAt(t.b)) << k;
      boxes += world.type(c.b) == BodyType::StaticBox ? 1 : 0;
    }
    EXPECT_EQ(c.p, t.point) << k;
    EXPECT_EQ(c.q, t.normal) << k;
    EXPECT_EQ(c.gap, t.gap) << k;
    EXPECT_NEAR(length(c.q), 1.0f, 1e-5f);
  }
  EXPECT_GT(walls, 0u);
  EXPECT_GT(boxes, 0u);
  EXPECT_GT(contacts.size(), 300u) << "a resting pile touches a lot";
}

TEST_F(WorldDrawTest, RegionEqualsABruteForceFilter) {
  for (const BroadPhaseType type : {BroadPhaseType::Quadtree, BroadPhaseType::BinGrid,
                                    BroadPhaseType::DynamicAabbTree, BroadPhaseType::BruteForce}) {
    SCOPED_TRACE(std::string(toString(type)));
    const World world = pileWorld(600, 2, type);
    const std::vector<Record> all = drawn(world, everything());
    const AABB b = world.def().bounds;
    const Vec2 size = b.max - b.min;
    std::uint32_t seed = 7;
    auto next = [&] {
      seed = seed * 1664525u + 1013904223u;
      return static_cast<float>(seed >> 8) / static_cast<float>(1u << 24);
    };
    for (int trial = 0; trial < 20; ++trial) {
      const Vec2 c{b.min.x + size.x * next(), b.min.y + size.y * next()};
      const Vec2 half{size.x * 0.2f * next(), size.y * 0.2f * next()};
      WorldDrawOptions options = everything();
      options.region = AABB{c - half, c + half};
      if (trial == 0) options.region = b;
      const AABB& region = *options.region;
      std::vector<Record> expected;
      for (const Record& r : all) {
        bool keep = true;
        if (r.kind == Record::kBall) {
          keep = lengthSquared(r.p - closestPoint(region, r.p)) <= r.r * r.r;
        } else if (r.kind == Record::kBox || r.kind == Record::kAabb) {
          keep = touches(r.box, region);
        } else if (r.kind == Record::kContact) {
          keep = contains(region, r.p);
        }
        if (keep) expected.push_back(r);
      }
      const std::vector<Record> got = drawn(world, options);
      EXPECT_EQ(got, expected) << "trial " << trial;
      if (trial == 0) {
        EXPECT_EQ(got.size(), all.size());
      }
    }
  }
}

TEST_F(WorldDrawTest, OptionsSelectTheCallbacks) {
  const World world = pileWorld(300, 1);
  Recorder rec;
  world.draw(rec, WorldDrawOptions{});  // defaults: balls, boxes, walls
  EXPECT_EQ(rec.only(Record::kWalls).size(), 1u);
  EXPECT_EQ(rec.only(Record::kBall).size() + rec.only(Record::kBox).size(), world.bodyCount());
  EXPECT_TRUE(rec.only(Record::kContact).empty());
  EXPECT_TRUE(rec.only(Record::kAabb).empty());

  WorldDrawOptions none;
  none.balls = none.staticBoxes = none.walls = false;
  EXPECT_TRUE(drawn(world, none).empty());

  WorldDrawOptions contactsOnly = none;
  contactsOnly.contacts = true;
  const std::vector<Record> contacts = drawn(world, contactsOnly);
  EXPECT_FALSE(contacts.empty());
  for (const Record& r : contacts) EXPECT_EQ(r.kind, Record::kContact);
}

TEST_F(WorldDrawTest, OpenWorldHasNoWalls) {
  WorldDef def;
  def.boundary = Boundary::Open;
  World world(def);
  world.createBody(BodyDef::ball({0.5f, 50}, 1));  // pokes out of the bounds: no wall there
  world.createBody(BodyDef::ball({10, 50}, 1));
  world.createBody(BodyDef::ball({12, 50}, 1));  // touches the one before
  const std::vector<Record> all = drawn(world, everything());
  ASSERT_EQ(all.size(), 3u * 2u + 1u);
  EXPECT_EQ(all.back().kind, Record::kContact);
  EXPECT_EQ(all.back().a, world.bodyAt(1));
  EXPECT_EQ(all.back().b, world.bodyAt(2));
  EXPECT_EQ(all.back().p, (Vec2{11, 50}));
  EXPECT_EQ(all.back().q, (Vec2{1, 0}));
  EXPECT_EQ(all.back().gap, 0.0f);
}

TEST_F(WorldDrawTest, SameOutputForAnyThreadCount) {
  // More candidates than one chunk of the contact gathering (1,024). One
  // world (BodyIds carry its id), drawn on 1, 2 and 8 threads.
  World world = pileWorld(3000, 1);
  for (const bool region : {false, true}) {
    WorldDrawOptions options = everything();
    if (region) {
      const AABB b = world.def().bounds;
      options.region = AABB{b.min, b.center()};
    }
    world.setThreadCount(1);
    const std::vector<Record> one = drawn(world, options);
    EXPECT_GT(one.size(), 3000u);
    world.setThreadCount(2);
    EXPECT_TRUE(one == drawn(world, options)) << "2 threads, region " << region;
    world.setThreadCount(8);
    EXPECT_TRUE(one == drawn(world, options)) << "8 threads, region " << region;
  }
}

TEST_F(WorldDrawTest, BadRegionIsRefusedAndChangesNothing) {
  World world = pileWorld(200, 1);
  const std::vector<std::byte> before = world.snapshot();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const AABB region : {AABB{{0, 0}, {nan, 1}}, AABB{{5, 5}, {1, 1}},
                            AABB{{0, 0}, {std::numeric_limits<float>::infinity(), 1}}}) {
    WorldDrawOptions options = everything();
    options.region = region;
    Recorder rec;
    EXPECT_THROW(world.draw(rec, options), Error);
    EXPECT_TRUE(rec.records.empty());
  }
  EXPECT_EQ(world.snapshot(), before);
}

TEST_F(WorldDrawTest, CallbacksMayReadButNotChangeTheWorld) {
  World world;
  const BodyId ball = world.createBody(BodyDef::ball({50, 50}, 1));
  struct Mover final : WorldDraw {
    World* world = nullptr;
    Vec2 seen;
    void ball(const DrawnBall& b) override {
      seen = world->position(b.id);        // a read: allowed
      world->setPosition(b.id, {20, 20});  // a change: refused
    }
  } mover;
  mover.world = &world;
  EXPECT_THROW(world.draw(mover, WorldDrawOptions{}), Error);
  EXPECT_EQ(mover.seen, (Vec2{50, 50}));
  EXPECT_EQ(world.position(ball), (Vec2{50, 50}));
  // The claim was released: the world works again.
  world.setPosition(ball, {20, 20});
  EXPECT_EQ(world.position(ball), (Vec2{20, 20}));

  World moved = std::move(world);
  Recorder rec;
  // NOLINTNEXTLINE(bugprone-use-after-move, clang-analyzer-cplusplus.Move): on purpose
  EXPECT_THROW(world.draw(rec, WorldDrawOptions{}), Error);
  EXPECT_NO_THROW(moved.draw(rec, WorldDrawOptions{}));
}

// Sensor overlaps: what the last step's sensor events saw, at the sensor's
// point nearest the visitor, compared with a brute-force scan of the balls
// inside the sensors; bodies destroyed since are left out, a region culls.
TEST_F(WorldDrawTest, SensorOverlapsMatchTheSensorEvents) {
  WorldDef def;
  def.bounds = {{0.0f, 0.0f}, {100.0f, 100.0f}};
  def.threadCount = 1;
  World world(def);
  BodyDef boxSensor = BodyDef::staticBox({{10.0f, 10.0f}, {30.0f, 30.0f}});
  boxSensor.isSensor = true;
  const BodyId zone = world.createBody(boxSensor);
  BodyDef ballSensor = BodyDef::ball({70.0f, 70.0f}, 5.0f);
  ballSensor.isSensor = true;
  const BodyId bubble = world.createBody(ballSensor);
  const BodyId inZone = world.createBody(BodyDef::ball({20.0f, 20.0f}, 1.0f));
  const BodyId edge = world.createBody(BodyDef::ball({30.5f, 20.0f}, 1.0f));  // centre outside
  const BodyId inBubble = world.createBody(BodyDef::ball({73.0f, 70.0f}, 1.0f));
  world.createBody(BodyDef::ball({50.0f, 50.0f}, 1.0f));  // in no sensor
  world.step(1.0f / 60.0f);
  ASSERT_EQ(world.sensorBeginEvents().size(), 3u);

  WorldDrawOptions only;
  only.balls = only.staticBoxes = only.walls = false;
  only.sensorOverlaps = true;
  std::vector<Record> got = drawn(world, only);
  ASSERT_EQ(got.size(), 3u);
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].a, world.sensorBeginEvents()[k].sensor);
    EXPECT_EQ(got[k].b, world.sensorBeginEvents()[k].visitor);
  }
  auto find = [&](BodyId visitor) {
    for (const Record& r : got) {
      if (r.b == visitor) return r;
    }
    ADD_FAILURE() << "no overlap for visitor " << visitor.index;
    return Record{};
  };
  EXPECT_EQ(find(inZone).a, zone);
  EXPECT_EQ(find(inZone).p, world.position(inZone));  // inside: the centre
  EXPECT_EQ(find(edge).a, zone);
  EXPECT_FLOAT_EQ(find(edge).p.x, 30.0f);  // the sensor's edge nearest the centre
  EXPECT_EQ(find(inBubble).a, bubble);
  EXPECT_EQ(find(inBubble).p, world.position(inBubble));

  only.region = AABB{{60.0f, 60.0f}, {80.0f, 80.0f}};
  got = drawn(world, only);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].b, inBubble);

  only.region.reset();
  world.destroyBody(inZone);
  got = drawn(world, only);
  EXPECT_EQ(got.size(), 2u);
  for (const Record& r : got) EXPECT_NE(r.b, inZone);
}
