// quadbin-demo: a window of bouncing balls with the active broad phase's
// structure drawn over them, or (--headless) one PNG of it. docs/demo.md.

#include <SFML/Graphics.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
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
  for (std::uint32_t f = 0; f < o.frames; ++f) sim.step();
  sf::RenderTexture texture;
  if (!texture.create(o.width, o.height)) {
    std::cerr << "quadbin-demo: cannot create a " << o.width << "x" << o.height
              << " render texture (no OpenGL?)\n";
    return 1;
  }
  demo::Renderer renderer(font);
  demo::View view;
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
            << sim.world().bodyCount() << " balls after " << sim.steps() << " steps ("
            << sim.stepMs() << " ms per step)\n";
  return 0;
}

int runWindow(const demo::Options& o, const sf::Font* font) {
  demo::Simulation sim(o);
  sf::RenderWindow window(sf::VideoMode(o.width, o.height), "quadbin demo");
  window.setFramerateLimit(60);
  demo::Renderer renderer(font);
  demo::View view;
  view.overlay = o.overlay;
  view.contacts = o.contacts;
  view.hud = o.hud;

  const auto types = quadbin::allBroadPhaseTypes();
  const auto indexOf = [&](quadbin::BroadPhaseType t) {
    return static_cast<std::size_t>(std::find(types.begin(), types.end(), t) - types.begin());
  };
  bool stepOnce = false;
  std::uint32_t stepsThisSecond = 0;
  auto secondStart = std::chrono::steady_clock::now();

  while (window.isOpen()) {
    sf::Event event{};
    while (window.pollEvent(event)) {
      if (event.type == sf::Event::Closed) window.close();
      if (event.type == sf::Event::Resized) {
        window.setView(sf::View(sf::FloatRect(0.0f, 0.0f, static_cast<float>(event.size.width),
                                              static_cast<float>(event.size.height))));
      }
      if (event.type == sf::Event::KeyPressed) {
        const sf::Keyboard::Key key = event.key.code;
        if (key >= sf::Keyboard::Num0 && key <= sf::Keyboard::Num9) {
          // 1..9 then 0: the ten structures in --list-broadphases order.
          const int digit = static_cast<int>(key) - static_cast<int>(sf::Keyboard::Num0);
          const auto index = static_cast<std::size_t>(digit == 0 ? 9 : digit - 1);
          if (index < types.size()) sim.setBroadPhase(types[index]);
        } else if (key == sf::Keyboard::Tab) {
          const std::size_t now = indexOf(sim.broadPhase());
          const std::size_t next =
              event.key.shift ? (now + types.size() - 1) % types.size() : (now + 1) % types.size();
          sim.setBroadPhase(types[next]);
        } else if (key == sf::Keyboard::A || key == sf::Keyboard::Up) {
          sim.addBalls(1000);
        } else if (key == sf::Keyboard::D || key == sf::Keyboard::Down) {
          sim.removeBalls(1000);
        } else if (key == sf::Keyboard::Space) {
          view.paused = !view.paused;
        } else if (key == sf::Keyboard::S) {
          stepOnce = true;
        } else if (key == sf::Keyboard::O) {
          view.overlay = !view.overlay;
        } else if (key == sf::Keyboard::C) {
          view.contacts = !view.contacts;
        } else if (key == sf::Keyboard::Add || key == sf::Keyboard::Equal) {
          sim.setThreads(std::min(sim.threads() + 1, 256u));
        } else if (key == sf::Keyboard::Subtract || key == sf::Keyboard::Hyphen) {
          sim.setThreads(std::max(sim.threads(), 2u) - 1);
        } else if (key == sf::Keyboard::R) {
          sim.reset();
        } else if (key == sf::Keyboard::H || key == sf::Keyboard::F1) {
          view.help = !view.help;
        } else if (key == sf::Keyboard::Escape || key == sf::Keyboard::Q) {
          window.close();
        }
      }
      if (event.type == sf::Event::MouseButtonPressed) {
        const quadbin::Vec2 p =
            renderer.toWorld(window, {event.mouseButton.x, event.mouseButton.y}, sim);
        if (event.mouseButton.button == sf::Mouse::Left) {
          // Within a few pixels of a ball counts as a hit.
          if (const auto ball = sim.pick(p, 6.0f * renderer.worldPerPixel(window, sim))) {
            sim.grab(*ball);
            sim.pullTo(p);
          }
        } else if (event.mouseButton.button == sf::Mouse::Right) {
          sim.burst(p, 100);
        }
      }
      if (event.type == sf::Event::MouseButtonReleased &&
          event.mouseButton.button == sf::Mouse::Left) {
        sim.release();
      }
      if (event.type == sf::Event::MouseMoved) {
        sim.pullTo(renderer.toWorld(window, {event.mouseMove.x, event.mouseMove.y}, sim));
      }
    }
    if (!window.isOpen()) break;
    if (!view.paused || stepOnce) {
      sim.step();
      ++stepsThisSecond;
      stepOnce = false;
    }
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - secondStart).count();
    if (elapsed >= 0.5) {
      view.stepsPerSecond = static_cast<double>(stepsThisSecond) / elapsed;
      stepsThisSecond = 0;
      secondStart = now;
    }
    renderer.draw(window, sim, view);
    window.display();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const demo::Parsed parsed = demo::parseOptions(argc, argv);
  if (!parsed.options) return parsed.exitCode;
  const demo::Options& o = *parsed.options;
  try {
    sf::Font font;
    const bool haveFont = (o.hud || !o.headless) && loadFont(o.font, font);
    if (!haveDisplay()) return 2;
    return o.headless ? runHeadless(o, haveFont ? &font : nullptr)
                      : runWindow(o, haveFont ? &font : nullptr);
  } catch (const quadbin::Error& e) {
    std::cerr << "quadbin-demo: " << e.what() << '\n';
    return 1;
  }
}
