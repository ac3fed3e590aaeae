#include "strips.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace quadbin::mpi::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A float's bits in an order that follows the float's (negatives
// reversed below the positives).
std::uint32_t orderKey(float f) noexcept {
  const auto u = std::bit_cast<std::uint32_t>(f);
  return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
}
float fromKey(std::uint32_t k) noexcept {
  return std::bit_cast<float>((k & 0x80000000u) != 0 ? k & 0x7fffffffu : ~k);
}

}  // namespace

Strips::Strips(int ranks, double lo, double hi) {
  for (int r = 1; r < ranks; ++r) cuts_.push_back(lo + (hi - lo) * r / ranks);
}

int Strips::owner(double x) const noexcept {
  return static_cast<int>(std::upper_bound(cuts_.begin(), cuts_.end(), x) - cuts_.begin());
}
double Strips::lo(int rank) const noexcept { return rank == 0 ? -kInf : cuts_[rank - 1]; }
double Strips::hi(int rank) const noexcept { return rank + 1 == ranks() ? kInf : cuts_[rank]; }
double Strips::distance(int rank, double x) const noexcept {
  return std::max({lo(rank) - x, x - hi(rank), 0.0});
}
std::vector<int> Strips::neighbours(int rank, double halo) const {
  std::vector<int> out;
  for (int q = 0; q < ranks(); ++q) {
    if (q == rank) continue;
    const double gap = std::max(lo(q) - hi(rank), lo(rank) - hi(q));
    if (gap <= halo) out.push_back(q);
  }
  return out;
}

std::vector<double> balancedCuts(MPI_Comm comm, std::span<const double> xs, double lo, double hi) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::uint64_t local = xs.size(), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (total < static_cast<std::uint64_t>(ranks)) {
    const Strips even(ranks, lo, hi);
    return {even.cuts().begin(), even.cuts().end()};
  }
  std::vector<std::uint32_t> keys(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) keys[i] = orderKey(static_cast<float>(xs[i]));
  std::sort(keys.begin(), keys.end());
  // Cut k: the smallest key c with at least k * total / ranks keys below it,
  // all cuts bisected together (one reduction per halving).
  const auto cuts = static_cast<std::size_t>(ranks - 1);
  std::vector<std::uint64_t> target(cuts), low(cuts, 0), high(cuts, std::uint64_t{1} << 32);
  for (std::size_t k = 0; k < cuts; ++k)
    target[k] = total * (k + 1) / static_cast<std::uint64_t>(ranks);
  std::vector<std::uint64_t> below(cuts), sum(cuts);
  for (int round = 0; round < 33; ++round) {
    for (std::size_t k = 0; k < cuts; ++k) {
      const std::uint64_t mid = (low[k] + high[k]) / 2;
      below[k] =
          mid > 0xffffffffu
              ? keys.size()
              : static_cast<std::uint64_t>(
                    std::lower_bound(keys.begin(), keys.end(), static_cast<std::uint32_t>(mid)) -
                    keys.begin());
    }
    MPI_Allreduce(below.data(), sum.data(), static_cast<int>(cuts), MPI_UINT64_T, MPI_SUM, comm);
    for (std::size_t k = 0; k < cuts; ++k) {
      const std::uint64_t mid = (low[k] + high[k]) / 2;
      if (low[k] >= high[k]) continue;
      if (sum[k] >= target[k]) {
        high[k] = mid;
      } else {
        low[k] = mid + 1;
      }
    }
  }
  std::vector<double> out(cuts);
  for (std::size_t k = 0; k < cuts; ++k) {
    const double c =
        fromKey(static_cast<std::uint32_t>(std::min<std::uint64_t>(low[k], 0xffffffffu)));
    out[k] = std::isfinite(c) ? c
                              : (c > 0 ? std::numeric_limits<double>::max()
                                       : -std::numeric_limits<double>::max());
  }
  return out;
}

std::vector<double> evenCuts(std::vector<double> xs, int ranks, double lo, double hi) {
  const auto n = static_cast<std::uint64_t>(xs.size());
  if (n < static_cast<std::uint64_t>(ranks)) {
    const Strips even(ranks, lo, hi);
    return {even.cuts().begin(), even.cuts().end()};
  }
  std::vector<float> keys(xs.begin(), xs.end());
  std::sort(keys.begin(), keys.end());
  std::vector<double> out;
  for (std::uint64_t k = 1; k < static_cast<std::uint64_t>(ranks); ++k) {
    // As balancedCuts: just past the value below which k * n / ranks lie.
    const std::uint64_t t = n * k / static_cast<std::uint64_t>(ranks);
    out.push_back(std::nextafter(keys[t - 1], std::numeric_limits<float>::infinity()));
  }
  return out;
}

}  // namespace quadbin::mpi::detail
