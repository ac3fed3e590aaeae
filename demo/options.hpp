#pragma once
// quadbin-demo's command line (docs/demo.md).

#include <cstdint>
#include <optional>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <vector>

namespace demo {

/// --n when not given: for the reference scenes, and for the pinball scene.
inline constexpr std::uint32_t kDefaultBalls = 3000;
inline constexpr std::uint32_t kDefaultPinballBalls = 200;

struct Options {
  /// The reference scene (when `pinball` is false).
  quadbin::scenes::SceneKind scene = quadbin::scenes::SceneKind::Uniform;
  /// --scene pinball: the demo's own table of outlines (pinball.hpp)
  /// instead of a reference scene.
  bool pinball = false;
  std::uint32_t n = kDefaultBalls;
  std::uint64_t seed = quadbin::scenes::kDefaultSeed;
  quadbin::BroadPhaseType broadPhase = quadbin::BroadPhaseType::Quadtree;
  std::uint32_t threads = 0;  ///< 0: all hardware threads
  std::uint32_t width = 960;
  std::uint32_t height = 960;
  bool overlay = true;
  bool contacts = true;
  bool hud = true;
  std::string font;  ///< empty: look in the usual places
  /// The camera at the start: 1 shows the whole world, 2 half its width, ...
  float zoom = 1.0f;
  /// The world point at the middle of the picture; unset: the world's centre.
  std::optional<quadbin::Vec2> center;

  bool headless = false;
  /// Headless: steps before the screenshot (default 60). Window: quit after
  /// this many frames (default: run until closed).
  std::optional<std::uint32_t> frames;
  /// The PNG to write: headless, after the steps; window, of the last frame
  /// (when --frames ends it).
  std::string screenshot;
  /// Window: keys and mouse actions to replay, one per frame (for tests):
  /// what --keys takes, split at commas.
  std::vector<std::string> script;
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
