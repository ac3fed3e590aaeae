#pragma once
// The scene-file reader of quadbin-perf (scenes::readScene) on arbitrary
// bytes: it either reads a scene that makeWorld builds, or throws
// quadbin::Error with one short line that starts with `file:line: `.
// Anything else (a crash, another exception, a long or multi-line message,
// a scene makeWorld refuses) is a failure. Shared by the GoogleTest suite
// (the cases and the committed corpus) and the libFuzzer target.

#include <cctype>
#include <cstdint>
#include <quadbin/error.hpp>
#include <quadbin/scenes/scene.hpp>
#include <sstream>
#include <string>
#include <string_view>

namespace quadbin::test::fuzz {

/// Longest error line the contract allows (tokens are quoted cut to 40
/// characters; the longest fixed text is about 120).
inline constexpr std::size_t kMaxSceneErrorLength = 300;

/// Reads `bytes` as the file `name`; returns what broke the contract, or an
/// empty string.
inline std::string checkSceneBytes(std::string_view bytes, scenes::Placement placement,
                                   const std::string& name = "fuzz.scene") {
  std::istringstream in{std::string(bytes)};
  scenes::Scene scene;
  try {
    scene = scenes::readScene(in, name, placement);
  } catch (const Error& e) {
    const std::string_view what = e.what();
    if (what.find('\n') != std::string_view::npos)
      return "a multi-line error: " + std::string(what);
    if (what.size() > kMaxSceneErrorLength) {
      return "an error of " + std::to_string(what.size()) + " characters";
    }
    const std::string prefix = name + ":";
    std::size_t at = prefix.size();
    if (what.substr(0, at) != prefix) return "an error without file:line: " + std::string(what);
    const std::size_t digits = at;
    while (at < what.size() && std::isdigit(static_cast<unsigned char>(what[at]))) ++at;
    if (at == digits || what.substr(at, 2) != ": ") {
      return "an error without file:line: " + std::string(what);
    }
    return {};
  }
  if (placement == scenes::Placement::InsideWorld) {
    try {
      (void)scenes::makeWorld(scene);
    } catch (const Error& e) {
      return std::string("a scene the reader accepted cannot be built: ") + e.what();
    }
  }
  return {};
}

}  // namespace quadbin::test::fuzz
