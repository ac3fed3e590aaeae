#include "report.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <thread>

// Baked in by perf/CMakeLists.txt; defaults keep the file buildable alone.
#ifndef QUADBIN_PERF_COMPILER
#define QUADBIN_PERF_COMPILER "unknown"
#endif
#ifndef QUADBIN_PERF_BUILD_TYPE
#define QUADBIN_PERF_BUILD_TYPE "unknown"
#endif
#ifndef QUADBIN_PERF_CXX_FLAGS
#define QUADBIN_PERF_CXX_FLAGS ""
#endif
#ifndef QUADBIN_PERF_GIT_COMMIT
#define QUADBIN_PERF_GIT_COMMIT "unknown"
#endif

namespace quadbin::perf {

namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  const auto end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "model name" || key == "Model" || key == "cpu model") {
      std::string value = trim(line.substr(colon + 1));
      if (!value.empty()) return value;
    }
  }
  return "unknown";
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

std::string osName() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A name that is safe as one path component.
std::string fileNameOf(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  return out;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string cellJson(const Cell& cell) {
  if (cell.text.empty()) return "null";
  return cell.number ? cell.text : jsonString(cell.text);
}

void writeFile(const std::filesystem::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

Machine describeMachine() {
  Machine m;
  m.cpu = cpuModel();
  m.logicalCpus = std::thread::hardware_concurrency();
  m.hostname = hostName();
  m.os = osName();
  m.compiler = QUADBIN_PERF_COMPILER;
  m.buildType = QUADBIN_PERF_BUILD_TYPE;
  m.cxxFlags = QUADBIN_PERF_CXX_FLAGS;
  m.gitCommit = QUADBIN_PERF_GIT_COMMIT;
  m.date = utcNow();
  return m;
}

std::filesystem::path defaultResultDir(const Machine& machine) {
  std::string name = fileNameOf(machine.hostname);
  if (name.empty()) name = fileNameOf(machine.cpu);
  if (name.empty()) name = "unknown";
  // The date's digits, YYYYMMDD-HHMMSS: folders sort by time.
  std::string stamp;
  for (const char c : machine.date) {
    if (c >= '0' && c <= '9') stamp += c;
  }
  // Not stamp.insert(8, "-"): GCC 12 at -O3 takes it for an overlapping
  // memcpy (a false -Werror=restrict).
  if (stamp.size() > 8) stamp = stamp.substr(0, 8) + '-' + stamp.substr(8);
  if (!stamp.empty()) name += "-" + stamp;
  const auto results = std::filesystem::path("perf") / "results";
  // Two commands started in the same second: the second gets its own folder.
  auto dir = results / name;
  for (int i = 2; std::filesystem::exists(dir); ++i)
    dir = results / (name + "-" + std::to_string(i));
  return dir;
}

Cell text(std::string value) { return {std::move(value), false}; }
Cell integer(unsigned long long value) { return {std::to_string(value), true}; }
Cell real(double value, int precision, bool scientific) {
  char buf[64];
  std::snprintf(buf, sizeof buf, scientific ? "%.*e" : "%.*f", precision, value);
  return {buf, true};
}
Cell blank() { return {}; }

std::string jsonString(const std::string& value) {
  std::string out = "\"";
  for (const char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string jsonObject(const JsonObject& members, int indent) {
  if (members.empty()) return "{}";
  const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
  std::string out = "{\n";
  for (std::size_t i = 0; i < members.size(); ++i) {
    out += pad + jsonString(members[i].first) + ": " + members[i].second;
    out += i + 1 < members.size() ? ",\n" : "\n";
  }
  return out + std::string(static_cast<std::size_t>(indent), ' ') + "}";
}

std::string jsonArray(const std::vector<std::string>& rawItems) {
  std::string out = "[";
  for (std::size_t i = 0; i < rawItems.size(); ++i) {
    if (i) out += ", ";
    out += rawItems[i];
  }
  return out + "]";
}

std::string machineJson(const Machine& m, int indent) {
  JsonObject members{{"cpu", jsonString(m.cpu)},
                     {"logical_cpus", std::to_string(m.logicalCpus)},
                     {"hostname", jsonString(m.hostname)},
                     {"os", jsonString(m.os)},
                     {"compiler", jsonString(m.compiler)},
                     {"build_type", jsonString(m.buildType)},
                     {"cxx_flags", jsonString(m.cxxFlags)},
                     {"git_commit", jsonString(m.gitCommit)},
                     {"date", jsonString(m.date)}};
  if (m.load) {
    char buf[32];
    auto num = [&](double v) {
      std::snprintf(buf, sizeof buf, "%.3f", v);
      return std::string(buf);
    };
    members.emplace_back(
        "load", jsonObject({{"others_cpus_mean", num(m.load->othersCpusMean)},
                            {"others_cpus_max", num(m.load->othersCpusMax)},
                            {"others_cpus_max_during", jsonString(m.load->maxDuring)},
                            {"load_avg_max", num(m.load->loadAvgMax)},
                            {"busy", m.load->busy ? "true" : "false"},
                            {"warning", m.load->busy ? jsonString(m.load->warning) : "null"}},
                           indent + 2));
  }
  return jsonObject(members, indent);
}

void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows,
                const std::vector<bool>& rightAlign) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::size_t w = i < width.size() ? width[i] : row[i].size();
      const std::string pad(w > row[i].size() ? w - row[i].size() : 0, ' ');
      if (i) line += "  ";
      line += (i < rightAlign.size() && rightAlign[i]) ? pad + row[i] : row[i] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  };
  print(header);
  for (const auto& row : rows) print(row);
}

std::vector<std::filesystem::path> writeResults(const std::filesystem::path& dir,
                                                const std::string& name, const Table& table,
                                                const Machine& machine, const JsonObject& options,
                                                const std::vector<std::string>& argv) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());

  std::string csv;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (i) csv += ',';
    csv += table.columns[i];
  }
  csv += '\n';
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) csv += ',';
      csv += csvField(row[i].text);
    }
    csv += '\n';
  }

  std::vector<std::string> rows, columns, args;
  for (const auto& c : table.columns) columns.push_back(jsonString(c));
  for (const auto& a : argv) args.push_back(jsonString(a));
  for (const auto& row : table.rows) {
    JsonObject members;
    for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i) {
      members.emplace_back(table.columns[i], cellJson(row[i]));
    }
    rows.push_back(jsonObject(members, 4));
  }
  std::string results = "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    results += i ? ",\n    " : "\n    ";
    results += rows[i];
  }
  results += rows.empty() ? "]" : "\n  ]";
  const std::string json = jsonObject({{"command", jsonString(name)},
                                       {"argv", jsonArray(args)},
                                       {"machine", machineJson(machine, 2)},
                                       {"options", jsonObject(options, 2)},
                                       {"columns", jsonArray(columns)},
                                       {"results", results}}) +
                           "\n";

  const auto csvPath = dir / (name + ".csv");
  const auto jsonPath = dir / (name + ".json");
  const auto machinePath = dir / "machine.json";
  writeFile(csvPath, csv);
  writeFile(jsonPath, json);
  writeFile(machinePath, machineJson(machine) + "\n");
  return {csvPath, jsonPath, machinePath};
}

}  // namespace quadbin::perf
