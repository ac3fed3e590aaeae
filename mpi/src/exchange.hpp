#pragma once
// Moving trivially copyable records between ranks: to any rank (counts
// exchanged all-to-all, then the records), and to the neighbours only
// (point to point with each), plus the small agreements every collective
// call needs. Each call returns what it received in rank order and adds
// the bytes it sent and its wall time to the counters it is given.

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace quadbin::mpi::detail {

struct Traffic {
  std::uint64_t bytes = 0;
  double ms = 0.0;
};

// Times a scope into Traffic::ms.
class Timed {
 public:
  explicit Timed(Traffic& t) : t_(t), start_(std::chrono::steady_clock::now()) {}
  ~Timed() {
    t_.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
                 .count();
  }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  Traffic& t_;
  std::chrono::steady_clock::time_point start_;
};

// Bytes to every rank: out[q] goes to rank q (out.size() == ranks); the
// bytes received, rank by rank.
std::vector<std::byte> allToAll(MPI_Comm comm, const std::vector<std::vector<std::byte>>& out,
                                Traffic& traffic);
// Bytes to the given ranks only (each of which sends to this rank too):
// out[k] goes to peers[k]; the bytes received, in the peers' order, are
// the first ones of `in` (grown if need be, never shrunk: a buffer kept
// from step to step is memory already mapped, where a fresh one of
// megabytes is a page fault every 4 KiB).
std::span<const std::byte> withNeighbours(MPI_Comm comm, std::span<const int> peers,
                                          const std::vector<std::vector<std::byte>>& out,
                                          std::vector<std::byte>& in, Traffic& traffic);
// Every rank's bytes, on every rank, rank by rank.
std::vector<std::byte> allGather(MPI_Comm comm, std::span<const std::byte> mine, Traffic& traffic);
// Every rank's bytes on rank 0, rank by rank (elsewhere: empty).
std::vector<std::byte> gatherToRoot(MPI_Comm comm, std::span<const std::byte> mine,
                                    Traffic& traffic);

// The collective agreement on a failure: every rank passes its own message
// (empty: it did fine); every rank gets the message of the lowest failing
// rank, prefixed with that rank, or an empty string when none failed.
std::string agreeOnFailure(MPI_Comm comm, const std::string& mine);
// Whether every rank passed the same 64-bit value.
bool allEqual(MPI_Comm comm, std::uint64_t value);

template <class T>
void append(std::vector<std::byte>& bytes, const T& record) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t at = bytes.size();
  bytes.resize(at + sizeof(T));
  std::memcpy(bytes.data() + at, &record, sizeof(T));
}
// The records in `bytes`, into `out` (its room kept from call to call).
template <class T>
void recordsInto(std::span<const std::byte> bytes, std::vector<T>& out) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.resize(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
}

template <class T>
std::vector<T> records(std::span<const std::byte> bytes) {
  std::vector<T> out;
  recordsInto(bytes, out);
  return out;
}

}  // namespace quadbin::mpi::detail
