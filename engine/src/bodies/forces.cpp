#include "bodies/forces.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/tasks/parallel.hpp>

namespace quadbin::forces {

namespace {

double magnitude(double x, double y) { return std::hypot(x, y); }
}  // namespace

void integrateVelocities(BodyStore& b, Vec2 g, float dt, TaskSystem& tasks) {
  if (b.dampedBalls == 0 && !b.forcesPending && b.scaledBalls == 0) {
    b.applyGravity(g, dt, tasks);
    return;
  }
  const bool gravity = g != Vec2{};
  tasks.parallelFor(static_cast<std::uint32_t>(b.size()),
                    bodyPassGrain(static_cast<std::uint32_t>(b.size())),
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t i = begin; i < end; ++i) {
                        if (b.awake[i] == 0) continue;
                        const float lin = b.linearDamping[i], ang = b.angularDamping[i];
                        const float fx = b.fx[i], fy = b.fy[i];
                        // Its gravity: the world's, scaled where the ball says so.
                        const float scale = b.gravityScale[i];
                        const Vec2 gi = scale == 1.0f ? g : g * scale;
                        if (fx == 0.0f && fy == 0.0f && lin == 0.0f && ang == 0.0f) {
                          if (gravity) {  // exactly applyGravity's arithmetic
                            b.vx[i] += gi.x * dt;
                            b.vy[i] += gi.y * dt;
                          }
                          continue;
                        }
                        const float keep = 1.0f / (1.0f + dt * lin);
                        const float ax = gi.x + fx * b.invMass[i], ay = gi.y + fy * b.invMass[i];
                        b.vx[i] = b.vx[i] * keep + ax * dt;
                        b.vy[i] = b.vy[i] * keep + ay * dt;
                        if (ang > 0.0f) b.w[i] *= 1.0f / (1.0f + dt * ang);
                      }
                    });
}

void clearForces(BodyStore& b) noexcept {
  if (!b.forcesPending) return;
  std::fill(b.fx.begin(), b.fx.end(), 0.0f);
  std::fill(b.fy.begin(), b.fy.end(), 0.0f);
  b.forcesPending = false;
}

std::string forceRefusal(const BodyStore& b, std::uint32_t i, Vec2 force) {
  if (!std::isfinite(force.x) || !std::isfinite(force.y)) {
    return fmt::format("applyForce force = ({}, {}) is not finite", force.x, force.y);
  }
  const double ax = (double{b.fx[i]} + force.x) * b.invMass[i];
  const double ay = (double{b.fy[i]} + force.y) * b.invMass[i];
  if (magnitude(ax, ay) > limits::kMaxGravity) {
    return fmt::format(
        "applyForce force = ({}, {}): the accumulated force over the mass {} would accelerate "
        "the ball faster than {:g} units/s^2 (limits::kMaxGravity)",
        force.x, force.y, b.mass[i], limits::kMaxGravity);
  }
  return {};
}

Vec2 velocityAfterImpulse(const BodyStore& b, std::uint32_t i, Vec2 impulse) noexcept {
  return {b.vx[i] + impulse.x * b.invMass[i], b.vy[i] + impulse.y * b.invMass[i]};
}

float spinAfterImpulse(const BodyStore& b, std::uint32_t i, float impulse) noexcept {
  // A solid disc: I = m r^2 / 2, so 1 / I = 2 invMass / r^2.
  const float r = b.radius[i];
  return b.w[i] + impulse * (2.0f * b.invMass[i] / (r * r));
}

Vec2 explosionImpulse(const BodyStore& b, std::uint32_t i, Vec2 center, float radius,
                      float impulse) noexcept {
  if (!b.isBall(i)) return {};
  const Vec2 delta = Vec2{b.px[i], b.py[i]} - center;
  const float dist = length(delta);
  const float surface = std::max(0.0f, dist - b.radius[i]);
  if (!(dist > 0.0f) || !(surface < radius)) return {};
  return delta * (impulse * (1.0f - surface / radius) / dist);
}

std::string explosionVelocities(const BodyStore& b, std::span<std::uint32_t> candidates,
                                Vec2 center, float radius, float impulse,
                                std::vector<std::pair<std::uint32_t, Vec2>>& out) {
  std::sort(candidates.begin(), candidates.end());
  out.clear();
  for (const std::uint32_t i : candidates) {
    const Vec2 j = explosionImpulse(b, i, center, radius, impulse);
    if (j == Vec2{}) continue;
    const Vec2 v = velocityAfterImpulse(b, i, j);
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || magnitude(v.x, v.y) > limits::kMaxSpeed) {
      return fmt::format(
          "explode: impulse {} would make the ball at dense index {} (mass {}) faster than {:g} "
          "units/s (limits::kMaxSpeed)",
          impulse, i, b.mass[i], limits::kMaxSpeed);
    }
    out.emplace_back(i, v);
  }
  return {};
}

}  // namespace quadbin::forces
