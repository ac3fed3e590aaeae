#pragma once
// quadbin-demo's command line (docs/demo.md).

#include <cstdint>
#include <optional>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>

namespace demo {

struct Options {
  quadbin::scenes::SceneKind scene = quadbin::scenes::SceneKind::Uniform;
  std::uint32_t n = 3000;
  std::uint64_t seed = quadbin::scenes::kDefaultSeed;
  quadbin::BroadPhaseType broadPhase = quadbin::BroadPhaseType::Quadtree;
  std::uint32_t threads = 0;  ///< 0: all hardware threads
  std::uint32_t width = 960;
  std::uint32_t height = 960;
  bool overlay = true;
  bool contacts = true;
  bool hud = true;
  std::string font;  ///< empty: look in the usual places

  bool headless = false;
  std::uint32_t frames = 60;  ///< headless: steps before the screenshot
  std::string screenshot;     ///< headless: the PNG to write
};

/// The options, or the exit code when the program should stop now (0 after
/// --help or --list-broadphases, 2 for a bad command line, with a message
/// on stderr).
struct Parsed {
  std::optional<Options> options;
  int exitCode = 0;
};
[[nodiscard]] Parsed parseOptions(int argc, char** argv);

}  // namespace demo
