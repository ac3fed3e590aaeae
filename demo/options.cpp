#include "options.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

namespace demo {

namespace {

std::map<std::string, bool> onOff() { return {{"on", true}, {"off", false}}; }

// "x,y": two finite numbers, nothing else.
std::optional<quadbin::Vec2> parsePoint(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos) return std::nullopt;
  const std::string xs = text.substr(0, comma), ys = text.substr(comma + 1);
  auto number = [](const std::string& s) -> std::optional<float> {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const float v = std::strtof(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  };
  const auto x = number(xs), y = number(ys);
  if (!x || !y) return std::nullopt;
  return quadbin::Vec2{*x, *y};
}

// The options given as text, turned into Options once parsed (resolve).
struct Text {
  std::string scene = "uniform";
  std::string broadPhase;
  std::string center;
  bool listBroadPhases = false;
  CLI::Option* n = nullptr;  // --n, to tell whether it was given
};

// What is on screen: the picture's size, what is drawn, the camera.
void addViewOptions(CLI::App& app, Options& o, Text& t) {
  app.add_option("--width", o.width, "window or picture width in pixels")
      ->check(CLI::Range(16u, 8192u))
      ->capture_default_str();
  app.add_option("--height", o.height, "window or picture height in pixels")
      ->check(CLI::Range(16u, 8192u))
      ->capture_default_str();
  app.add_option("--overlay", o.overlay, "draw the broad phase's structure: on or off")
      ->transform(CLI::CheckedTransformer(onOff()))
      ->default_str("on");
  app.add_option("--contacts", o.contacts, "highlight touching balls: on or off")
      ->transform(CLI::CheckedTransformer(onOff()))
      ->default_str("on");
  app.add_option("--hud", o.hud, "show the statistics text: on or off")
      ->transform(CLI::CheckedTransformer(onOff()))
      ->default_str("on");
  app.add_option("--font", o.font, "TrueType font for the text (default: DejaVu Sans Mono)");
  app.add_option("--zoom", o.zoom,
                 "camera zoom at the start: 1 shows the whole world, 2 half its width (0.25 to "
                 "10000; the mouse wheel zooms in the window)")
      ->check(CLI::Range(0.25f, 10000.0f))
      ->capture_default_str();
  app.add_option("--center", t.center,
                 "the world point X,Y at the middle of the picture (default: the world's centre)");
}

// How the program runs: headless or a window, for how long, what it saves.
void addRunOptions(CLI::App& app, Options& o) {
  app.add_flag("--headless", o.headless, "no window: step --frames times, write --screenshot");
  app.add_option("--frames", o.frames,
                 "headless: steps before the screenshot (default 60); window: quit after this "
                 "many frames")
      ->check(CLI::Range(0u, 1000000u));
  app.add_option("--screenshot", o.screenshot,
                 "the PNG file to write (headless; window: the last frame, with --frames)");
  app.add_option("--keys", o.script,
                 "window: replay these keys, one per frame, for tests (e.g. Tab,3,A,Space,S,O,+,"
                 "-,C,R,H, burst, grab, release, ZoomIn, ZoomOut, Left, Right, Up, Down, Z)")
      ->delimiter(',');
}

// The parsed options completed from their text, or the exit code.
Parsed resolve(Options o, const Text& t) {
  const auto type = quadbin::parseBroadPhaseType(t.broadPhase);
  if (!type) {
    std::cerr << "quadbin-demo: unknown broad phase '" << t.broadPhase
              << "' (quadbin-demo --list-broadphases lists them)\n";
    return {std::nullopt, 2};
  }
  o.broadPhase = *type;
  if (!t.center.empty()) {
    o.center = parsePoint(t.center);
    if (!o.center) {
      std::cerr << "quadbin-demo: --center takes X,Y (two numbers), not '" << t.center << "'\n";
      return {std::nullopt, 2};
    }
  }
  o.pinball = t.scene == "pinball";
  if (o.pinball) {
    if (t.n->count() == 0) o.n = kDefaultPinballBalls;
  } else {
    o.scene = *quadbin::scenes::parseSceneKind(t.scene);
  }
  if (o.headless && o.screenshot.empty()) {
    std::cerr << "quadbin-demo: --headless needs --screenshot FILE.png\n";
    return {std::nullopt, 2};
  }
  return {o, 0};
}

}  // namespace

Parsed parseOptions(int argc, char** argv) {
  CLI::App app{
      "quadbin-demo: bouncing balls with the broad phase's structure drawn over them.\n"
      "Interactive by default (H shows the keys); --headless writes one PNG."};
  Options o;
  Text t;
  t.broadPhase = std::string(toString(o.broadPhase));
  app.add_option("--scene", t.scene,
                 "reference scene (uniform, clustered, mixed) or the demo's pinball table")
      ->check(CLI::IsMember({"uniform", "clustered", "mixed", "pinball"}))
      ->capture_default_str();
  t.n = app.add_option("--n", o.n, "number of balls")
            ->check(CLI::Range(0u, 2000000u))
            ->default_str(std::to_string(kDefaultBalls) + ", pinball " +
                          std::to_string(kDefaultPinballBalls));
  app.add_option("--seed", o.seed, "scene seed")->capture_default_str();
  app.add_option("--broadphase", t.broadPhase, "broad phase (--list-broadphases)")
      ->capture_default_str();
  app.add_flag("--list-broadphases", t.listBroadPhases, "print the broad phase names and exit");
  app.add_option("--threads", o.threads, "threads of the step (0: all hardware threads)")
      ->check(CLI::Range(0u, 1024u))
      ->capture_default_str();
  addViewOptions(app, o, t);
  addRunOptions(app, o);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return {std::nullopt, rc == 0 ? 0 : 2};
  }
  if (t.listBroadPhases) {
    for (const quadbin::BroadPhaseType type : quadbin::allBroadPhaseTypes()) {
      std::cout << toString(type) << '\n';
    }
    return {std::nullopt, 0};
  }
  return resolve(o, t);
}

}  // namespace demo
