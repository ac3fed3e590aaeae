#pragma once
// Draws the demo's picture onto any sf::RenderTarget (the window, or the
// RenderTexture of --headless): the balls, the contacts, the active broad
// phase's structure (through quadbin::BroadPhaseDraw) and the text.

#include <SFML/Graphics.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "simulation.hpp"

namespace demo {

struct View {
  bool overlay = true;
  bool contacts = true;
  bool hud = true;
  bool help = false;
  bool paused = false;
  double stepsPerSecond = 0.0;  ///< achieved, as measured by the caller
};

class Renderer {
 public:
  /// `font` may be null: no text is drawn then.
  explicit Renderer(const sf::Font* font) : font_(font) {}

  void draw(sf::RenderTarget& target, const Simulation& sim, const View& view);
  /// The world point under a pixel of `target`.
  [[nodiscard]] quadbin::Vec2 toWorld(const sf::RenderTarget& target, sf::Vector2i pixel,
                                      const Simulation& sim) const;
  /// World units per pixel on `target`.
  [[nodiscard]] float worldPerPixel(const sf::RenderTarget& target, const Simulation& sim) const;

 private:
  [[nodiscard]] sf::View worldView(const sf::RenderTarget& target, const Simulation& sim) const;
  void drawBalls(sf::RenderTarget& target, const Simulation& sim, const View& view);
  void drawOverlay(sf::RenderTarget& target, const Simulation& sim);
  void drawText(sf::RenderTarget& target, const Simulation& sim, const View& view);
  void findContacts(const Simulation& sim);

  const sf::Font* font_;
  sf::VertexArray balls_{sf::Triangles};
  sf::VertexArray lines_{sf::Lines};
  sf::VertexArray fills_{sf::Triangles};
  std::vector<std::uint8_t> touching_;
  std::vector<std::uint32_t> contactA_, contactB_;
};

}  // namespace demo
