#pragma once
// What else the machine did while a configuration was measured: the CPU
// time other processes took (all CPUs' busy time in /proc/stat minus this
// process's in /proc/self/stat) and the load average (/proc/loadavg).
// Linux only; elsewhere every figure reads 0.

#include <string>

namespace quadbin::perf {

/// A point in time: CPU seconds so far.
struct CpuSample {
  double wallS = 0.0;     ///< steady clock
  double busyS = 0.0;     ///< every CPU's non-idle time (/proc/stat)
  double ownS = 0.0;      ///< this process's user + system time
  double loadAvg1 = 0.0;  ///< the 1-minute load average
};

[[nodiscard]] CpuSample sampleCpu();

/// What the machine did during one or more measurements.
struct LoadUse {
  double wallS = 0.0;
  double othersCpuS = 0.0;  ///< CPU seconds other processes took
  double loadAvgMax = 0.0;  ///< the largest 1-minute load average seen
  /// Other processes' CPUs on average: othersCpuS / wallS.
  [[nodiscard]] double othersCpus() const noexcept {
    return wallS > 0.0 ? othersCpuS / wallS : 0.0;
  }
  void add(const CpuSample& before, const CpuSample& after) noexcept;
  void add(const LoadUse& other) noexcept;
};

/// Other processes took at least this many CPUs on average over the whole
/// command, or kBusyPeakCpus during one configuration: the machine was busy.
inline constexpr double kBusyMeanCpus = 0.25;
inline constexpr double kBusyPeakCpus = 0.5;

}  // namespace quadbin::perf
