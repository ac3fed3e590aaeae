#include "renderer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <quadbin/broadphase/auto.hpp>
#include <quadbin/broadphase/broadphase.hpp>
#include <string>

namespace demo {

namespace {

const sf::Color kBackground(16, 18, 24);
const sf::Color kBall(215, 218, 228);
const sf::Color kTouching(255, 80, 60);
const sf::Color kGrabbed(120, 255, 120);
const sf::Color kContactLine(255, 235, 90, 255);  // normals: yellow over the red balls
const sf::Color kBorder(140, 140, 150);
const sf::Color kAsleep(130, 140, 175);
const sf::Color kStaticBox(95, 100, 115);
const sf::Color kStaticEdge(150, 156, 175);  // a polygon's rim
const sf::Color kKinematic(70, 150, 160);    // a kinematic outline (the paddle)
const sf::Color kKinematicEdge(120, 210, 220);

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

sf::View Renderer::worldView(const sf::RenderTarget& target, const Simulation& sim,
                             const Camera& camera) {
  // At zoom 1 the world's bounds as large as the target allows, its aspect
  // kept; the camera's centre in the middle of the target.
  const quadbin::AABB& b = sim.world().def().bounds;
  const auto size = target.getSize();
  const auto tw = static_cast<float>(size.x);
  const auto th = static_cast<float>(size.y);
  const float fit = std::min(tw / (b.max.x - b.min.x), th / (b.max.y - b.min.y));
  const float perPixel = 1.0f / (fit * camera.zoom);
  const quadbin::Vec2 c = camera.center.value_or(b.center());
  // A negative height turns the picture upside down: y up for a world
  // under gravity.
  const float flip = sim.yUp() ? -1.0f : 1.0f;
  return {{c.x, c.y}, {tw * perPixel, flip * th * perPixel}};
}

float Renderer::worldPerPixel(const sf::RenderTarget& target, const Simulation& sim,
                              const Camera& camera) {
  return worldView(target, sim, camera).getSize().x / static_cast<float>(target.getSize().x);
}

quadbin::AABB Renderer::visible(const sf::RenderTarget& target, const Simulation& sim,
                                const Camera& camera) {
  const sf::View view = worldView(target, sim, camera);
  const sf::Vector2f c = view.getCenter();
  const sf::Vector2f half{std::abs(view.getSize().x) * 0.5f, std::abs(view.getSize().y) * 0.5f};
  return {{c.x - half.x, c.y - half.y}, {c.x + half.x, c.y + half.y}};
}

quadbin::Vec2 Renderer::toWorld(const sf::RenderTarget& target, sf::Vector2i pixel,
                                const Simulation& sim, const Camera& camera) {
  const sf::Vector2f p = target.mapPixelToCoords(pixel, worldView(target, sim, camera));
  return {p.x, p.y};
}

void Renderer::zoomAt(Camera& camera, const sf::RenderTarget& target, sf::Vector2i pixel,
                      const Simulation& sim, float factor) {
  const quadbin::Vec2 fixedPoint = toWorld(target, pixel, sim, camera);
  const quadbin::Vec2 c = camera.center.value_or(sim.world().def().bounds.center());
  const float zoom = std::clamp(camera.zoom * factor, Camera::kMinZoom, Camera::kMaxZoom);
  // The point under the pixel stays: its offset from the centre scales by
  // old zoom / new zoom.
  camera.center = fixedPoint + (c - fixedPoint) * (camera.zoom / zoom);
  camera.zoom = zoom;
}

void Renderer::pan(Camera& camera, const sf::RenderTarget& target, const Simulation& sim,
                   sf::Vector2f pixels) {
  const float perPixel = worldPerPixel(target, sim, camera);
  const quadbin::Vec2 c = camera.center.value_or(sim.world().def().bounds.center());
  const float flip = sim.yUp() ? -1.0f : 1.0f;
  camera.center = c + quadbin::Vec2{pixels.x, flip * pixels.y} * perPixel;
}

void Renderer::draw(sf::RenderTarget& target, const Simulation& sim, const View& view) {
  target.clear(kBackground);
  target.setView(worldView(target, sim, view.camera));
  if (view.overlay) drawOverlay(target, sim, view.camera);
  drawBodies(target, sim, view);
  target.setView(target.getDefaultView());
  if (font_ != nullptr) drawText(target, sim, view);
}

namespace {

// Keeps what World::draw reports, to turn into vertices once complete (a
// ball's colour depends on contacts reported after it). A polygon's
// vertices are valid during its callback only: they are copied.
class Collector final : public quadbin::WorldDraw {
 public:
  Collector(std::vector<quadbin::DrawnBall>& balls, std::vector<quadbin::DrawnBox>& boxes,
            std::vector<DrawnOutline>& outlines, std::vector<quadbin::Vec2>& points,
            std::vector<quadbin::DrawnContact>& contacts, std::optional<quadbin::AABB>& walls)
      : balls_(balls),
        boxes_(boxes),
        outlines_(outlines),
        points_(points),
        contacts_(contacts),
        walls_(walls) {
    balls_.clear();
    boxes_.clear();
    outlines_.clear();
    points_.clear();
    contacts_.clear();
    walls_.reset();
  }
  void ball(const quadbin::DrawnBall& ball) override { balls_.push_back(ball); }
  void staticBox(const quadbin::DrawnBox& box) override { boxes_.push_back(box); }
  void polygon(const quadbin::DrawnPolygon& polygon) override {
    outlines_.push_back({static_cast<std::uint32_t>(points_.size()),
                         static_cast<std::uint32_t>(polygon.vertices.size()), polygon.closed,
                         polygon.type});
    points_.insert(points_.end(), polygon.vertices.begin(), polygon.vertices.end());
  }
  void walls(const quadbin::AABB& bounds) override { walls_ = bounds; }
  void contact(const quadbin::DrawnContact& contact) override { contacts_.push_back(contact); }

 private:
  std::vector<quadbin::DrawnBall>& balls_;
  std::vector<quadbin::DrawnBox>& boxes_;
  std::vector<DrawnOutline>& outlines_;
  std::vector<quadbin::Vec2>& points_;
  std::vector<quadbin::DrawnContact>& contacts_;
  std::optional<quadbin::AABB>& walls_;
};

}  // namespace

void Renderer::drawBodies(sf::RenderTarget& target, const Simulation& sim, const View& view) {
  const quadbin::World& w = sim.world();
  const float pixel = worldPerPixel(target, sim, view.camera);
  // Only what is in view: World::draw finds it through the broad phase, so
  // a zoomed-in view of a big world costs little.
  quadbin::WorldDrawOptions options;
  options.contacts = view.contacts;
  options.region = visible(target, sim, view.camera);
  Collector collector(drawnBalls_, drawnBoxes_, drawnOutlines_, outlinePoints_, drawnContacts_,
                      walls_);
  w.draw(collector, options);
  drawOutlines(target, pixel);
  balls_.clear();
  appendBalls(sim.grabbed(), pixel);
  for (const quadbin::DrawnBox& box : drawnBoxes_) {
    const quadbin::AABB& b = box.box;
    const sf::Vector2f p[4] = {
        {b.min.x, b.min.y}, {b.max.x, b.min.y}, {b.max.x, b.max.y}, {b.min.x, b.max.y}};
    for (const int k : {0, 1, 2, 0, 2, 3}) balls_.append({p[k], kStaticBox});
  }
  target.draw(balls_);
  drawLines(target, pixel);
}

void Renderer::appendBalls(std::optional<quadbin::BodyId> grabbed, float pixel) {
  touchingSlot_.assign(touchingSlot_.size(), 0);
  auto mark = [&](quadbin::BodyId id) {
    if (id.isNull()) return;
    if (id.index >= touchingSlot_.size()) touchingSlot_.resize(id.index + 1, 0);
    touchingSlot_[id.index] = 1;
  };
  for (const quadbin::DrawnContact& c : drawnContacts_) {
    mark(c.a);
    mark(c.b);
  }
  for (const quadbin::DrawnBall& ball : drawnBalls_) {
    const quadbin::Vec2 c = ball.center;
    const float r = ball.radius;
    // Enough sides to look round at this size, few for balls of a pixel.
    const int sides = std::clamp(static_cast<int>(r / pixel * 1.5f), 6, 40);
    const bool touching = ball.id.index < touchingSlot_.size() && touchingSlot_[ball.id.index];
    const sf::Color colour = (grabbed && *grabbed == ball.id) ? kGrabbed
                             : touching                       ? kTouching
                             : ball.awake                     ? kBall
                                                              : kAsleep;
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
}

void Renderer::drawLines(sf::RenderTarget& target, float pixel) {
  lines_.clear();
  // Each contact: a tick from its point along the normal (a towards b),
  // 10 pixels long at any zoom.
  const float tick = 10.0f * pixel;
  for (const quadbin::DrawnContact& c : drawnContacts_) {
    lines_.append({at(c.point), kContactLine});
    lines_.append({at(c.point + c.normal * tick), kContactLine});
  }
  if (walls_) {
    const quadbin::AABB& b = *walls_;
    for (const auto& [p, q] : {std::pair{b.min, quadbin::Vec2{b.max.x, b.min.y}},
                               std::pair{quadbin::Vec2{b.max.x, b.min.y}, b.max},
                               std::pair{b.max, quadbin::Vec2{b.min.x, b.max.y}},
                               std::pair{quadbin::Vec2{b.min.x, b.max.y}, b.min}}) {
      lines_.append({at(p), kBorder});
      lines_.append({at(q), kBorder});
    }
  }
  target.draw(lines_);
}

void Renderer::drawOutlines(sf::RenderTarget& target, float pixel) {
  // Segments as bands 3 pixels wide at any zoom; polygons filled, with a rim.
  segments_.clear();
  const float half = 1.5f * pixel;
  sf::ConvexShape shape;
  shape.setOutlineThickness(-pixel);  // inside the polygon: its true extent
  for (const DrawnOutline& o : drawnOutlines_) {
    const bool kinematic = o.type == quadbin::BodyType::Kinematic;
    const quadbin::Vec2* v = outlinePoints_.data() + o.first;
    if (!o.closed) {
      const sf::Color colour = kinematic ? kKinematicEdge : kStaticEdge;
      for (std::uint32_t k = 0; k + 1 < o.count; ++k) {
        const quadbin::Vec2 d = v[k + 1] - v[k];
        const float length = std::sqrt(dot(d, d));
        if (length == 0.0f) continue;
        const quadbin::Vec2 side = quadbin::Vec2{-d.y, d.x} * (half / length);
        const sf::Vector2f p[4] = {at(v[k] - side), at(v[k + 1] - side), at(v[k + 1] + side),
                                   at(v[k] + side)};
        for (const int i : {0, 1, 2, 0, 2, 3}) segments_.append({p[i], colour});
      }
      continue;
    }
    shape.setPointCount(o.count);
    for (std::uint32_t k = 0; k < o.count; ++k) shape.setPoint(k, at(v[k]));
    shape.setFillColor(kinematic ? kKinematic : kStaticBox);
    shape.setOutlineColor(kinematic ? kKinematicEdge : kStaticEdge);
    target.draw(shape);
  }
  target.draw(segments_);
}

void Renderer::drawOverlay(sf::RenderTarget& target, const Simulation& sim, const Camera& camera) {
  lines_.clear();
  fills_.clear();
  const quadbin::BroadPhase& bp = sim.world().broadPhase();
  quadbin::BroadPhaseType shown = bp.type();
  if (const auto* picker = dynamic_cast<const quadbin::AutoBroadPhase*>(&bp)) {
    shown = picker->active();
  }
  OverlayDraw out(lines_, fills_, sim.world().def().bounds, worldPerPixel(target, sim, camera),
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
  const double other = std::max(0.0, s.totalMs - s.broadPhaseMs - s.contactsMs - s.solverMs);
  std::string text = name + (view.overlay ? "" : "  (overlay off)") + "\n";
  text += std::to_string(sim.ballCount()) + " balls" +
          (sim.waitingBalls() > 0 ? " (+" + std::to_string(sim.waitingBalls()) + " to drop)" : "") +
          " | " + std::string(sim.sceneName()) + " | " + std::to_string(sim.threads()) +
          (sim.threads() == 1 ? " thread" : " threads") + " | step " + std::to_string(sim.steps()) +
          "\n";
  text += "step " + fixed(s.totalMs, 2) + " ms: broad " + fixed(s.broadPhaseMs, 2) + ", contacts " +
          fixed(s.contactsMs, 2) + ", solver " + fixed(s.solverMs, 2) + ", other " +
          fixed(other, 2) + "\n";
  text += "pairs " + std::to_string(s.candidatePairs) + " | contacts " + std::to_string(s.contacts);
  // Achieved (the window runs at most 60 frames per second) and what the
  // step alone would allow.
  if (view.stepsPerSecond > 0.0) text += " | " + fixed(view.stepsPerSecond, 0) + " steps/s";
  if (sim.stepMs() > 0.0) text += " | step alone " + fixed(1000.0 / sim.stepMs(), 0) + "/s";
  text += "\n";
  if (view.camera.zoom != 1.0f || view.camera.center) {
    const quadbin::AABB seen = visible(target, sim, view.camera);
    text += "zoom x" + fixed(view.camera.zoom, 2) + " | view " + fixed(seen.min.x, 1) + ", " +
            fixed(seen.min.y, 1) + " .. " + fixed(seen.max.x, 1) + ", " + fixed(seen.max.y, 1) +
            " | " + std::to_string(drawnBalls_.size()) + " balls drawn  (Z: reset)\n";
  }
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
        "left drag   pull a ball (on empty space: pan);  right click: burst\n"
        "wheel       zoom around the pointer (PageUp / PageDown: at the centre)\n"
        "arrows      pan;  middle drag: pan;  Z / Home: whole world\n"
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
