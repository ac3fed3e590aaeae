#pragma once
// What every measuring subcommand shares: the time budget (predicting a
// configuration's cost from smaller N), the pair-count reference that every
// Workload A structure must match frame by frame, and the progress line.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "load.hpp"
#include "workloads.hpp"

namespace quadbin::perf {

/// Bad command-line input or input file: exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Steps a configuration runs (timed and untimed).
[[nodiscard]] std::uint32_t stepsOf(const Config& c) noexcept;
/// True for structures whose cost grows as n^2 (brute force, ours or a peer's).
[[nodiscard]] bool isQuadratic(const std::string& structure) noexcept;
/// True for quadbin's own structures (those the World can run).
[[nodiscard]] bool isQuadbinStructure(const std::string& structure) noexcept;
/// The broad phase a World runs for `structure`; UsageError for a peer's
/// name or an unknown one.
[[nodiscard]] BroadPhaseType worldBroadPhase(const std::string& structure);

/// Predicts the wall-clock seconds of a configuration from the measured
/// time per frame of the same workload, scene and structure at the largest
/// smaller (or equal) N, scaled to N by n^2 for brute force and n log n
/// otherwise; raised to the exponent observed between its two largest
/// measured sizes when that is larger and (for structures other than brute
/// force) at least 1.75, i.e. the structure degrades; raised to the growth
/// other structures showed between the same two sizes of the same workload
/// and scene (the smallest of them) when that is larger; times the
/// configuration's steps.
class Predictor {
 public:
  void record(const Config& c, double msPerFrame);
  [[nodiscard]] std::optional<double> predictSeconds(const Config& c) const;

 private:
  struct Point {
    std::uint32_t n;
    std::uint32_t threads;
    double ms;
  };
  using Key = std::tuple<char, int, std::string>;
  [[nodiscard]] static Key keyOf(const Config& c);
  std::map<Key, std::vector<Point>> points_;
};

/// The progress of a command on stderr: what runs, how many of how many,
/// the time elapsed and an estimate of the time left. On a terminal one
/// line rewritten in place (\r); otherwise a plain line every
/// kPlainProgressSeconds, so that a piped or logged run shows it too.
class Progress {
 public:
  Progress();
  /// Call before the first configuration with every configuration's
  /// estimated relative cost.
  void plan(std::vector<double> weights);
  /// Seconds configuration `index` is expected to take, when known (a
  /// prediction from its measured neighbours): the estimate of the time
  /// left uses it rather than the relative cost.
  void expect(std::size_t index, std::optional<double> seconds);
  void show(std::size_t index, const std::string& what);
  /// The configuration at `index` is over; `measured` false when it was
  /// skipped (it took no time, so its cost says nothing of the others').
  void finish(std::size_t index, bool measured = true);
  /// Erases the line (before printing anything else to the terminal).
  void clear();
  [[nodiscard]] bool enabled() const noexcept { return terminal_; }

 private:
  /// Seconds left, from the time the finished configurations took per
  /// unit of cost and the expectations; nullopt until there is a basis.
  [[nodiscard]] std::optional<double> secondsLeft(double elapsed) const;

  bool terminal_ = false;
  bool shown_ = false;
  std::vector<double> weights_;
  std::vector<std::optional<double>> expected_;
  std::vector<bool> finished_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastPlain_;
};

/// Between two plain progress lines (stderr not a terminal).
inline constexpr double kPlainProgressSeconds = 30.0;

/// A relative cost estimate for the progress line.
[[nodiscard]] double estimateWeight(const Config& c) noexcept;

struct Outcome {
  /// The first repetition's result; once every repetition ran
  /// (summariseRepetitions), its times are the repetitions' (below).
  Result result;
  bool skipped = false;
  std::optional<double> predictedSeconds;
  std::string skipReason;  // why, when not the budget's prediction
  /// Each repetition's median ms per frame and CPU ms per frame, in order.
  std::vector<double> repMs, repCpuMs;
  /// Each repetition's stage medians (B/C).
  std::vector<StageTimes> repStages;
  /// What the rest of the machine did while this configuration ran.
  LoadUse load;
  /// The 10th and 90th percentiles of repMs.
  double p10Ms = 0.0, p90Ms = 0.0;
};

/// The q-quantile (0..1) of `values`, linearly interpolated between the
/// closest ranks (numpy's default); 0 when empty. Sorts a copy.
[[nodiscard]] double quantile(std::vector<double> values, double q);

/// Once every repetition ran: the result's median, min and max ms, its CPU
/// ms and stage medians become the median, min and max over the
/// repetitions (each a median over its frames), p10Ms and p90Ms their
/// percentiles.
void summariseRepetitions(Outcome& o);

/// Runs configurations one by one: skips those predicted over the budget
/// (probing at a small N first when no smaller N was measured), checks
/// Workload A pair counts against the reference, keeps the progress line.
class Session {
 public:
  Session(double budgetSeconds, bool verbose);

  /// `repetitions` rounds over `configs` (round-robin): the progress line
  /// counts them all.
  void plan(const std::vector<Config>& configs, std::uint32_t repetitions = 1);
  /// The planned configuration `index` (plan() order), first round.
  [[nodiscard]] Outcome measure(std::size_t index, const Config& c);
  /// Round `round` (>= 1) of configuration `index`, measured first as
  /// `o`: the same frames as the first round timed (no time-box, no
  /// budget), appended to o's repetitions. Nothing for a skipped one.
  void repeat(std::size_t index, std::uint32_t round, Outcome& o);
  Progress& progress() noexcept { return progress_; }

 private:
  struct Reference {
    std::string structure;
    std::vector<std::uint64_t> framePairs;
  };
  using RefKey = std::tuple<int, std::uint32_t, std::uint64_t>;  // scene, n, seed
  [[nodiscard]] std::optional<double> predictWithProbe(const Config& c);
  /// The predicted seconds with the time box applied: what `c` will take
  /// as measured; nullopt when there is no prediction.
  [[nodiscard]] std::optional<double> boxedPrediction(const Config& c) const;
  /// Tells the progress line what the planned configurations from `index`
  /// on are now predicted to take (0 for those the budget will skip).
  void updateExpectations(std::size_t index);
  [[nodiscard]] Result measureA(const Config& c);
  [[nodiscard]] std::string describe(const Config& c) const;

  double budget_;
  bool verbose_;
  Predictor predictor_;
  Progress progress_;
  std::vector<Config> planned_;
  std::uint32_t repetitions_ = 1;
  std::map<RefKey, Reference> references_;
};

/// "12,345,678".
[[nodiscard]] std::string withCommas(unsigned long long value);
/// "1m05s", "12.3s".
[[nodiscard]] std::string formatSeconds(double seconds);

}  // namespace quadbin::perf
