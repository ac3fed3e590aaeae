#pragma once
// Small MPI helpers of the MPI tests (on MPI_COMM_WORLD).
#include <mpi.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <quadbin/geometry.hpp>
#include <span>
#include <type_traits>
#include <vector>

namespace quadbin::test {

// The same bits (a NaN equals itself, -0 differs from 0).
inline bool sameBits(Vec2 a, Vec2 b) {
  return std::bit_cast<std::uint32_t>(a.x) == std::bit_cast<std::uint32_t>(b.x) &&
         std::bit_cast<std::uint32_t>(a.y) == std::bit_cast<std::uint32_t>(b.y);
}

inline int mpiRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int mpiRanks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Every rank's records on rank 0, rank by rank (elsewhere: empty).
template <class T>
std::vector<T> gatherAll(std::span<const T> mine) {
  static_assert(std::is_trivially_copyable_v<T>);
  const int ranks = mpiRanks();
  const int bytes = static_cast<int>(mine.size() * sizeof(T));
  std::vector<int> counts(static_cast<std::size_t>(ranks)), at(static_cast<std::size_t>(ranks));
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int q = 0; q < ranks; ++q) {
    at[static_cast<std::size_t>(q)] = total;
    total += counts[static_cast<std::size_t>(q)];
  }
  std::vector<T> out(mpiRank() == 0 ? static_cast<std::size_t>(total) / sizeof(T) : 0);
  MPI_Gatherv(mine.data(), bytes, MPI_BYTE, out.data(), counts.data(), at.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  return out;
}
template <class T>
std::vector<T> gatherAll(const std::vector<T>& mine) {
  return gatherAll(std::span<const T>(mine));
}

// Rank 0's records on every rank.
template <class T>
std::vector<T> broadcastFromRoot(const std::vector<T>& mine) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::uint64_t n = mine.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::vector<T> out = mine;
  out.resize(n);
  MPI_Bcast(out.data(), static_cast<int>(n * sizeof(T)), MPI_BYTE, 0, MPI_COMM_WORLD);
  return out;
}

inline std::uint64_t sumAll(std::uint64_t mine) {
  std::uint64_t sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

// Rank 0's verdict, on every rank: a test loop stops on all ranks at once
// (a rank that stopped alone would leave the others waiting in a
// collective).
inline bool rootSays(bool good) {
  int flag = good ? 1 : 0;
  MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return flag != 0;
}

}  // namespace quadbin::test
