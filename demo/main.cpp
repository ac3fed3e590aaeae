// quadbin-demo: a window of bouncing balls with the active broad phase's
// structure drawn over them, or (--headless) one PNG of it. docs/demo.md.

#include <SFML/Graphics.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <quadbin/error.hpp>
#include <string>

#include "options.hpp"
#include "renderer.hpp"
#include "simulation.hpp"

namespace {

// The font: --font, else DejaVu Sans Mono (Debian: fonts-dejavu-core) or a
// few usual places. Without one the demo runs without text.
bool loadFont(const std::string& requested, sf::Font& font) {
  if (!requested.empty()) {
    if (font.loadFromFile(requested)) return true;
    std::cerr << "quadbin-demo: warning: cannot load the font '" << requested
              << "'; running without text\n";
    return false;
  }
  for (const char* path :
       {"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSansMono.ttf", "/usr/share/fonts/dejavu/DejaVuSansMono.ttf",
        "/usr/share/fonts/dejavu-sans-mono-fonts/DejaVuSansMono.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf"}) {
    if (std::filesystem::exists(path) && font.loadFromFile(path)) return true;
  }
  std::cerr << "quadbin-demo: warning: no font found (install fonts-dejavu-core or pass "
               "--font PATH); running without text\n";
  return false;
}

// SFML aborts the process when it cannot open an X display: say what to do
// instead.
bool haveDisplay() {
  const char* display = std::getenv("DISPLAY");
  if (display != nullptr && *display != '\0') return true;
  std::cerr << "quadbin-demo: no X display (DISPLAY is not set): OpenGL needs one, even for "
               "--headless. Run it under a virtual display: demo/run_headless.sh "
               "quadbin-demo ... (xvfb-run from the xvfb package)\n";
  return false;
}

int runHeadless(const demo::Options& o, const sf::Font* font) {
  demo::Simulation sim(o);
  for (std::uint32_t f = 0; f < o.frames.value_or(60); ++f) sim.step();
  sf::RenderTexture texture;
  if (!texture.create(o.width, o.height)) {
    std::cerr << "quadbin-demo: cannot create a " << o.width << "x" << o.height
              << " render texture (no OpenGL?)\n";
    return 1;
  }
  demo::Renderer renderer(font);
  demo::View view;
  view.camera.zoom = o.zoom;
  view.camera.center = o.center;
  view.overlay = o.overlay;
  view.contacts = o.contacts;
  view.hud = o.hud;
  renderer.draw(texture, sim, view);
  texture.display();
  if (!texture.getTexture().copyToImage().saveToFile(o.screenshot)) {
    std::cerr << "quadbin-demo: cannot write '" << o.screenshot << "'\n";
    return 1;
  }
  std::cout << "quadbin-demo: " << o.screenshot << ": " << toString(sim.broadPhase()) << ", "
            << sim.ballCount() << " balls after " << sim.steps() << " steps (" << sim.stepMs()
            << " ms per step)\n";
  return 0;
}

// The interactive window: its state and what each key and mouse button does.
class WindowApp {
 public:
  WindowApp(const demo::Options& o, const sf::Font* font)
      : options_(o),
        sim_(o),
        window_(sf::VideoMode(o.width, o.height), "quadbin demo"),
        renderer_(font) {
    window_.setFramerateLimit(60);
    view_.camera.zoom = o.zoom;
    view_.camera.center = o.center;
    view_.overlay = o.overlay;
    view_.contacts = o.contacts;
    view_.hud = o.hud;
  }

  int run() {
    std::uint64_t frame = 0;
    std::uint32_t stepsSinceCount = 0;
    auto countStart = std::chrono::steady_clock::now();
    while (window_.isOpen()) {
      sf::Event event{};
      while (window_.pollEvent(event)) handle(event);
      if (frame < options_.script.size() && !replay(options_.script[frame])) return 2;
      if (!window_.isOpen()) break;
      if (!view_.paused || stepOnce_) {
        sim_.step();
        ++stepsSinceCount;
        stepOnce_ = false;
      }
      const auto now = std::chrono::steady_clock::now();
      const double elapsed = std::chrono::duration<double>(now - countStart).count();
      if (elapsed >= 0.5) {
        view_.stepsPerSecond = static_cast<double>(stepsSinceCount) / elapsed;
        stepsSinceCount = 0;
        countStart = now;
      }
      renderer_.draw(window_, sim_, view_);
      ++frame;
      if (options_.frames && frame >= *options_.frames) return finish();
      window_.display();
    }
    return 0;
  }

 private:
  // The last frame, still in the back buffer, to --screenshot.
  int finish() {
    int rc = 0;
    if (!options_.screenshot.empty()) {
      sf::Texture texture;
      const sf::Vector2u size = window_.getSize();
      if (!texture.create(size.x, size.y)) return 1;
      texture.update(window_);
      if (!texture.copyToImage().saveToFile(options_.screenshot)) {
        std::cerr << "quadbin-demo: cannot write '" << options_.screenshot << "'\n";
        rc = 1;
      }
    }
    std::cout << "quadbin-demo: window closed after " << *options_.frames
              << " frames: " << toString(sim_.broadPhase()) << ", " << sim_.ballCount()
              << " balls, " << sim_.threads() << " threads, " << sim_.steps() << " steps\n";
    window_.close();
    return rc;
  }

  void handle(const sf::Event& event) {
    switch (event.type) {
      case sf::Event::Closed:
        window_.close();
        break;
      case sf::Event::Resized:
        window_.setView(sf::View(sf::FloatRect(0.0f, 0.0f, static_cast<float>(event.size.width),
                                               static_cast<float>(event.size.height))));
        break;
      case sf::Event::KeyPressed:
        key(event.key.code, event.key.shift);
        break;
      case sf::Event::MouseButtonPressed: {
        const sf::Vector2i pixel{event.mouseButton.x, event.mouseButton.y};
        const quadbin::Vec2 p = demo::Renderer::toWorld(window_, pixel, sim_, view_.camera);
        // Left on a ball pulls it, on empty space pans; middle always pans.
        const bool left = event.mouseButton.button == sf::Mouse::Left;
        if ((left && !grab(p)) || event.mouseButton.button == sf::Mouse::Middle) {
          panFrom_ = pixel;
        }
        if (event.mouseButton.button == sf::Mouse::Right) sim_.burst(p, 100);
        break;
      }
      case sf::Event::MouseButtonReleased:
        if (event.mouseButton.button == sf::Mouse::Left) sim_.release();
        if (event.mouseButton.button != sf::Mouse::Right) panFrom_.reset();
        break;
      case sf::Event::MouseMoved: {
        const sf::Vector2i pixel{event.mouseMove.x, event.mouseMove.y};
        if (panFrom_) {
          // The world follows the pointer.
          const sf::Vector2i moved = *panFrom_ - pixel;
          demo::Renderer::pan(view_.camera, window_, sim_,
                              {static_cast<float>(moved.x), static_cast<float>(moved.y)});
          panFrom_ = pixel;
        }
        sim_.pullTo(demo::Renderer::toWorld(window_, pixel, sim_, view_.camera));
        break;
      }
      case sf::Event::MouseWheelScrolled:
        if (event.mouseWheelScroll.wheel == sf::Mouse::VerticalWheel) {
          demo::Renderer::zoomAt(view_.camera, window_,
                                 {event.mouseWheelScroll.x, event.mouseWheelScroll.y}, sim_,
                                 std::pow(kZoomStep, event.mouseWheelScroll.delta));
        }
        break;
      default:
        break;
    }
  }

  void key(sf::Keyboard::Key code, bool shift) {
    const auto types = quadbin::allBroadPhaseTypes();
    if (code >= sf::Keyboard::Num0 && code <= sf::Keyboard::Num9) {
      // 1..9 then 0: the ten structures in --list-broadphases order.
      const int digit = static_cast<int>(code) - static_cast<int>(sf::Keyboard::Num0);
      const auto index = static_cast<std::size_t>(digit == 0 ? 9 : digit - 1);
      if (index < types.size()) sim_.setBroadPhase(types[index]);
      return;
    }
    if (cameraKey(code)) return;
    switch (code) {
      case sf::Keyboard::Tab: {
        const auto now = static_cast<std::size_t>(
            std::find(types.begin(), types.end(), sim_.broadPhase()) - types.begin());
        const std::size_t next =
            shift ? (now + types.size() - 1) % types.size() : (now + 1) % types.size();
        sim_.setBroadPhase(types[next]);
        break;
      }
      case sf::Keyboard::A:
        sim_.addBalls(1000);
        break;
      case sf::Keyboard::D:
        sim_.removeBalls(1000);
        break;
      case sf::Keyboard::Space:
        view_.paused = !view_.paused;
        break;
      case sf::Keyboard::S:
        stepOnce_ = true;
        break;
      case sf::Keyboard::O:
        view_.overlay = !view_.overlay;
        break;
      case sf::Keyboard::C:
        view_.contacts = !view_.contacts;
        break;
      case sf::Keyboard::Add:
      case sf::Keyboard::Equal:
        sim_.setThreads(std::min(sim_.threads() + 1, 256u));
        break;
      case sf::Keyboard::Subtract:
      case sf::Keyboard::Hyphen:
        sim_.setThreads(std::max(sim_.threads(), 2u) - 1);
        break;
      case sf::Keyboard::R:
        sim_.reset();
        break;
      case sf::Keyboard::H:
      case sf::Keyboard::F1:
        view_.help = !view_.help;
        break;
      case sf::Keyboard::Escape:
      case sf::Keyboard::Q:
        window_.close();
        break;
      default:
        break;
    }
  }

  // The keys that move the camera: arrows pan by a tenth of the window,
  // PageUp / PageDown zoom about its middle, Z / Home reset it. False for
  // any other key.
  bool cameraKey(sf::Keyboard::Key code) {
    switch (code) {
      case sf::Keyboard::Left:
      case sf::Keyboard::Right:
      case sf::Keyboard::Up:
      case sf::Keyboard::Down: {
        const sf::Vector2u size = window_.getSize();
        const float dx = static_cast<float>(size.x) / 10.0f;
        const float dy = static_cast<float>(size.y) / 10.0f;
        const sf::Vector2f by = code == sf::Keyboard::Left    ? sf::Vector2f{-dx, 0.0f}
                                : code == sf::Keyboard::Right ? sf::Vector2f{dx, 0.0f}
                                : code == sf::Keyboard::Up    ? sf::Vector2f{0.0f, -dy}
                                                              : sf::Vector2f{0.0f, dy};
        demo::Renderer::pan(view_.camera, window_, sim_, by);
        return true;
      }
      case sf::Keyboard::PageUp:
      case sf::Keyboard::PageDown:
        demo::Renderer::zoomAt(view_.camera, window_, middle(), sim_,
                               code == sf::Keyboard::PageUp ? kZoomStep : 1.0f / kZoomStep);
        return true;
      case sf::Keyboard::Z:
      case sf::Keyboard::Home:
        view_.camera = demo::Camera{};
        return true;
      default:
        return false;
    }
  }

  // True when a ball was under p (within a few pixels) and is now pulled.
  bool grab(quadbin::Vec2 p) {
    const float reach = 6.0f * demo::Renderer::worldPerPixel(window_, sim_, view_.camera);
    if (const auto ball = sim_.pick(p, reach)) {
      sim_.grab(*ball);
      sim_.pullTo(p);
      return true;
    }
    return false;
  }

  [[nodiscard]] sf::Vector2i middle() const {
    const sf::Vector2u size = window_.getSize();
    return {static_cast<int>(size.x / 2), static_cast<int>(size.y / 2)};
  }

  // One --keys action; false (with a message) for an unknown one.
  bool replay(const std::string& action) {
    const quadbin::AABB& b = sim_.world().def().bounds;
    const quadbin::Vec2 centre = b.center();
    if (action.size() == 1 && action[0] >= '0' && action[0] <= '9') {
      key(static_cast<sf::Keyboard::Key>(sf::Keyboard::Num0 + (action[0] - '0')), false);
      return true;
    }
    static const std::pair<const char*, sf::Keyboard::Key> kKeys[] = {
        {"Tab", sf::Keyboard::Tab},
        {"A", sf::Keyboard::A},
        {"D", sf::Keyboard::D},
        {"Space", sf::Keyboard::Space},
        {"S", sf::Keyboard::S},
        {"O", sf::Keyboard::O},
        {"C", sf::Keyboard::C},
        {"+", sf::Keyboard::Add},
        {"-", sf::Keyboard::Subtract},
        {"R", sf::Keyboard::R},
        {"H", sf::Keyboard::H},
        {"Q", sf::Keyboard::Q},
        {"Left", sf::Keyboard::Left},
        {"Right", sf::Keyboard::Right},
        {"Up", sf::Keyboard::Up},
        {"Down", sf::Keyboard::Down},
        {"Z", sf::Keyboard::Z},
        {"ZoomIn", sf::Keyboard::PageUp},
        {"ZoomOut", sf::Keyboard::PageDown}};
    for (const auto& [name, code] : kKeys) {
      if (action == name) {
        key(code, false);
        return true;
      }
    }
    if (action == "ShiftTab") {
      key(sf::Keyboard::Tab, true);
    } else if (action == "burst") {
      sim_.burst(centre, 100);
    } else if (action == "grab") {
      grab(centre);
      sim_.pullTo(centre + (b.max - centre) * 0.5f);
    } else if (action == "release") {
      sim_.release();
    } else {
      std::cerr << "quadbin-demo: unknown --keys action '" << action << "'\n";
      return false;
    }
    return true;
  }

  const demo::Options& options_;
  demo::Simulation sim_;
  sf::RenderWindow window_;
  demo::Renderer renderer_;
  demo::View view_;
  bool stepOnce_ = false;
  std::optional<sf::Vector2i> panFrom_;      // set while a drag pans
  static constexpr float kZoomStep = 1.25f;  // per wheel notch or PageUp
};

}  // namespace

int main(int argc, char** argv) {
  const demo::Parsed parsed = demo::parseOptions(argc, argv);
  if (!parsed.options) return parsed.exitCode;
  const demo::Options& o = *parsed.options;
  try {
    sf::Font font;
    const bool haveFont = (o.hud || !o.headless) && loadFont(o.font, font);
    if (!haveDisplay()) return 2;
    if (o.headless) return runHeadless(o, haveFont ? &font : nullptr);
    WindowApp app(o, haveFont ? &font : nullptr);
    return app.run();
  } catch (const quadbin::Error& e) {
    std::cerr << "quadbin-demo: " << e.what() << '\n';
    return 1;
  }
}
