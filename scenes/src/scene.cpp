#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <numeric>
#include <quadbin/error.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>

#include "placement.hpp"

namespace quadbin::scenes {

namespace {

constexpr double kCoverage = 0.10;  // fraction of the world the balls' discs cover
constexpr double kMaxSpeed = 20.0;

void setWorld(Scene& s, double minX, double minY, double maxX, double maxY) {
  s.minX = minX;
  s.minY = minY;
  s.maxX = maxX;
  s.maxY = maxY;
  s.world = {{static_cast<float>(minX), static_cast<float>(minY)},
             {static_cast<float>(maxX), static_cast<float>(maxY)}};
}

// The pile (see scene.hpp): a grid of spacing 2.2, C = ceil(sqrt(n)) wide.
constexpr double kPileSpacing = 2.2;
constexpr double kPileJitter = 0.05;
constexpr double kPileMaxSpeed = 1.0;
constexpr float kPileFriction = 0.5f;
constexpr float kPileRollingResistance = 0.1f;

Scene generatePile(std::uint32_t n, std::uint64_t seed) {
  using Uniform = std::uniform_real_distribution<double>;
  std::mt19937_64 rng(seed);
  // ceil(sqrt(n)) in integers, at least 1.
  auto columns = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(n)));
  while (std::uint64_t{columns} * columns < n) ++columns;
  while (columns > 1 && std::uint64_t{columns - 1} * (columns - 1) >= n) --columns;
  columns = std::max(columns, 1u);
  const std::uint32_t rows = std::max((n + columns - 1) / columns, 1u);
  const double width = columns * kPileSpacing + 2.0;
  const double top = 2.0 + kPileSpacing * (rows - 1) + 1.0;  // the top row's top edge
  Scene s;
  setWorld(s, 0.0, 0.0, width, 1.1 * top);
  s.r.assign(n, 1.0);
  s.friction = kPileFriction;
  s.rollingResistance = kPileRollingResistance;
  s.x.resize(n);
  s.y.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const double jitter = Uniform(-kPileJitter, kPileJitter)(rng);
    s.x[i] = 1.0 + 0.5 * kPileSpacing + kPileSpacing * (i % columns) + jitter;
    const std::uint32_t row = i / columns;
    s.y[i] = 2.0 + kPileSpacing * row;
  }
  s.vx.resize(n);
  s.vy.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    s.vx[i] = Uniform(-kPileMaxSpeed, kPileMaxSpeed)(rng);
    s.vy[i] = Uniform(-kPileMaxSpeed, kPileMaxSpeed)(rng);
  }
  return s;
}

}  // namespace

std::string_view toString(SceneKind kind) noexcept {
  switch (kind) {
    case SceneKind::Uniform:
      return "uniform";
    case SceneKind::Clustered:
      return "clustered";
    case SceneKind::Mixed:
      return "mixed";
    case SceneKind::Pile:
      return "pile";
  }
  return "unknown";
}

std::optional<SceneKind> parseSceneKind(std::string_view name) noexcept {
  for (const auto kind :
       {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed, SceneKind::Pile}) {
    if (toString(kind) == name) return kind;
  }
  return std::nullopt;
}

Scene generate(SceneKind kind, std::uint32_t n, std::uint64_t seed) {
  if (kind == SceneKind::Pile) return generatePile(n, seed);
  using Uniform = std::uniform_real_distribution<double>;
  std::mt19937_64 rng(seed);
  Scene s;
  s.r.assign(n, 1.0);
  double size = 0.0;
  if (kind == SceneKind::Mixed) {
    Uniform logRadius(std::log(0.5), std::log(16.0));
    double area = 0.0;
    for (auto& r : s.r) {
      r = std::exp(logRadius(rng));
      area += std::numbers::pi * r * r;
    }
    size = std::sqrt(area / kCoverage);
  } else {
    size = std::sqrt(n * std::numbers::pi / kCoverage);
  }
  setWorld(s, 0.0, 0.0, size, size);

  s.x.resize(n);
  s.y.resize(n);
  if (kind == SceneKind::Clustered) {
    double cx[16], cy[16];
    for (int k = 0; k < 16; ++k) {
      cx[k] = Uniform(0.0, size)(rng);
      cy[k] = Uniform(0.0, size)(rng);
    }
    std::normal_distribution<double> spread(0.0, size / 40.0);  // one object: it caches a draw
    // r = 1 and size >= sqrt(pi / kCoverage) > 5: the clamps' lo < hi.
    for (std::uint32_t i = 0; i < n; ++i) {
      const int k = std::uniform_int_distribution<int>(0, 15)(rng);
      const double x = cx[k] + spread(rng);
      const double y = cy[k] + spread(rng);
      s.x[i] = std::clamp(x, s.r[i], size - s.r[i]);
      s.y[i] = std::clamp(y, s.r[i], size - s.r[i]);
    }
  } else {
    for (std::uint32_t i = 0; i < n; ++i) {
      s.x[i] = Uniform(s.r[i], size - s.r[i])(rng);
      s.y[i] = Uniform(s.r[i], size - s.r[i])(rng);
    }
  }

  s.vx.resize(n);
  s.vy.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const double theta = Uniform(0.0, 2.0 * std::numbers::pi)(rng);
    const double speed = Uniform(0.0, kMaxSpeed)(rng);
    s.vx[i] = speed * std::cos(theta);
    s.vy[i] = speed * std::sin(theta);
  }
  return s;
}

void advance(Scene& s, double dt) noexcept {
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double r = s.r[i];
    double x = s.x[i] + s.vx[i] * dt;
    if (x < s.minX + r) {
      x = s.minX + r;
      s.vx[i] = -s.vx[i];
    } else if (x > s.maxX - r) {
      x = s.maxX - r;
      s.vx[i] = -s.vx[i];
    }
    double y = s.y[i] + s.vy[i] * dt;
    if (y < s.minY + r) {
      y = s.minY + r;
      s.vy[i] = -s.vy[i];
    } else if (y > s.maxY - r) {
      y = s.maxY - r;
      s.vy[i] = -s.vy[i];
    }
    s.x[i] = x;
    s.y[i] = y;
  }
}

namespace {
void boxesOf(const Scene& s, std::size_t begin, std::size_t end, AABB* out) noexcept {
  for (std::size_t i = begin; i < end; ++i) {
    out[i] = {{static_cast<float>(s.x[i] - s.r[i]), static_cast<float>(s.y[i] - s.r[i])},
              {static_cast<float>(s.x[i] + s.r[i]), static_cast<float>(s.y[i] + s.r[i])}};
  }
}
}  // namespace

void boxes(const Scene& s, std::vector<AABB>& out) {
  out.resize(s.size());
  boxesOf(s, 0, s.size(), out.data());
}

void boxes(const Scene& s, std::vector<AABB>& out, TaskSystem& tasks) {
  out.resize(s.size());
  AABB* const to = out.data();
  tasks.parallelFor(static_cast<std::uint32_t>(s.size()), 16384,
                    [&](std::uint32_t begin, std::uint32_t end) { boxesOf(s, begin, end, to); });
}

std::uint64_t countPairsExact(const Scene& s) {
  std::vector<std::uint32_t> order(s.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return s.x[a] - s.r[a] < s.x[b] - s.r[b]; });
  std::uint64_t count = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::uint32_t i = order[k];
    const double maxX = s.x[i] + s.r[i];
    for (std::size_t m = k + 1; m < order.size(); ++m) {
      const std::uint32_t j = order[m];
      if (!(s.x[j] - s.r[j] < maxX)) break;
      if (s.x[i] - s.r[i] < s.x[j] + s.r[j] && s.y[i] - s.r[i] < s.y[j] + s.r[j] &&
          s.y[j] - s.r[j] < s.y[i] + s.r[i]) {
        ++count;
      }
    }
  }
  return count;
}

namespace detail {

std::string placeBall(const Scene& s, double x, double y, double r, Vec2& at) {
  const auto num = [](double v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
    return std::string(buf, res.ptr);
  };
  const char* axis = !(s.minX + r <= s.maxX - r) ? "x" : !(s.minY + r <= s.maxY - r) ? "y" : "";
  if (*axis != '\0') {
    return "radius " + num(r) + " does not fit inside the world [" + num(s.minX) + ", " +
           num(s.maxX) + "] x [" + num(s.minY) + ", " + num(s.maxY) +
           "]: the ball is wider than the world on " + axis;
  }
  const auto inside = [&](const char* name, double v, double lo, double hi) -> std::string {
    if (lo <= v && v <= hi) return {};
    return std::string(name) + " = " + num(v) + " puts the ball (radius " + num(r) +
           ") outside the world: it needs " + num(lo) + " <= " + name + " <= " + num(hi);
  };
  std::string why = inside("x", x, s.minX + r, s.maxX - r);
  if (why.empty()) why = inside("y", y, s.minY + r, s.maxY - r);
  if (!why.empty()) return why;
  // In float the walls and the radius round independently: clamp a hair
  // inside, and check what the World checks (createBody's closed-world test).
  const AABB& w = s.world;
  const auto fr = static_cast<float>(r);
  const float loX = w.min.x + fr, hiX = w.max.x - fr, loY = w.min.y + fr, hiY = w.max.y - fr;
  if (loX <= hiX && loY <= hiY) {
    const Vec2 p{std::clamp(static_cast<float>(x), loX, hiX),
                 std::clamp(static_cast<float>(y), loY, hiY)};
    if (!(p.x - fr < w.min.x || p.x + fr > w.max.x || p.y - fr < w.min.y || p.y + fr > w.max.y)) {
      at = p;
      return {};
    }
  }
  return "the ball (radius " + num(r) +
         ") fits the world in double but not once rounded to float, as the World stores it: "
         "it spans the world within a float rounding; make the world a little larger";
}

}  // namespace detail

World makeWorld(const Scene& s, WorldDef def) {
  def.bounds = s.world;
  World world(def);
  for (std::size_t i = 0; i < s.size(); ++i) {
    Vec2 at;
    if (const std::string why = detail::placeBall(s, s.x[i], s.y[i], s.r[i], at); !why.empty()) {
      throw Error("makeWorld: ball " + std::to_string(i) + ": " + why);
    }
    BodyDef ball = BodyDef::ball(at, static_cast<float>(s.r[i]),
                                 {static_cast<float>(s.vx[i]), static_cast<float>(s.vy[i])});
    ball.friction = s.friction;
    ball.rollingResistance = s.rollingResistance;
    (void)world.createBody(ball);
  }
  return world;
}

WorldDef worldDefFor(SceneKind kind, WorldDef def) {
  if (kind == SceneKind::Pile) {
    def.gravity = {0.0f, -9.8f};
    def.restitution = 0.5f;
    def.restitutionThreshold = 1.0f;
    def.enableSleep = true;
  } else {
    // Elastic: every collision, however slow, keeps its energy, and no
    // ball is put to sleep (the energy drift measures the solver alone).
    def.gravity = {0.0f, 0.0f};
    def.restitution = 1.0f;
    def.restitutionThreshold = 0.0f;
    def.enableSleep = false;
  }
  return def;
}

}  // namespace quadbin::scenes
