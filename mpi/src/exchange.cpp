#include "exchange.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <quadbin/error.hpp>

namespace quadbin::mpi::detail {

namespace {

constexpr int kTagCount = 7101;
constexpr int kTagBytes = 7102;

int asInt(std::uint64_t n) {
  if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw Error("quadbin::mpi: a message over 2 GiB");
  }
  return static_cast<int>(n);
}

// Displacements of the counts, and their total.
std::vector<int> offsets(const std::vector<int>& counts, std::uint64_t& total) {
  std::vector<int> at(counts.size());
  total = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    at[q] = asInt(total);
    total += static_cast<std::uint64_t>(counts[q]);
  }
  (void)asInt(total);
  return at;
}

}  // namespace

std::vector<std::byte> allToAll(MPI_Comm comm, const std::vector<std::vector<std::byte>>& out,
                                Traffic& traffic) {
  const Timed timed(traffic);
  const auto ranks = out.size();
  std::vector<int> sendCounts(ranks), recvCounts(ranks);
  std::vector<std::byte> flat;
  for (std::size_t q = 0; q < ranks; ++q) {
    sendCounts[q] = asInt(out[q].size());
    flat.insert(flat.end(), out[q].begin(), out[q].end());
  }
  MPI_Alltoall(sendCounts.data(), 1, MPI_INT, recvCounts.data(), 1, MPI_INT, comm);
  std::uint64_t sent = 0, received = 0;
  const std::vector<int> sendAt = offsets(sendCounts, sent), recvAt = offsets(recvCounts, received);
  int self = 0;
  MPI_Comm_rank(comm, &self);
  traffic.bytes += sent - out[static_cast<std::size_t>(self)].size();
  std::vector<std::byte> in(received);
  MPI_Alltoallv(flat.data(), sendCounts.data(), sendAt.data(), MPI_BYTE, in.data(),
                recvCounts.data(), recvAt.data(), MPI_BYTE, comm);
  return in;
}

std::span<const std::byte> withNeighbours(MPI_Comm comm, std::span<const int> peers,
                                          const std::vector<std::vector<std::byte>>& out,
                                          std::vector<std::byte>& in, Traffic& traffic) {
  const Timed timed(traffic);
  const std::size_t n = peers.size();
  std::vector<std::uint64_t> sendSize(n), recvSize(n);
  std::vector<MPI_Request> requests;
  requests.reserve(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    sendSize[k] = out[k].size();
    requests.emplace_back();
    MPI_Irecv(&recvSize[k], 1, MPI_UINT64_T, peers[k], kTagCount, comm, &requests.back());
  }
  for (std::size_t k = 0; k < n; ++k) {
    requests.emplace_back();
    MPI_Isend(&sendSize[k], 1, MPI_UINT64_T, peers[k], kTagCount, comm, &requests.back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  std::vector<std::uint64_t> at(n + 1, 0);
  for (std::size_t k = 0; k < n; ++k) at[k + 1] = at[k] + recvSize[k];
  if (in.size() < at[n]) in.resize(at[n]);
  requests.clear();
  for (std::size_t k = 0; k < n; ++k) {
    requests.emplace_back();
    MPI_Irecv(in.data() + at[k], asInt(recvSize[k]), MPI_BYTE, peers[k], kTagBytes, comm,
              &requests.back());
  }
  for (std::size_t k = 0; k < n; ++k) {
    requests.emplace_back();
    MPI_Isend(out[k].data(), asInt(out[k].size()), MPI_BYTE, peers[k], kTagBytes, comm,
              &requests.back());
    traffic.bytes += out[k].size();
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  return {in.data(), at[n]};
}

namespace {

std::vector<std::byte> gatherImpl(MPI_Comm comm, std::span<const std::byte> mine, bool toAll,
                                  Traffic& traffic) {
  const Timed timed(traffic);
  int ranks = 1, self = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &self);
  const int count = asInt(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  if (toAll) {
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  } else {
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  }
  std::uint64_t total = 0;
  const std::vector<int> at = offsets(counts, total);
  std::vector<std::byte> in(toAll || self == 0 ? total : 0);
  if (toAll) {
    MPI_Allgatherv(mine.data(), count, MPI_BYTE, in.data(), counts.data(), at.data(), MPI_BYTE,
                   comm);
    traffic.bytes += mine.size() * static_cast<std::uint64_t>(ranks - 1);
  } else {
    MPI_Gatherv(mine.data(), count, MPI_BYTE, in.data(), counts.data(), at.data(), MPI_BYTE, 0,
                comm);
    if (self != 0) traffic.bytes += mine.size();
  }
  return in;
}

}  // namespace

std::vector<std::byte> allGather(MPI_Comm comm, std::span<const std::byte> mine, Traffic& traffic) {
  return gatherImpl(comm, mine, true, traffic);
}
std::vector<std::byte> gatherToRoot(MPI_Comm comm, std::span<const std::byte> mine,
                                    Traffic& traffic) {
  return gatherImpl(comm, mine, false, traffic);
}

std::string agreeOnFailure(MPI_Comm comm, const std::string& mine) {
  int ranks = 1, self = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &self);
  const int candidate = mine.empty() ? ranks : self;
  int first = ranks;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == ranks) return {};
  std::uint64_t length = first == self ? mine.size() : 0;
  MPI_Bcast(&length, 1, MPI_UINT64_T, first, comm);
  std::string message = first == self ? mine : std::string(length, ' ');
  MPI_Bcast(message.data(), asInt(length), MPI_CHAR, first, comm);
  return "rank " + std::to_string(first) + ": " + message;
}

bool allEqual(MPI_Comm comm, std::uint64_t value) {
  std::uint64_t lo = 0, hi = 0;
  MPI_Allreduce(&value, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&value, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  return lo == hi;
}

}  // namespace quadbin::mpi::detail
