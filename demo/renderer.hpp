#pragma once
// Draws the demo's picture onto any sf::RenderTarget (the window, or the
// RenderTexture of --headless): the bodies, outlines (segments and convex
// polygons) and contacts in view (through quadbin::WorldDraw), the active broad phase's structure
// (through quadbin::BroadPhaseDraw) and the text, through a camera that zooms and pans.

#include <SFML/Graphics.hpp>
#include <cstdint>
#include <optional>
#include <quadbin/engine/world_draw.hpp>
#include <string>
#include <vector>

#include "simulation.hpp"

namespace demo {

/// What part of the world is on screen.
struct Camera {
  static constexpr float kMinZoom = 0.25f;
  static constexpr float kMaxZoom = 10000.0f;
  /// 1: the whole world fits the target; 2: half its width, and so on.
  float zoom = 1.0f;
  /// The world point at the middle of the target; unset: the world's centre.
  std::optional<quadbin::Vec2> center;
};

struct View {
  Camera camera;
  bool overlay = true;
  bool contacts = true;
  bool hud = true;
  bool help = false;
  bool paused = false;
  double stepsPerSecond = 0.0;  ///< achieved, as measured by the caller
};

/// A segment or polygon as World::draw reported it (quadbin::DrawnPolygon,
/// whose vertices live only during the callback): its vertices are
/// points[first, first + count) of a list the renderer keeps.
struct DrawnOutline {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  bool closed = true;  ///< false for a segment
  quadbin::BodyType type = quadbin::BodyType::StaticBox;
};

class Renderer {
 public:
  /// `font` may be null: no text is drawn then.
  explicit Renderer(const sf::Font* font) : font_(font) {}

  void draw(sf::RenderTarget& target, const Simulation& sim, const View& view);
  /// The world point under a pixel of `target`.
  [[nodiscard]] static quadbin::Vec2 toWorld(const sf::RenderTarget& target, sf::Vector2i pixel,
                                             const Simulation& sim, const Camera& camera);
  /// World units per pixel on `target`.
  [[nodiscard]] static float worldPerPixel(const sf::RenderTarget& target, const Simulation& sim,
                                           const Camera& camera);
  /// The part of the world on `target`.
  [[nodiscard]] static quadbin::AABB visible(const sf::RenderTarget& target, const Simulation& sim,
                                             const Camera& camera);
  /// Zooms by `factor` (> 1: in) keeping the world point under `pixel` in
  /// place, within [Camera::kMinZoom, Camera::kMaxZoom].
  static void zoomAt(Camera& camera, const sf::RenderTarget& target, sf::Vector2i pixel,
                     const Simulation& sim, float factor);
  /// Moves the camera by `pixels` of the target (the world slides the other way).
  static void pan(Camera& camera, const sf::RenderTarget& target, const Simulation& sim,
                  sf::Vector2f pixels);

 private:
  [[nodiscard]] static sf::View worldView(const sf::RenderTarget& target, const Simulation& sim,
                                          const Camera& camera);
  void drawBodies(sf::RenderTarget& target, const Simulation& sim, const View& view);
  void drawOutlines(sf::RenderTarget& target, float pixel);
  /// The balls in drawnBalls_ into balls_, coloured by their contacts.
  void appendBalls(std::optional<quadbin::BodyId> grabbed, float pixel);
  /// The contacts' normals and the walls.
  void drawLines(sf::RenderTarget& target, float pixel);
  void drawOverlay(sf::RenderTarget& target, const Simulation& sim, const Camera& camera);
  void drawText(sf::RenderTarget& target, const Simulation& sim, const View& view);

  const sf::Font* font_;
  sf::VertexArray balls_{sf::Triangles};
  sf::VertexArray lines_{sf::Lines};
  sf::VertexArray fills_{sf::Triangles};
  // What World::draw reported for the frame.
  std::vector<quadbin::DrawnBall> drawnBalls_;
  std::vector<quadbin::DrawnBox> drawnBoxes_;
  std::vector<DrawnOutline> drawnOutlines_;
  std::vector<quadbin::Vec2> outlinePoints_;
  sf::VertexArray segments_{sf::Triangles};
  std::vector<quadbin::DrawnContact> drawnContacts_;
  std::optional<quadbin::AABB> walls_;
  std::vector<std::uint8_t> touchingSlot_;  // by BodyId::index
};

}  // namespace demo
