#include "load.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace quadbin::perf {

namespace {

double ticksPerSecond() {
  static const double ticks = [] {
    const long t = sysconf(_SC_CLK_TCK);
    return t > 0 ? static_cast<double>(t) : 100.0;
  }();
  return ticks;
}

// /proc/stat's first line: cpu user nice system idle iowait irq softirq
// steal guest guest_nice (guest time is counted in user already).
double busySeconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                     steal = 0;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
      cpu != "cpu") {
    return 0.0;
  }
  return static_cast<double>(user + nice + system + irq + softirq + steal) / ticksPerSecond();
}

// /proc/self/stat: utime and stime are fields 14 and 15, counted after the
// command name in parentheses (which may hold spaces).
double ownSeconds() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return 0.0;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return 0.0;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // Field 3 (state) is the first after ')'; utime is field 14.
  for (int k = 3; k <= 13 && fields >> field; ++k) {
  }
  if (!(fields >> utime >> stime)) return 0.0;
  return static_cast<double>(utime + stime) / ticksPerSecond();
}

double loadAverage1() {
  std::ifstream in("/proc/loadavg");
  double load = 0.0;
  return in >> load ? load : 0.0;
}

}  // namespace

CpuSample sampleCpu() {
  CpuSample s;
  s.wallS =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  s.busyS = busySeconds();
  s.ownS = ownSeconds();
  s.loadAvg1 = loadAverage1();
  return s;
}

void LoadUse::add(const CpuSample& before, const CpuSample& after) noexcept {
  wallS += std::max(0.0, after.wallS - before.wallS);
  othersCpuS += std::max(0.0, (after.busyS - before.busyS) - (after.ownS - before.ownS));
  loadAvgMax = std::max({loadAvgMax, before.loadAvg1, after.loadAvg1});
}

void LoadUse::add(const LoadUse& other) noexcept {
  wallS += other.wallS;
  othersCpuS += other.othersCpuS;
  loadAvgMax = std::max(loadAvgMax, other.loadAvgMax);
}

}  // namespace quadbin::perf
