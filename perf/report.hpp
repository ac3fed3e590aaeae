#pragma once
// What quadbin-perf writes: result tables as CSV (header + rows, nothing
// else) and JSON (the same rows, the options and the machine), and the
// machine description (machine.json).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace quadbin::perf {

/// How busy the machine was while a command measured (load.hpp).
struct MachineLoad {
  double othersCpusMean = 0.0;  ///< other processes' CPUs, on average over the command
  double othersCpusMax = 0.0;   ///< ... during the configuration where they took most
  std::string maxDuring;        ///< that configuration
  double loadAvgMax = 0.0;      ///< the largest 1-minute load average seen
  bool busy = false;
  std::string warning;  ///< one line when busy, else empty
};

/// Where and with what the numbers were measured.
struct Machine {
  std::string cpu;  ///< "model name" of /proc/cpuinfo
  unsigned logicalCpus = 0;
  std::string hostname;
  std::string os;        ///< uname: system, release, machine
  std::string compiler;  ///< CMAKE_CXX_COMPILER_ID and version, baked in at build time
  std::string buildType;
  std::string cxxFlags;
  std::string gitCommit;  ///< `git rev-parse --short HEAD` at configure time, or "unknown"
  std::string date;       ///< UTC, ISO 8601, when the command started
  std::optional<MachineLoad> load;  ///< once measured
};

[[nodiscard]] Machine describeMachine();
/// The default result folder, a new one for every command:
/// perf/results/<hostname>-<YYYYMMDD>-<HHMMSS> (the machine's UTC date; the
/// CPU model as a file name when the host has no name; "-2", "-3"... when
/// that folder exists). Never perf/results/reference/, where the committed
/// results live; .gitignore keeps the others out of git.
[[nodiscard]] std::filesystem::path defaultResultDir(const Machine& machine);

/// One value: its text ("" = blank in CSV, null in JSON) and whether JSON
/// writes it as a number.
struct Cell {
  std::string text;
  bool number = false;
};
[[nodiscard]] Cell text(std::string value);
[[nodiscard]] Cell integer(unsigned long long value);
/// A number with `precision` digits after the point (%.*f), or in
/// scientific notation when `scientific`.
[[nodiscard]] Cell real(double value, int precision, bool scientific = false);
[[nodiscard]] Cell blank();

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

/// JSON text of a string (quoted, escaped).
[[nodiscard]] std::string jsonString(const std::string& value);
/// JSON members in order: key -> raw JSON text.
using JsonObject = std::vector<std::pair<std::string, std::string>>;
[[nodiscard]] std::string jsonObject(const JsonObject& members, int indent = 0);
[[nodiscard]] std::string jsonArray(const std::vector<std::string>& rawItems);
[[nodiscard]] std::string machineJson(const Machine& machine, int indent = 0);

/// Prints a plain-text table to stdout: columns padded to their widest cell
/// (cells past the header's width as they are), right-aligned where
/// `rightAlign` says so.
void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows,
                const std::vector<bool>& rightAlign);

/// Writes `<dir>/<name>.csv`, `<dir>/<name>.json` and `<dir>/machine.json`;
/// throws std::runtime_error naming the path when a file cannot be written.
/// Returns the paths written.
std::vector<std::filesystem::path> writeResults(const std::filesystem::path& dir,
                                                const std::string& name, const Table& table,
                                                const Machine& machine, const JsonObject& options,
                                                const std::vector<std::string>& argv);

}  // namespace quadbin::perf
