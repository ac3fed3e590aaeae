#include "renderer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <quadbin/broadphase/auto.hpp>
#include <quadbin/broadphase/debug_draw.hpp>
#include <string>

namespace demo {

namespace {

const sf::Color kBackground(16, 18, 24);
const sf::Color kBall(215, 218, 228);
const sf::Color kTouching(255, 80, 60);
const sf::Color kGrabbed(120, 255, 120);
const sf::Color kContactLine(255, 60, 40, 230);
const sf::Color kBorder(140, 140, 150);

// One colour per depth (level), cycling: neighbouring depths stay apart.
sf::Color depthColour(std::uint32_t depth, sf::Uint8 alpha) {
  static constexpr std::array<std::array<sf::Uint8, 3>, 8> kPalette{{{90, 200, 255},
                                                                     {120, 240, 140},
                                                                     {255, 215, 90},
                                                                     {255, 130, 90},
                                                                     {235, 110, 215},
                                                                     {165, 140, 255},
                                                                     {90, 235, 215},
                                                                     {235, 235, 235}}};
  const auto& c = kPalette[depth % kPalette.size()];
  return {c[0], c[1], c[2], alpha};
}

// How cells are shaded by the boxes they hold: empty cells are not filled,
// cells holding `full` or more the most. Structures whose cells nest (the
// quadtree keeps boxes in inner nodes too) are shaded lighter, since the
// fills of a node and its ancestors add up.
struct Shading {
  float full = 16.0f;  // the trees' default split threshold
  float strength = 1.0f;
  float base = 12.0f;  // alpha of a cell holding one box
};

Shading shadingFor(quadbin::BroadPhaseType type) {
  switch (type) {
    case quadbin::BroadPhaseType::Quadtree:
      return {16.0f, 0.0f, 0.0f};  // outlines only: a node's fill would cover its children
    case quadbin::BroadPhaseType::BinGrid:
      return {4.0f, 1.0f};  // a few boxes per cell is already crowded
    default:
      return {};
  }
}

sf::Color occupancyColour(std::uint32_t count, const Shading& shading) {
  const float level = std::min(static_cast<float>(count), shading.full) / shading.full;
  return {255, 200, 60, static_cast<sf::Uint8>((shading.base + 68.0f * level) * shading.strength)};
}

sf::Vector2f at(quadbin::Vec2 p) { return {p.x, p.y}; }

// Turns the broad phase's callbacks into SFML vertices (world units).
class OverlayDraw final : public quadbin::BroadPhaseDraw {
 public:
  OverlayDraw(sf::VertexArray& lines, sf::VertexArray& fills, const quadbin::AABB& world,
              float pixel, Shading shading)
      : lines_(lines), fills_(fills), world_(world), pixel_(pixel), shading_(shading) {}

  void cell(const quadbin::AABB& box, std::uint32_t depth, std::uint32_t count) override {
    const quadbin::Vec2 corners[4] = {
        box.min, {box.max.x, box.min.y}, box.max, {box.min.x, box.max.y}};
    shape(corners, depth, count);
  }
  void polygon(std::span<const quadbin::Vec2> corners, std::uint32_t depth,
               std::uint32_t count) override {
    shape(corners, depth, count);
  }
  void treeBox(const quadbin::AABB& box, std::uint32_t depth, bool leaf) override {
    // Boxes under 20 pixels wide are a blur of lines: skipped. Leaves hug
    // their balls, so they are shown (faint) only when large enough on
    // screen to tell from the ball.
    const float pixels = std::max(box.max.x - box.min.x, box.max.y - box.min.y) / pixel_;
    if (leaf) {
      if (pixels > 12.0f) outline(box, sf::Color(200, 200, 200, 60));
      return;
    }
    if (pixels >= 20.0f) outline(box, depthColour(depth, 255));
  }
  void interval(std::uint32_t axis, float lo, float hi, std::uint32_t rank) override {
    axis_ = axis;
    intervals_.push_back({lo, hi, rank});
  }

  // The sweep-and-prune intervals, after draw(): packed into lanes (an
  // interval goes to the first lane free at its start) in a band along the
  // sort axis, so the band's height is the deepest overlap on the axis,
  // and every 1/16th of the sort order marked across the world.
  void finishIntervals() {
    if (intervals_.empty()) return;
    std::vector<float> laneEnd;
    std::vector<std::uint32_t> lane(intervals_.size());
    for (std::size_t k = 0; k < intervals_.size(); ++k) {
      const Interval& iv = intervals_[k];
      std::size_t l = 0;
      while (l < laneEnd.size() && laneEnd[l] >= iv.lo) ++l;
      if (l == laneEnd.size()) laneEnd.push_back(iv.hi);
      laneEnd[l] = iv.hi;
      lane[k] = static_cast<std::uint32_t>(l);
    }
    const bool onX = axis_ == 0;
    const float across = onX ? world_.max.y - world_.min.y : world_.max.x - world_.min.x;
    const float band = std::min(0.3f * across, static_cast<float>(laneEnd.size()) * 3.0f * pixel_);
    const float laneWidth = band / static_cast<float>(laneEnd.size());
    // The band's background, at the bottom (x) or right (y) edge.
    const quadbin::AABB backdrop =
        onX ? quadbin::AABB{{world_.min.x, world_.max.y - band}, world_.max}
            : quadbin::AABB{{world_.max.x - band, world_.min.y}, world_.max};
    quad(backdrop, sf::Color(0, 0, 0, 170));
    const auto n = static_cast<std::uint32_t>(intervals_.size());
    const std::uint32_t every = std::max(1u, n / 16);
    for (std::size_t k = 0; k < intervals_.size(); ++k) {
      const Interval& iv = intervals_[k];
      const float offset = (static_cast<float>(lane[k]) + 0.5f) * laneWidth;
      const sf::Color colour = depthColour(lane[k], 230);
      if (onX) {
        const float y = world_.max.y - offset;
        line({iv.lo, y}, {iv.hi, y}, colour);
      } else {
        const float x = world_.max.x - offset;
        line({x, iv.lo}, {x, iv.hi}, colour);
      }
      if (iv.rank % every == 0) {
        const sf::Color mark(255, 255, 255, 70);
        if (onX) {
          line({iv.lo, world_.min.y}, {iv.lo, world_.max.y - band}, mark);
        } else {
          line({world_.min.x, iv.lo}, {world_.max.x - band, iv.lo}, mark);
        }
      }
    }
  }

 private:
  struct Interval {
    float lo, hi;
    std::uint32_t rank;
  };

  void shape(std::span<const quadbin::Vec2> corners, std::uint32_t depth, std::uint32_t count) {
    if (count > 0) {
      const sf::Color fill = occupancyColour(count, shading_);
      for (std::size_t k = 1; k + 1 < corners.size(); ++k) {
        fills_.append({at(corners[0]), fill});
        fills_.append({at(corners[k]), fill});
        fills_.append({at(corners[k + 1]), fill});
      }
    }
    const sf::Color edge = depthColour(depth, 255);
    for (std::size_t k = 0; k < corners.size(); ++k) {
      line(at(corners[k]), at(corners[(k + 1) % corners.size()]), edge);
    }
  }
  void outline(const quadbin::AABB& b, sf::Color colour) {
    line({b.min.x, b.min.y}, {b.max.x, b.min.y}, colour);
    line({b.max.x, b.min.y}, {b.max.x, b.max.y}, colour);
    line({b.max.x, b.max.y}, {b.min.x, b.max.y}, colour);
    line({b.min.x, b.max.y}, {b.min.x, b.min.y}, colour);
  }
  void quad(const quadbin::AABB& b, sf::Color colour) {
    const sf::Vector2f p[4] = {
        {b.min.x, b.min.y}, {b.max.x, b.min.y}, {b.max.x, b.max.y}, {b.min.x, b.max.y}};
    for (const int k : {0, 1, 2, 0, 2, 3}) fills_.append({p[k], colour});
  }
  void line(sf::Vector2f a, sf::Vector2f b, sf::Color colour) {
    lines_.append({a, colour});
    lines_.append({b, colour});
  }

  sf::VertexArray& lines_;
  sf::VertexArray& fills_;
  quadbin::AABB world_;
  float pixel_;
  Shading shading_;
  std::uint32_t axis_ = 0;
  std::vector<Interval> intervals_;
};

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

}  // namespace

sf::View Renderer::worldView(const sf::RenderTarget& target, const Simulation& sim) const {
  // The world's bounds, as large as the target allows with its aspect kept.
  const quadbin::AABB& b = sim.world().def().bounds;
  const float w = b.max.x - b.min.x, h = b.max.y - b.min.y;
  const auto size = target.getSize();
  const auto tw = static_cast<float>(size.x);
  const auto th = static_cast<float>(size.y);
  const float scale = std::min(tw / w, th / h);
  const float vw = w * scale / tw, vh = h * scale / th;
  sf::View view(sf::FloatRect(b.min.x, b.min.y, w, h));
  view.setViewport(sf::FloatRect((1.0f - vw) * 0.5f, (1.0f - vh) * 0.5f, vw, vh));
  return view;
}

float Renderer::worldPerPixel(const sf::RenderTarget& target, const Simulation& sim) const {
  const sf::View view = worldView(target, sim);
  return view.getSize().x / (view.getViewport().width * static_cast<float>(target.getSize().x));
}

quadbin::Vec2 Renderer::toWorld(const sf::RenderTarget& target, sf::Vector2i pixel,
                                const Simulation& sim) const {
  const sf::Vector2f p = target.mapPixelToCoords(pixel, worldView(target, sim));
  return {p.x, p.y};
}

void Renderer::draw(sf::RenderTarget& target, const Simulation& sim, const View& view) {
  target.clear(kBackground);
  target.setView(worldView(target, sim));
  if (view.overlay) drawOverlay(target, sim);
  drawBalls(target, sim, view);
  target.setView(target.getDefaultView());
  if (font_ != nullptr) drawText(target, sim, view);
}

void Renderer::findContacts(const Simulation& sim) {
  // Touching = within 1% of the sum of the radii (the solver separates
  // balls to that tolerance); each pair once, by its lower dense index.
  const quadbin::World& w = sim.world();
  const std::uint32_t n = w.bodyCount();
  touching_.assign(n, 0);
  contactA_.clear();
  contactB_.clear();
  std::vector<std::uint32_t> denseOfSlot;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t slot = w.bodyAt(i).index;
    if (slot >= denseOfSlot.size()) denseOfSlot.resize(slot + 1, UINT32_MAX);
    denseOfSlot[slot] = i;
  }
  std::vector<quadbin::BodyId> near;
  for (std::uint32_t i = 0; i < n; ++i) {
    const quadbin::BodyId id = w.bodyAt(i);
    const float r = w.radius(id);
    near.clear();
    w.queryRadius(w.position(id), r * 1.01f, near);
    for (const quadbin::BodyId other : near) {
      const std::uint32_t j = denseOfSlot[other.index];
      if (j <= i) continue;
      touching_[i] = touching_[j] = 1;
      contactA_.push_back(i);
      contactB_.push_back(j);
    }
  }
}

void Renderer::drawBalls(sf::RenderTarget& target, const Simulation& sim, const View& view) {
  const quadbin::World& w = sim.world();
  const std::uint32_t n = w.bodyCount();
  const float pixel = worldPerPixel(target, sim);
  if (view.contacts) {
    findContacts(sim);
  } else {
    touching_.assign(n, 0);
    contactA_.clear();
    contactB_.clear();
  }
  const auto grabbed = sim.grabbed();
  balls_.clear();
  for (std::uint32_t i = 0; i < n; ++i) {
    const quadbin::BodyId id = w.bodyAt(i);
    const quadbin::Vec2 c = w.position(id);
    const float r = w.radius(id);
    // Enough sides to look round at this size, few for balls of a pixel.
    const int sides = std::clamp(static_cast<int>(r / pixel * 1.5f), 6, 40);
    const sf::Color colour = (grabbed && *grabbed == id) ? kGrabbed
                             : touching_[i]              ? kTouching
                                                         : kBall;
    const float step = 2.0f * std::numbers::pi_v<float> / static_cast<float>(sides);
    sf::Vector2f previous(c.x + r, c.y);
    for (int k = 1; k <= sides; ++k) {
      const float a = step * static_cast<float>(k);
      const sf::Vector2f next(c.x + r * std::cos(a), c.y + r * std::sin(a));
      balls_.append({{c.x, c.y}, colour});
      balls_.append({previous, colour});
      balls_.append({next, colour});
      previous = next;
    }
  }
  target.draw(balls_);
  lines_.clear();
  for (std::size_t k = 0; k < contactA_.size(); ++k) {
    lines_.append({at(w.position(w.bodyAt(contactA_[k]))), kContactLine});
    lines_.append({at(w.position(w.bodyAt(contactB_[k]))), kContactLine});
  }
  const quadbin::AABB& b = w.def().bounds;
  for (const auto& [p, q] : {std::pair{b.min, quadbin::Vec2{b.max.x, b.min.y}},
                             std::pair{quadbin::Vec2{b.max.x, b.min.y}, b.max},
                             std::pair{b.max, quadbin::Vec2{b.min.x, b.max.y}},
                             std::pair{quadbin::Vec2{b.min.x, b.max.y}, b.min}}) {
    lines_.append({at(p), kBorder});
    lines_.append({at(q), kBorder});
  }
  target.draw(lines_);
}

void Renderer::drawOverlay(sf::RenderTarget& target, const Simulation& sim) {
  lines_.clear();
  fills_.clear();
  const quadbin::BroadPhase& bp = sim.world().broadPhase();
  quadbin::BroadPhaseType shown = bp.type();
  if (const auto* picker = dynamic_cast<const quadbin::AutoBroadPhase*>(&bp)) {
    shown = picker->active();
  }
  OverlayDraw out(lines_, fills_, sim.world().def().bounds, worldPerPixel(target, sim),
                  shadingFor(shown));
  bp.draw(out);
  out.finishIntervals();
  target.draw(fills_);
  target.draw(lines_);
}

void Renderer::drawText(sf::RenderTarget& target, const Simulation& sim, const View& view) {
  const quadbin::World& w = sim.world();
  const quadbin::StepStats& s = w.stats();
  const quadbin::BroadPhase& bp = w.broadPhase();
  std::string name(quadbin::toString(bp.type()));
  if (const auto* picker = dynamic_cast<const quadbin::AutoBroadPhase*>(&bp)) {
    name += " -> " + std::string(quadbin::toString(picker->active()));
  }
  const double other = std::max(0.0, s.totalMs - s.broadPhaseMs - s.narrowPhaseMs - s.solverMs);
  std::string text = name + (view.overlay ? "" : "  (overlay off)") + "\n";
  text += std::to_string(w.bodyCount()) + " balls | " +
          std::string(quadbin::scenes::toString(sim.sceneKind())) + " | " +
          std::to_string(sim.threads()) + (sim.threads() == 1 ? " thread" : " threads") +
          " | step " + std::to_string(sim.steps()) + "\n";
  text += "step " + fixed(s.totalMs, 2) + " ms: broad " + fixed(s.broadPhaseMs, 2) + ", narrow " +
          fixed(s.narrowPhaseMs, 2) + ", solver " + fixed(s.solverMs, 2) + ", other " +
          fixed(other, 2) + "\n";
  text += "pairs " + std::to_string(s.candidatePairs) + " | contacts " + std::to_string(s.contacts);
  // Achieved (the window runs at most 60 frames per second) and what the
  // step alone would allow.
  if (view.stepsPerSecond > 0.0) text += " | " + fixed(view.stepsPerSecond, 0) + " steps/s";
  if (sim.stepMs() > 0.0) text += " | step alone " + fixed(1000.0 / sim.stepMs(), 0) + "/s";
  text += "\n";
  text += view.paused ? "PAUSED  (Space: run, S: one step)  H: keys" : "H: keys";
  if (view.help) {
    text +=
        "\n\n"
        "1..9, 0     broad phase (Tab / Shift+Tab: next / previous)\n"
        "A / D       add / remove 1,000 balls\n"
        "Space       pause / run;  S: one step while paused\n"
        "O           structure overlay on / off\n"
        "C           contact highlight on / off\n"
        "+ / -       one thread more / less\n"
        "R           reset the scene\n"
        "left drag   pull a ball;  right click: burst of 100 balls\n"
        "H           this help;  Esc / Q: quit";
  }
  if (!view.hud && !view.help) return;
  if (!view.hud) text = text.substr(text.find("\n\n") + 2);

  const auto size = target.getSize();
  const auto charSize =
      static_cast<unsigned>(std::clamp(static_cast<float>(size.y) / 55.0f, 10.0f, 16.0f));
  sf::Text label(text, *font_, charSize);
  label.setFillColor(sf::Color(235, 235, 235));
  label.setPosition(8.0f, 6.0f);
  const sf::FloatRect box = label.getGlobalBounds();
  sf::RectangleShape backdrop({box.width + 12.0f, box.height + 12.0f});
  backdrop.setPosition(box.left - 6.0f, box.top - 6.0f);
  backdrop.setFillColor(sf::Color(0, 0, 0, 160));
  target.draw(backdrop);
  target.draw(label);
}

}  // namespace demo
