// The scene file format of quadbin-perf (docs/perf-cli.md, "Scene files"):
// read strictly, every refusal naming file:line, write with %.17g.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <ostream>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/error.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string_view>
#include <vector>

#include "placement.hpp"

namespace quadbin::scenes {

namespace {

constexpr std::string_view kWorldLine = "# world MINX MINY MAXX MAXY";
constexpr std::string_view kHeader = "x,y,vx,vy,radius";
constexpr std::string_view kBlank = " \t\r";
// A token quoted in a message is cut to this many characters: a
// million-digit number must not make a million-character error line.
constexpr std::size_t kMaxQuoted = 40;

std::string_view trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kBlank) - first + 1);
}

// Built by appending: GCC 12 at -O3 sees a false overlap (-Werror=restrict)
// in "'" + std::string(token) + "'".
std::string quote(std::string_view token) {
  const bool cut = token.size() > kMaxQuoted;
  std::string out(1, '\'');
  out.append(token.substr(0, kMaxQuoted));
  if (cut) out.append("...");
  out.push_back('\'');
  if (cut) out.append(" (").append(std::to_string(token.size())).append(" characters)");
  return out;
}

std::string limit(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

// Splits on any run of blanks.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while ((pos = line.find_first_not_of(kBlank, pos)) != std::string_view::npos) {
    const std::size_t end = std::min(line.find_first_of(kBlank, pos), line.size());
    out.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

class Reader {
 public:
  Reader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

  // The next line, its ends trimmed; false at the end of the input (a
  // failure then names the line after the last).
  bool next(std::string_view& line) {
    ++lineNo_;
    if (!std::getline(in_, buffer_)) return false;
    line = trim(buffer_);
    return true;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(name_ + ":" + std::to_string(lineNo_) + ": " + what);
  }

  // A whole token that strtod reads, finite: denormals are numbers (strtod's
  // ERANGE on underflow is not an error), overflow to infinity is refused.
  double number(std::string_view token, const char* field) const {
    const std::string text(token);  // NUL-terminated for strtod
    if (text.empty()) fail(std::string(field) + " is empty, expected a number");
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const bool overflow = errno == ERANGE && std::isinf(value);
    // strtod skips leading white space that trim() keeps (\v, \f).
    if (end != text.c_str() + text.size() || std::isspace(static_cast<unsigned char>(text[0]))) {
      fail(std::string(field) + " = " + quote(token) + " is not a number");
    }
    if (overflow) fail(std::string(field) + " = " + quote(token) + " is too large for a double");
    if (!std::isfinite(value)) fail(std::string(field) + " = " + quote(token) + " is not finite");
    return value;
  }

  // |value| <= the World's largest coordinate.
  void coordinate(double value, std::string_view token, const char* field) const {
    if (std::abs(value) > double{limits::kMaxCoordinate}) {
      fail(std::string(field) + " = " + quote(token) + " is outside the World's limit |" + field +
           "| <= " + limit(limits::kMaxCoordinate));
    }
  }

 private:
  std::istream& in_;
  const std::string& name_;
  std::string buffer_;
  std::size_t lineNo_ = 0;
};

void readWorld(Reader& reader, Scene& s) {
  std::string_view line;
  if (!reader.next(line)) reader.fail("empty file, expected '" + std::string(kWorldLine) + "'");
  const auto w = words(line);
  if (w.size() < 2 || w[0] != "#" || w[1] != "world") {
    reader.fail("expected '" + std::string(kWorldLine) + "', got " + quote(line));
  }
  if (w.size() != 6) {
    if (w.size() < 6) reader.fail("expected 4 numbers after '# world' (MINX MINY MAXX MAXY)");
    reader.fail("unexpected " + quote(w[6]) + " after MAXY on the world line");
  }
  const char* names[4] = {"MINX", "MINY", "MAXX", "MAXY"};
  double v[4];
  for (int k = 0; k < 4; ++k) {
    v[k] = reader.number(w[2 + k], names[k]);
    reader.coordinate(v[k], w[2 + k], names[k]);
  }
  if (!(v[0] < v[2]) || !(v[1] < v[3])) {
    reader.fail("world bounds need finite MIN < MAX on both axes, got [" + std::string(w[2]) +
                ", " + std::string(w[4]) + "] x [" + std::string(w[3]) + ", " + std::string(w[5]) +
                "]");
  }
  if (!(static_cast<float>(v[0]) < static_cast<float>(v[2])) ||
      !(static_cast<float>(v[1]) < static_cast<float>(v[3]))) {
    reader.fail("world bounds need MIN < MAX once rounded to float, as the World stores them");
  }
  s.minX = v[0];
  s.minY = v[1];
  s.maxX = v[2];
  s.maxY = v[3];
  s.world = {{static_cast<float>(v[0]), static_cast<float>(v[1])},
             {static_cast<float>(v[2]), static_cast<float>(v[3])}};
}

bool ignored(std::string_view line) { return line.empty() || line.front() == '#'; }

void readBall(const Reader& reader, std::string_view line, Placement placement, Scene& s) {
  std::string_view field[5];
  int count = 0;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t end = line.find(',', pos);
    const std::string_view f = line.substr(pos, end == std::string_view::npos ? end : end - pos);
    if (count < 5) field[count] = trim(f);
    ++count;
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  if (count != 5) {
    reader.fail("expected 5 comma-separated numbers (" + std::string(kHeader) + "), got " +
                std::to_string(count) + " fields");
  }
  const char* names[5] = {"x", "y", "vx", "vy", "radius"};
  double v[5];
  for (int k = 0; k < 5; ++k) v[k] = reader.number(field[k], names[k]);
  const double x = v[0], y = v[1], vx = v[2], vy = v[3], r = v[4];
  // The World's limits (quadbin/engine/limits.hpp, docs/limits.md).
  if (!(r > 0.0)) reader.fail("radius = " + quote(field[4]) + " must be > 0");
  if (r < double{limits::kMinRadius} || r > double{limits::kMaxSize}) {
    reader.fail("radius = " + quote(field[4]) + " is outside the World's limits [" +
                limit(limits::kMinRadius) + ", " + limit(limits::kMaxSize) + "]");
  }
  reader.coordinate(x, field[0], "x");
  reader.coordinate(y, field[1], "y");
  const double largest = std::max(std::abs(x), std::abs(y));
  if (r < largest * double{limits::kMinRadiusPerCoordinate}) {
    reader.fail("radius = " + quote(field[4]) +
                " is too small for a ball this far out: the World " +
                "needs radius >= 2^-20 max(|x|, |y|) = " +
                limit(largest * double{limits::kMinRadiusPerCoordinate}));
  }
  const auto fx = static_cast<float>(vx), fy = static_cast<float>(vy);
  if (std::hypot(vx, vy) > double{limits::kMaxSpeed} ||
      std::hypot(double{fx}, double{fy}) > double{limits::kMaxSpeed}) {
    reader.fail("velocity (" + quote(field[2]) + ", " + quote(field[3]) +
                ") is faster than the World's limit of " + limit(limits::kMaxSpeed) + " units/s");
  }
  if (placement == Placement::InsideWorld) {
    Vec2 at;
    if (const std::string why = detail::placeBall(s, x, y, r, at); !why.empty()) reader.fail(why);
  }
  s.x.push_back(x);
  s.y.push_back(y);
  s.vx.push_back(vx);
  s.vy.push_back(vy);
  s.r.push_back(r);
}

}  // namespace

Scene readScene(std::istream& in, const std::string& name, Placement placement) {
  Reader reader(in, name);
  Scene s;
  readWorld(reader, s);
  std::string_view line;
  bool header = false;
  while (reader.next(line)) {
    if (ignored(line)) continue;
    if (!header) {
      if (line != kHeader) {
        reader.fail("expected header '" + std::string(kHeader) + "', got " + quote(line));
      }
      header = true;
      continue;
    }
    readBall(reader, line, placement, s);
  }
  if (!header) reader.fail("missing header '" + std::string(kHeader) + "'");
  return s;
}

Scene readSceneFile(const std::string& path, Placement placement) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open scene file");
  return readScene(in, path, placement);
}

void writeScene(std::ostream& out, const Scene& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "# world %.17g %.17g %.17g %.17g\n", s.minX, s.minY, s.maxX,
                s.maxY);
  out << buf << kHeader << '\n';
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g,%.17g\n", s.x[i], s.y[i], s.vx[i],
                  s.vy[i], s.r[i]);
    out << buf;
  }
}

}  // namespace quadbin::scenes
