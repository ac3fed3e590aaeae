// run: Workloads A and B over the scenes and sizes, every configuration in
// R rounds (round-robin), each row against the peers of its workload
// (Box2D in A and B, Chipmunk2D in B), repetition by repetition.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "measure_common.hpp"
#include "structures.hpp"
#include "world_peers.hpp"

namespace quadbin::perf {

using namespace measure;
using scenes::SceneKind;

namespace {

// The peers every row is compared with: Box2D's tree in Workload A, its
// b2World in B; Chipmunk2D (B only) with the faster of its two broad phases
// in each repetition.
constexpr const char* kBox2dA = "box2d-tree";
constexpr const char* kBox2dB = "box2d-world";
const std::vector<std::string> kChipmunk = {"chipmunk-hash", "chipmunk-bbtree"};

// The columns of run.csv between the base and the world columns.
const std::vector<std::string> kRunColumns = {"vs_box2d",     "vs_box2d_p10",    "vs_box2d_p90",
                                              "vs_chipmunk",  "vs_chipmunk_p10", "vs_chipmunk_p90",
                                              "energy_drift", "predicted_s",     "status"};

/// A peer's time over ours, repetition by repetition: median, p10, p90.
struct Ratio {
  double median = 0.0, p10 = 0.0, p90 = 0.0;
};

std::optional<Ratio> ratioOf(const std::vector<double>& peerMs, const std::vector<double>& ourMs) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < std::min(peerMs.size(), ourMs.size()); ++r) {
    if (ourMs[r] > 0.0) ratios.push_back(peerMs[r] / ourMs[r]);
  }
  if (ratios.empty()) return std::nullopt;
  return Ratio{quantile(ratios, 0.5), quantile(ratios, 0.1), quantile(ratios, 0.9)};
}

/// "±3%": half the p10-p90 spread over the median.
std::string spreadText(double median, double p10, double p90) {
  if (!(median > 0.0)) return "";
  return "+-" + fixed(50.0 * (p90 - p10) / median, 0) + "%";
}

std::string ratioText(const std::optional<Ratio>& r) {
  if (!r) return "";
  return fixed(r->median, 2) + "x " + spreadText(r->median, r->p10, r->p90);
}

/// "solver 0.81, narrow 0.40": the two biggest stages, ms.
std::string topStages(const std::optional<StageTimes>& st) {
  if (!st) return "";
  std::vector<std::pair<double, const char*>> stages{
      {st->integrateMs, "integrate"}, {st->broadPhaseMs, "broad"},  {st->narrowPhaseMs, "narrow"},
      {st->solverMs, "solver"},       {st->positionMs, "position"}, {st->sleepMs, "sleep"},
      {st->eventsMs, "events"}};
  std::erase_if(stages, [](const auto& s) { return !std::isfinite(s.first); });
  std::sort(stages.begin(), stages.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (std::size_t i = 0; i < std::min<std::size_t>(2, stages.size()); ++i) {
    if (i) out += ", ";
    out += std::string(stages[i].second) + " " + msText(stages[i].first);
  }
  return out;
}

// ---------------------------------------------------------------- plan

// The fewest frames a time-boxed configuration of this run times.
std::uint32_t minTimedFrames(const MeasureOptions& o) {
  return o.full ? kMinTimedFrames : kHeadlineMinTimedFrames;
}

// The configurations of run, and the peers named for a workload they do
// not take part in (a note, not an error).
class RunPlanner {
 public:
  RunPlanner(const MeasureOptions& o, const std::vector<std::string>& structures,
             const std::vector<std::uint32_t>& threads)
      : o_(o), structures_(structures), threads_(threads) {
    for (const auto& s : structures) {
      defaultMax_[s] = isWorldPeer(s) ? 0 : makeStructure(s)->defaultRunMaxBodies();
    }
  }

  // Every structure and thread count for workload w on one scene and N.
  void add(char w, SceneKind scene, std::uint32_t n) {
    for (const auto& s : structures_) {
      // A note for peers asked for by name; `all` means "all that take part".
      if (w == 'B' && !isQuadbinStructure(s) && !isWorldPeer(s)) {
        if (named(s)) peersInA_.insert(s);
        continue;
      }
      if (w == 'A' && isWorldPeer(s)) {
        if (named(s)) peersInB_.insert(s);
        continue;
      }
      // The world-step peers are single-threaded and set up for the
      // elastic scenes (the pile sleeps, which they are not set up for).
      if (isWorldPeer(s) && scene == SceneKind::Pile) continue;
      for (const auto t : threads_) {
        if (isWorldPeer(s) && t != threads_.front()) continue;
        plan_.push_back(planned(o_, w, scene, n, s, t, o_.configSeconds));
        plan_.back().minTimedFrames = minTimedFrames(o_);
        // A peer whose setup is too slow for the main job at this N
        // is shown as skipped unless asked for by name.
        const std::uint32_t maxN = defaultMax_.at(s);
        if (maxN != 0 && n > maxN && !named(s)) {
          plan_.back().skipReason = "its untimed setup is too slow above " + withCommas(maxN) +
                                    " bodies for the main job; name it in --broadphase to "
                                    "run it";
        }
      }
    }
  }

  // The plan, after the notes on stderr.
  [[nodiscard]] std::vector<Config> finish() const {
    note(peersInA_,
         "Workload A (the broad phase alone; the world step's peers: list --workload B)");
    note(peersInB_, "Workload B (the full world step)");
    if (plan_.empty())
      throw UsageError("nothing to run: no structure takes part in these workloads");
    return plan_;
  }

 private:
  [[nodiscard]] bool named(const std::string& s) const {
    return std::find(o_.structures.begin(), o_.structures.end(), s) != o_.structures.end();
  }
  static void note(const std::set<std::string>& peers, const char* what) {
    if (peers.empty()) return;
    std::string names;
    for (const auto& s : peers) {
      if (!names.empty()) names += ", ";
      names += s;
    }
    std::fprintf(stderr, "quadbin-perf: note: %s take%s part in %s only\n", names.c_str(),
                 peers.size() == 1 ? "s" : "", what);
  }

  const MeasureOptions& o_;
  const std::vector<std::string>& structures_;
  const std::vector<std::uint32_t>& threads_;
  std::map<std::string, std::uint32_t> defaultMax_;
  std::set<std::string> peersInA_, peersInB_;
  std::vector<Config> plan_;
};

// The headline run: quadbin's recommendation (Auto) beside one structure
// of each peer library, at this many bodies: Box2D's tree and Bullet's
// dbvt and a plain grid (A), Box2D's b2World and Chipmunk's cpSpace with
// its spatial hash (B). The peers are 20-30 times slower than quadbin here
// and take most of the run's time; --full measures every structure and
// peer at 10,000 and 100,000.
constexpr std::uint32_t kHeadlineN = 100000;

std::vector<std::string> defaultRunStructures(bool full) {
  if (full) return {"all"};
  // Those this build has (a peer whose library was not found is left out).
  auto known = structureNames();
  for (auto& peer : worldPeerNames()) known.push_back(std::move(peer));
  std::vector<std::string> names;
  for (const std::string& name : {std::string(toString(BroadPhaseType::Auto)), std::string(kBox2dA),
                                  std::string("bullet-dbvt"), std::string("baseline-grid"),
                                  std::string(kBox2dB), kChipmunk.front()}) {
    if (std::find(known.begin(), known.end(), name) != known.end()) names.push_back(name);
  }
  return names;
}

std::vector<Config> planRun(const MeasureOptions& o, const std::vector<char>& workloads,
                            const std::vector<SceneKind>& sceneKinds,
                            const std::vector<std::string>& structures,
                            const std::vector<std::uint32_t>& threads) {
  RunPlanner planner(o, structures, threads);
  const bool skipPileInA = pileInA(o, workloads, sceneKinds);
  for (const char w : workloads) {
    for (const auto scene : sceneKinds) {
      if (w == 'A' && scene == SceneKind::Pile && skipPileInA) continue;
      std::vector<std::uint32_t> sizes = sortedUnique(o.sizes);
      if (sizes.empty() && !o.full) sizes = {kHeadlineN};
      if (sizes.empty()) {
        sizes = {10000, 100000};
        if (w == 'A' && scene == SceneKind::Uniform) sizes.push_back(1000000);
      }
      for (const auto n : sizes) planner.add(w, scene, n);
    }
  }
  return planner.finish();
}

// ---------------------------------------------------------------- peers

// The peers' repetitions (A by scene, n and threads; B by scene and n) and
// each row's ratio against them.
class PeerTimes {
 public:
  explicit PeerTimes(const std::vector<Outcome>& outcomes) {
    for (const auto& out : outcomes) {
      const auto& c = out.result.config;
      if (out.skipped) continue;
      if (c.workload == 'A' && c.structure == kBox2dA) {
        box2d_[{'A', static_cast<int>(c.scene), c.n, c.threads}] = out.repMs;
      } else if (c.workload == 'B' && c.structure == kBox2dB) {
        box2d_[{'B', static_cast<int>(c.scene), c.n, 0}] = out.repMs;
      } else if (c.workload == 'B' && isChipmunk(c.structure)) {
        auto& best = chipmunk_[{'B', static_cast<int>(c.scene), c.n, 0}];
        if (best.empty()) {
          best = out.repMs;
        } else {
          for (std::size_t r = 0; r < std::min(best.size(), out.repMs.size()); ++r) {
            best[r] = std::min(best[r], out.repMs[r]);
          }
        }
      }
    }
    const std::string box2d = worldPeerEngine(kBox2dB);
    box2dName = box2d.empty() ? std::string("box2d") : box2d;
    const std::string chipmunk = worldPeerEngine(kChipmunk.front());
    chipmunkName = chipmunk.empty() ? std::string("chipmunk") : chipmunk;
  }

  [[nodiscard]] std::optional<Ratio> vsBox2d(const Outcome& out) const {
    const auto& s = out.result.config.structure;
    return vs(out, box2d_, s == kBox2dA || s == kBox2dB);
  }
  [[nodiscard]] std::optional<Ratio> vsChipmunk(const Outcome& out) const {
    return vs(out, chipmunk_, isChipmunk(out.result.config.structure));
  }

  std::string box2dName, chipmunkName;

 private:
  using Key = std::tuple<char, int, std::uint32_t, std::uint32_t>;
  static bool isChipmunk(const std::string& s) {
    return std::find(kChipmunk.begin(), kChipmunk.end(), s) != kChipmunk.end();
  }
  static Key keyOf(const Config& c) {
    return Key{c.workload, static_cast<int>(c.scene), c.n, c.workload == 'A' ? c.threads : 0};
  }
  static std::optional<Ratio> vs(const Outcome& out, const std::map<Key, std::vector<double>>& peer,
                                 bool self) {
    const auto it = peer.find(keyOf(out.result.config));
    if (out.skipped || self || it == peer.end()) return std::nullopt;
    return ratioOf(it->second, out.repMs);
  }

  std::map<Key, std::vector<double>> box2d_, chipmunk_;
};

// ---------------------------------------------------------------- report

Table runTable(const std::vector<Outcome>& outcomes, const PeerTimes& peers) {
  Table table;
  table.columns = kBaseColumns;
  table.columns.insert(table.columns.end(), kRunColumns.begin(), kRunColumns.end());
  table.columns.insert(table.columns.end(), kWorldColumns.begin(), kWorldColumns.end());
  for (const auto& out : outcomes) {
    auto row = baseCells(out);
    for (const auto& ratio : {peers.vsBox2d(out), peers.vsChipmunk(out)}) {
      row.push_back(ratio ? real(ratio->median, 3) : blank());
      row.push_back(ratio ? real(ratio->p10, 3) : blank());
      row.push_back(ratio ? real(ratio->p90, 3) : blank());
    }
    row.push_back(driftCell(out));
    row.push_back(predictedCell(out));
    row.push_back(statusCell(out));
    appendWorldCells(row, out);
    table.rows.push_back(std::move(row));
  }
  return table;
}

// One printed row of workload w's table.
std::vector<std::string> printedRow(const MeasureOptions& o, char w, const Outcome& out,
                                    const PeerTimes& peers) {
  const auto& c = out.result.config;
  std::vector<std::string> row{sceneName(c.scene), withCommas(c.n), c.structure,
                               std::to_string(c.threads)};
  if (out.skipped) {
    row.emplace_back("");
    row.emplace_back("skipped");
    row.resize(w == 'A' ? 11 : 15);
    row.push_back(skippedNote(out, o.budget));
    return row;
  }
  // The steps timed: fewer than --frames where the time-box cut them.
  row.push_back(std::to_string(c.frames));
  row.push_back(msText(out.result.medianMs));
  row.push_back(spreadText(out.result.medianMs, out.p10Ms, out.p90Ms));
  row.push_back(msText(out.result.cpuMs));
  row.push_back(withCommas(out.result.pairs));
  if (w == 'A') {
    row.push_back(fixed(out.result.bytesPerBody, 1));
    row.push_back(ratioText(peers.vsBox2d(out)));
    return row;
  }
  char drift[32] = "";
  if (out.result.energyDrift) std::snprintf(drift, sizeof drift, "%+.2e", *out.result.energyDrift);
  row.emplace_back(drift);
  const auto& q = out.result.quality;
  row.push_back(q ? withCommas(q->overlaps) : "");
  char pen[32] = "";
  if (q) std::snprintf(pen, sizeof pen, "%.3g", q->maxPenetration);
  row.emplace_back(pen);
  row.push_back(topStages(out.result.stageMedians));
  row.push_back(ratioText(peers.vsBox2d(out)));
  row.push_back(ratioText(peers.vsChipmunk(out)));
  return row;
}

void printWorkload(const MeasureOptions& o, char w, bool first,
                   const std::vector<std::vector<std::string>>& rows, const PeerTimes& peers) {
  const std::string fewer = o.configSeconds > 0.0
                                ? " (fewer, at least " + std::to_string(minTimedFrames(o)) +
                                      ", where a configuration would take over --config-seconds: "
                                      "see the frames column)"
                                : "";
  std::printf(
      "%sWorkload %c: %s; ms: the median of %u repetition%s (round-robin) of the median of "
      "%u %s after %u warm-up%s; +-: half the p10-p90 spread of the repetitions\n",
      first ? "" : "\n", w, w == 'A' ? "broad phase alone" : "full world step", o.repetitions,
      o.repetitions == 1 ? "" : "s", o.frames, w == 'A' ? "frames" : "steps", o.warmup,
      fewer.c_str());
  std::vector<std::string> header{"scene",
                                  "n",
                                  "structure",
                                  "threads",
                                  w == 'A' ? "frames" : "steps",
                                  w == 'A' ? "ms/frame" : "ms/step",
                                  "+-",
                                  "cpu ms",
                                  w == 'A' ? "pairs" : "contacts"};
  if (w == 'A') {
    header.emplace_back("bytes/body");
    header.push_back("vs " + peers.box2dName);
  } else {
    for (const char* h : {"energy drift", "overlaps", "max pen.", "top stages (ms)"})
      header.emplace_back(h);
    header.push_back("vs " + peers.box2dName);
    header.push_back("vs " + peers.chipmunkName);
  }
  std::vector<bool> right(header.size(), true);
  right[0] = right[2] = false;
  if (w == 'B') right[13] = false;
  printTable(header, rows, right);
}

void printRunTables(const MeasureOptions& o, const std::vector<char>& workloads,
                    const std::vector<Outcome>& outcomes, const PeerTimes& peers) {
  for (const char w : workloads) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& out : outcomes) {
      if (out.result.config.workload == w) rows.push_back(printedRow(o, w, out, peers));
    }
    if (!rows.empty()) printWorkload(o, w, w == workloads.front(), rows, peers);
  }
  if (!workloads.empty()) {
    std::printf(
        "\nvs PEER: the peer's time over the row's, repetition by repetition (median, "
        "+- half the p10-p90 spread); >1x: the row is faster. %s: Box2D's tree (A), "
        "b2World (B); %s: cpSpace with the faster of its spatial hash and bbtree. "
        "others_cpus in the CSV: CPUs other processes used meanwhile.\n",
        peers.box2dName.c_str(), peers.chipmunkName.c_str());
  }
}

}  // namespace

int runCommand(const MeasureOptions& o) {
  validate(o);
  Machine machine = describeMachine();
  const auto workloads =
      parseWorkloads(o.workloads.empty() ? std::vector<std::string>{"A", "B"} : o.workloads);
  const auto sceneKinds =
      parseScenes(o.scenes.empty() ? std::vector<std::string>{"all"} : o.scenes);
  const auto structures =
      parseStructures(o.structures.empty() ? defaultRunStructures(o.full) : o.structures, false);
  const auto threads = o.threads.empty() ? std::vector<std::uint32_t>{1} : sortedUnique(o.threads);
  const auto plan = planRun(o, workloads, sceneKinds, structures, threads);

  Session session(o.budget, o.verbose);
  const auto outcomes = measureAll(session, plan, o.repetitions);
  machine.load = summariseLoad(outcomes, machine.logicalCpus);
  const PeerTimes peers(outcomes);
  const Table table = runTable(outcomes, peers);
  printRunTables(o, workloads, outcomes, peers);

  JsonObject options{{"workloads", workloadList(workloads)},
                     {"scenes", sceneList(sceneKinds)},
                     {"full", o.full ? "true" : "false"},
                     {"sizes", o.sizes.empty() ? jsonString(o.full ? "default" : "headline")
                                               : numberList(sortedUnique(o.sizes))},
                     {"structures", stringList(structures)},
                     {"threads", numberList(threads)},
                     {"peers", jsonObject({{"vs_box2d", jsonString(peers.box2dName)},
                                           {"vs_chipmunk", jsonString(peers.chipmunkName)}},
                                          2)}};
  for (auto& m : commonOptions(o)) options.push_back(std::move(m));
  char configSeconds[32];
  std::snprintf(configSeconds, sizeof configSeconds, "%g", o.configSeconds);
  options.push_back({"config_seconds", configSeconds});
  options.push_back({"min_timed_frames", std::to_string(minTimedFrames(o))});
  writeAndReport(o, machine, "run", table, options);
  return 0;
}

}  // namespace quadbin::perf
