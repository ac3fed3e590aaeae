#pragma once
// Small MPI helpers of the MPI tests (on MPI_COMM_WORLD).
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace quadbin::test {

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
