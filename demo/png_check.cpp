// quadbin-demo-png-check FILE WIDTH HEIGHT [--min-bytes B] [--min-colours C]
// Checks a picture quadbin-demo --headless wrote: it exists, has at least B
// bytes, is WIDTH x HEIGHT, and is not blank (at least C distinct colours,
// and no single colour covering more than 99% of it). Exit code 0 when it
// passes, 1 (with the reason) when not, 2 for a bad command line.

#include <SFML/Graphics/Image.hpp>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <unordered_map>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: quadbin-demo-png-check FILE WIDTH HEIGHT [--min-bytes B] "
                 "[--min-colours C]\n";
    return 2;
  }
  const std::string file = argv[1];
  const auto width = static_cast<unsigned>(std::stoul(argv[2]));
  const auto height = static_cast<unsigned>(std::stoul(argv[3]));
  std::uintmax_t minBytes = 1000;
  std::size_t minColours = 8;
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--min-bytes") {
      minBytes = std::stoull(argv[i + 1]);
    } else if (flag == "--min-colours") {
      minColours = std::stoul(argv[i + 1]);
    } else {
      std::cerr << "quadbin-demo-png-check: unknown option " << flag << '\n';
      return 2;
    }
  }
  const auto fail = [&](const std::string& why) {
    std::cerr << "quadbin-demo-png-check: " << file << ": " << why << '\n';
    return 1;
  };
  if (!std::filesystem::exists(file)) return fail("does not exist");
  const std::uintmax_t bytes = std::filesystem::file_size(file);
  if (bytes < minBytes) {
    return fail(std::to_string(bytes) + " bytes, expected at least " + std::to_string(minBytes));
  }
  sf::Image image;
  if (!image.loadFromFile(file)) return fail("not a readable image");
  const sf::Vector2u size = image.getSize();
  if (size.x != width || size.y != height) {
    return fail(std::to_string(size.x) + "x" + std::to_string(size.y) + ", expected " +
                std::to_string(width) + "x" + std::to_string(height));
  }
  std::unordered_map<std::uint32_t, std::uint32_t> colours;
  for (unsigned y = 0; y < size.y; ++y) {
    for (unsigned x = 0; x < size.x; ++x) ++colours[image.getPixel(x, y).toInteger()];
  }
  std::uint32_t commonest = 0;
  for (const auto& [colour, count] : colours) commonest = std::max(commonest, count);
  const double pixels = static_cast<double>(size.x) * size.y;
  if (colours.size() < minColours) {
    return fail(std::to_string(colours.size()) + " distinct colours, expected at least " +
                std::to_string(minColours));
  }
  if (static_cast<double>(commonest) > 0.99 * pixels) {
    return fail("one colour covers more than 99% of the picture: blank");
  }
  std::cout << file << ": " << size.x << "x" << size.y << ", " << bytes << " bytes, "
            << colours.size() << " colours, commonest covers "
            << static_cast<int>(100.0 * commonest / pixels) << "%\n";
  return 0;
}
