#pragma once
// What run (run_command.cpp), sweep and scaling (measure_commands.cpp)
// share: parsing the options, the CSV cells of a configuration, measuring a
// plan in rounds, the machine's load, writing the results.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "commands.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace quadbin::perf::measure {

/// The columns every run, sweep and scaling CSV starts with.
extern const std::vector<std::string> kBaseColumns;
/// The columns every run, sweep and scaling CSV ends with (blank on A rows).
extern const std::vector<std::string> kWorldColumns;

[[nodiscard]] std::uint32_t hardwareThreads();
[[nodiscard]] std::vector<char> parseWorkloads(const std::vector<std::string>& names);
[[nodiscard]] std::vector<scenes::SceneKind> parseScenes(const std::vector<std::string>& names);
/// Names or "all" -> structure names, in list order, each once. `all`
/// means every structure and world-step peer, or quadbin's own only when
/// `quadbinOnly`.
[[nodiscard]] std::vector<std::string> parseStructures(const std::vector<std::string>& names,
                                                       bool quadbinOnly);
/// The values in increasing order, each once (sizes, thread counts, seeds).
template <class T>
[[nodiscard]] std::vector<T> sortedUnique(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
void validate(const MeasureOptions& o);
/// One configuration of a plan, with the options every configuration
/// shares (frames, warm-up, seed, drift steps, layout).
[[nodiscard]] Config planned(const MeasureOptions& o, char workload, scenes::SceneKind scene,
                             std::uint32_t n, const std::string& structure, std::uint32_t threads,
                             double timeBoxSeconds = 0.0);
[[nodiscard]] std::string sceneName(scenes::SceneKind k);

/// kBaseColumns' cells of an outcome.
[[nodiscard]] std::vector<Cell> baseCells(const Outcome& o);
[[nodiscard]] Cell driftCell(const Outcome& o);
[[nodiscard]] Cell predictedCell(const Outcome& o);
[[nodiscard]] Cell statusCell(const Outcome& o);
/// kWorldColumns' cells of an outcome.
void appendWorldCells(std::vector<Cell>& row, const Outcome& o);
/// The pile is a world-step scene: with Workload A it is refused when both
/// were named, and left out of A when the workloads are the default.
[[nodiscard]] bool pileInA(const MeasureOptions& o, const std::vector<char>& workloads,
                           const std::vector<scenes::SceneKind>& sceneKinds);

[[nodiscard]] std::string stringList(const std::vector<std::string>& v);
template <class T>
[[nodiscard]] std::string numberList(const std::vector<T>& v) {
  std::vector<std::string> items;
  items.reserve(v.size());
  for (const auto& x : v) items.push_back(std::to_string(x));
  return jsonArray(items);
}
[[nodiscard]] std::string sceneList(const std::vector<scenes::SceneKind>& v);
[[nodiscard]] std::string workloadList(const std::vector<char>& v);
[[nodiscard]] JsonObject commonOptions(const MeasureOptions& o);

/// "%.*f".
[[nodiscard]] std::string fixed(double v, int precision);
/// A time in ms with the digits that matter.
[[nodiscard]] std::string msText(double ms);
[[nodiscard]] std::string skippedNote(const Outcome& o, double budget);
/// "B uniform n=10000 quadtree threads=1".
[[nodiscard]] std::string describeConfig(const Config& c);

/// The machine's load over `outcomes`; prints the one-line warning on
/// stderr when the machine was busy.
[[nodiscard]] MachineLoad summariseLoad(const std::vector<Outcome>& outcomes, unsigned cpus);
/// Every configuration, `repetitions` rounds of them (round-robin: round 1
/// decides what is skipped and how many frames are timed, later rounds time
/// the same frames); then each outcome's figures over its rounds.
[[nodiscard]] std::vector<Outcome> measureAll(Session& session, const std::vector<Config>& plan,
                                              std::uint32_t repetitions);
/// Writes <out>/<name>.{csv,json} and machine.json; prints their paths.
void writeAndReport(const MeasureOptions& o, const Machine& machine, const std::string& name,
                    const Table& table, const JsonObject& options);

}  // namespace quadbin::perf::measure
