#include "runner.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "structures.hpp"

namespace quadbin::perf {

namespace {

// Below this N a configuration runs without a prediction: even brute force
// stays within seconds there. Above it, with no smaller N measured, a short
// probe at kProbeN gives the prediction its basis.
constexpr std::uint32_t kProbeAbove = 20000;
constexpr std::uint32_t kProbeN = 10000;
// A time per frame below this is mostly fixed overhead: too noisy to read
// an exponent from.
constexpr double kMinMsForExponent = 0.05;
// An observed exponent from here up is taken as the structure's own.
constexpr double kDegradingExponent = 1.75;

double nLogN(double n) { return n * std::log2(std::max(n, 2.0)); }

/// A prediction of the whole configuration turned into what it takes when
/// time-boxed: the warm-up, then timed frames up to the box (at least
/// minTimedFrames of them).
std::optional<double> timeBoxed(const Config& c, std::optional<double> predicted) {
  if (!predicted || !(c.timeBoxSeconds > 0.0)) return predicted;
  const double perFrame = *predicted / stepsOf(c);
  const double timed = std::clamp(c.timeBoxSeconds / perFrame,
                                  static_cast<double>(std::min(c.minTimedFrames, c.frames)),
                                  static_cast<double>(c.frames));
  return perFrame * (c.warmup + timed);
}

}  // namespace

std::uint32_t stepsOf(const Config& c) noexcept {
  const std::uint32_t timed = c.warmup + c.frames;
  return c.workload == 'A' ? timed : std::max(timed, c.driftSteps);
}

bool isQuadratic(const std::string& structure) noexcept {
  return structure.find("brute") != std::string::npos;
}

bool isQuadbinStructure(const std::string& structure) noexcept {
  return parseBroadPhaseType(structure).has_value();
}

BroadPhaseType worldBroadPhase(const std::string& structure) {
  if (const auto type = parseBroadPhaseType(structure)) return *type;
  const auto known = structureNames();
  if (std::find(known.begin(), known.end(), structure) != known.end()) {
    throw UsageError("'" + structure + "' is a peer: the world runs quadbin's broad phases only");
  }
  throw UsageError("unknown broad phase '" + structure + "' (see 'quadbin-perf list')");
}

Predictor::Key Predictor::keyOf(const Config& c) {
  return {c.workload == 'C' ? 'B' : c.workload, static_cast<int>(c.scene), c.structure};
}

void Predictor::record(const Config& c, double msPerFrame) {
  points_[keyOf(c)].push_back({c.n, c.threads, msPerFrame});
}

std::optional<double> Predictor::predictSeconds(const Config& c) const {
  const auto it = points_.find(keyOf(c));
  if (it == points_.end()) return std::nullopt;
  // The basis: the largest N <= c.n, preferring the same thread count.
  const Point* base = nullptr;
  for (const bool sameThreads : {true, false}) {
    for (const auto& p : it->second) {
      if (p.n > c.n || (sameThreads && p.threads != c.threads)) continue;
      if (!base || p.n > base->n || (p.n == base->n && p.ms > base->ms)) base = &p;
    }
    if (base) break;
  }
  if (!base) return std::nullopt;
  const bool quadratic = isQuadratic(c.structure);
  const double ratio = static_cast<double>(c.n) / base->n;
  double factor = quadratic ? ratio * ratio : nLogN(c.n) / nLogN(base->n);
  // An exponent observed between the basis and the next smaller N counts
  // when it is closer to n^2 than to n log n: a structure that degrades.
  // Milder growth is mostly caches filling up (the step from 10,000 to
  // 100,000 bodies leaves L2), which does not go on at that rate, so the
  // model stands.
  const Point* lower = nullptr;
  for (const auto& p : it->second) {
    if (p.threads != base->threads || p.n >= base->n || p.ms < kMinMsForExponent) continue;
    if (!lower || p.n > lower->n) lower = &p;
  }
  if (lower && base->ms > 0.0) {
    const double observed = std::log(base->ms / lower->ms) / std::log(double(base->n) / lower->n);
    if (quadratic || observed >= kDegradingExponent) {
      factor = std::max(factor, std::pow(ratio, std::min(observed, 3.0)));
    }
  }
  // The workload's own growth between the two sizes, as other structures
  // saw it (the world step's solver grows with the contacts, whatever the
  // broad phase): the smallest such factor, when it is larger.
  const auto [workload, scene, name] = keyOf(c);
  std::optional<double> others;
  for (const auto& [key, points] : points_) {
    const auto& [otherWorkload, otherScene, otherName] = key;
    if (otherWorkload != workload || otherScene != scene || otherName == name) continue;
    if (isQuadratic(otherName) && !quadratic) continue;
    const Point *from = nullptr, *to = nullptr;
    for (const auto& p : points) {
      if (p.threads != base->threads) continue;
      if (p.n == base->n) from = &p;
      if (p.n == c.n) to = &p;
    }
    if (from && to && from->ms >= kMinMsForExponent) {
      others = std::min(others.value_or(to->ms / from->ms), to->ms / from->ms);
    }
  }
  if (others) factor = std::max(factor, *others);
  return base->ms * factor * stepsOf(c) / 1000.0;
}

double estimateWeight(const Config& c) noexcept {
  const double n = c.n;
  const double perStep = isQuadratic(c.structure) ? n * n / 8.0 : nLogN(n);
  return perStep * stepsOf(c) * (c.workload == 'A' ? 1.0 : 3.0) + 1.0;
}

Progress::Progress()
    : terminal_(isatty(STDERR_FILENO) == 1), lastPlain_(std::chrono::steady_clock::now()) {}

void Progress::plan(std::vector<double> weights) {
  weights_ = std::move(weights);
  expected_.assign(weights_.size(), std::nullopt);
  finished_.assign(weights_.size(), false);
  start_ = lastPlain_ = std::chrono::steady_clock::now();
}

void Progress::expect(std::size_t index, std::optional<double> seconds) {
  if (index < expected_.size()) expected_[index] = seconds;
}

std::optional<double> Progress::secondsLeft(double elapsed) const {
  double done = 0.0, left = 0.0, unknownLeft = 0.0;
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    if (finished_[i]) {
      done += weights_[i];
    } else if (expected_[i]) {
      left += *expected_[i];
    } else {
      unknownLeft += weights_[i];
    }
  }
  if (unknownLeft > 0.0) {
    if (!(done > 0.0) || elapsed < 0.5) return std::nullopt;
    left += elapsed * unknownLeft / done;
  }
  return left;
}

void Progress::show(std::size_t index, const std::string& what) {
  const auto now = std::chrono::steady_clock::now();
  if (!terminal_ &&
      std::chrono::duration<double>(now - lastPlain_).count() < kPlainProgressSeconds) {
    return;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const auto left = secondsLeft(elapsed);
  char line[512];
  std::snprintf(line, sizeof line, "[%zu/%zu, %s elapsed, %s%s] %s", index + 1, weights_.size(),
                formatSeconds(elapsed).c_str(), left ? "~" : "",
                left ? (formatSeconds(*left) + " left").c_str() : "? left", what.c_str());
  if (!terminal_) {
    std::fprintf(stderr, "quadbin-perf: %s\n", line);
    std::fflush(stderr);
    lastPlain_ = now;
    return;
  }
  // A line wider than the terminal would wrap, and \r would then rewrite
  // only its last part.
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 &&
      std::strlen(line) >= ws.ws_col) {
    line[ws.ws_col - 1] = '\0';
  }
  std::fprintf(stderr, "\r\033[K%s", line);
  std::fflush(stderr);
  shown_ = true;
}

void Progress::finish(std::size_t index, bool measured) {
  if (index >= finished_.size()) return;
  finished_[index] = true;
  // A skipped configuration took no time: its cost would make the others
  // look fast.
  if (!measured) weights_[index] = 0.0;
}

void Progress::clear() {
  if (!terminal_ || !shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

Session::Session(double budgetSeconds, bool verbose) : budget_(budgetSeconds), verbose_(verbose) {}

void Session::plan(const std::vector<Config>& configs, std::uint32_t repetitions) {
  repetitions_ = std::max<std::uint32_t>(repetitions, 1);
  std::vector<double> weights;
  weights.reserve(configs.size() * repetitions_);
  for (std::uint32_t r = 0; r < repetitions_; ++r) {
    for (const auto& c : configs) weights.push_back(estimateWeight(c));
  }
  planned_ = configs;
  progress_.plan(std::move(weights));
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (at - static_cast<double>(lo));
}

void summariseRepetitions(Outcome& o) {
  if (o.skipped || o.repMs.empty()) return;
  Result& r = o.result;
  r.medianMs = quantile(o.repMs, 0.5);
  r.minMs = *std::min_element(o.repMs.begin(), o.repMs.end());
  r.maxMs = *std::max_element(o.repMs.begin(), o.repMs.end());
  o.p10Ms = quantile(o.repMs, 0.1);
  o.p90Ms = quantile(o.repMs, 0.9);
  r.cpuMs = quantile(o.repCpuMs, 0.5);
  if (!o.repStages.empty()) {
    StageTimes s;
    for (double StageTimes::*ms :
         {&StageTimes::integrateMs, &StageTimes::broadPhaseMs, &StageTimes::narrowPhaseMs,
          &StageTimes::solverMs, &StageTimes::positionMs, &StageTimes::sleepMs,
          &StageTimes::eventsMs}) {
      std::vector<double> v;
      for (const auto& rep : o.repStages) v.push_back(rep.*ms);
      s.*ms = quantile(v, 0.5);
    }
    r.stageMedians = s;
  }
}

std::string Session::describe(const Config& c) const {
  return std::string(1, c.workload) + " " + std::string(scenes::toString(c.scene)) +
         " n=" + std::to_string(c.n) + " " + c.structure + " threads=" + std::to_string(c.threads);
}

std::optional<double> Session::predictWithProbe(const Config& c) {
  auto predicted = predictor_.predictSeconds(c);
  if (predicted || c.n <= kProbeAbove) return predicted;
  Config probe = c;
  probe.n = kProbeN;
  probe.warmup = 1;
  probe.frames = 3;
  probe.driftSteps = 0;
  const Result r = c.workload == 'A' ? runWorkloadA(probe) : runWorkloadB(probe);
  predictor_.record(probe, r.medianMs);
  return predictor_.predictSeconds(c);
}

Result Session::measureA(const Config& c) {
  // Pair counts are checked frame by frame against the reference: the
  // first quadbin structure measured on this scene, N and seed (frames are
  // the same sequence whatever the count, so a shorter run checks against
  // the first frames of a longer one, and a longer run, once it agrees,
  // becomes the reference).
  const RefKey key{static_cast<int>(c.scene), c.n, c.seed};
  const std::uint32_t frames = c.warmup + c.frames;
  auto it = references_.find(key);
  if ((it == references_.end() || it->second.framePairs.size() < frames) &&
      !isQuadbinStructure(c.structure)) {
    // A peer first (or longer than the reference): the reference comes
    // from quadbin's bin grid, untimed.
    Config rc = c;
    rc.structure = "bin-grid";
    rc.threads = 1;
    it =
        references_.insert_or_assign(key, Reference{"bin-grid", runWorkloadA(rc).framePairs}).first;
  }
  if (it == references_.end()) {
    Result r = runWorkloadA(c);
    references_.emplace(key, Reference{c.structure, r.framePairs});
    return r;
  }
  Result r;
  try {
    r = runWorkloadA(c, it->second.framePairs);
  } catch (const CheckFailure& e) {
    throw CheckFailure(std::string(e.what()) + " (reference: " + it->second.structure + ")");
  }
  if (r.framePairs.size() > it->second.framePairs.size()) {
    it->second = Reference{c.structure, r.framePairs};
  }
  return r;
}

std::optional<double> Session::boxedPrediction(const Config& c) const {
  return timeBoxed(c, predictor_.predictSeconds(c));
}

void Session::updateExpectations(std::size_t index) {
  for (std::size_t i = index; i < planned_.size(); ++i) {
    const Config& c = planned_[i];
    std::optional<double> seconds;
    if (!c.skipReason.empty()) {
      seconds = 0.0;
    } else if (budget_ > 0.0) {
      seconds = boxedPrediction(c);
      if (seconds && *seconds > budget_) seconds = 0.0;
    }
    for (std::uint32_t r = 0; r < repetitions_; ++r)
      progress_.expect(r * planned_.size() + i, seconds);
  }
}

Outcome Session::measure(std::size_t index, const Config& c) {
  updateExpectations(index);
  progress_.show(index, describe(c));
  Outcome o;
  o.result.config = c;
  const CpuSample before = sampleCpu();
  if (!c.skipReason.empty()) {
    o.skipped = true;
    o.skipReason = c.skipReason;
    progress_.finish(index, false);
    return o;
  }
  if (budget_ > 0.0) o.predictedSeconds = timeBoxed(c, predictWithProbe(c));
  if (o.predictedSeconds && *o.predictedSeconds > budget_) {
    o.skipped = true;
  } else {
    o.result = c.workload == 'A' ? measureA(c) : runWorkloadB(c);
    predictor_.record(o.result.config, o.result.medianMs);
    o.repMs.push_back(o.result.medianMs);
    o.repCpuMs.push_back(o.result.cpuMs);
    if (o.result.stageMedians) o.repStages.push_back(*o.result.stageMedians);
  }
  const CpuSample after = sampleCpu();
  o.load.add(before, after);
  progress_.finish(index, !o.skipped);
  // The later rounds take what this one took.
  for (std::uint32_t r = 1; r < repetitions_; ++r) {
    progress_.expect(r * planned_.size() + index, o.skipped ? 0.0 : after.wallS - before.wallS);
  }
  if (verbose_) {
    progress_.clear();
    if (o.skipped) {
      std::fprintf(stderr, "%s: skipped, predicted %s > budget %s\n", describe(c).c_str(),
                   formatSeconds(*o.predictedSeconds).c_str(), formatSeconds(budget_).c_str());
    } else {
      std::fprintf(stderr, "%s: %.4f ms per step, %llu %s\n", describe(c).c_str(),
                   o.result.medianMs, static_cast<unsigned long long>(o.result.pairs),
                   c.workload == 'A' ? "pairs" : "contacts");
    }
  }
  if (index + 1 == planned_.size() && repetitions_ == 1) progress_.clear();
  return o;
}

void Session::repeat(std::size_t index, std::uint32_t round, Outcome& o) {
  if (o.skipped) return;
  const std::size_t at = round * planned_.size() + index;
  Config c = o.result.config;  // the frames the first round timed
  c.timeBoxSeconds = 0.0;
  c.driftSteps = 0;  // the first round took the drift
  progress_.show(at, describe(c) + " (repetition " + std::to_string(round + 1) + " of " +
                         std::to_string(repetitions_) + ")");
  const CpuSample before = sampleCpu();
  const Result r = c.workload == 'A' ? measureA(c) : runWorkloadB(c);
  o.load.add(before, sampleCpu());
  o.repMs.push_back(r.medianMs);
  o.repCpuMs.push_back(r.cpuMs);
  if (r.stageMedians) o.repStages.push_back(*r.stageMedians);
  progress_.finish(at);
  if (at + 1 == planned_.size() * repetitions_) progress_.clear();
}

std::string withCommas(unsigned long long value) {
  std::string digits = std::to_string(value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string formatSeconds(double seconds) {
  char buf[32];
  if (seconds < 60.0) {
    std::snprintf(buf, sizeof buf, "%.1fs", seconds);
  } else if (seconds < 3600.0) {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  } else {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  }
  return buf;
}

}  // namespace quadbin::perf
