#pragma once
/// \file
/// Deterministic building blocks on top of a TaskSystem. Work is cut into
/// chunks whose size is a constant of the caller (never the thread count),
/// each chunk writes only its own output, and outputs are merged in chunk
/// order; so results are the same, bit for bit, on any task system.
/// Internal to quadbin's layers (not installed).

#include <algorithm>
#include <array>
#include <cstdint>
#include <quadbin/tasks/task_system.hpp>
#include <vector>

namespace quadbin {

/// Chunks of `chunkSize` indices covering [0, count): the last may be shorter.
[[nodiscard]] constexpr std::uint32_t chunkCount(std::uint32_t count,
                                                 std::uint32_t chunkSize) noexcept {
  return count == 0 ? 0 : (count - 1) / chunkSize + 1;
}

/// Runs fn(chunk, begin, end) for each chunk of `chunkSize` indices of
/// [0, count), as independent tasks. The chunks depend only on count and
/// chunkSize, so per-chunk outputs merged in chunk order are deterministic.
template <class F>
void forEachChunk(TaskSystem& tasks, std::uint32_t count, std::uint32_t chunkSize, F&& fn) {
  const std::uint32_t chunks = chunkCount(count, chunkSize);
  tasks.forkJoin(chunks, [&](std::uint32_t c) {
    const std::uint32_t begin = c * chunkSize;
    fn(c, begin, std::min(count, begin + chunkSize));
  });
}

/// One output buffer per chunk, concatenated in chunk order: the merge step
/// of "each task writes its own buffer". The buffers keep their capacity
/// from frame to frame, so a warm frame allocates nothing.
template <class T>
class OrderedBuffers {
 public:
  /// `count` empty buffers.
  void reset(std::uint32_t count) {
    if (buffers_.size() < count) buffers_.resize(count);
    for (std::uint32_t i = 0; i < count; ++i) buffers_[i].clear();
    count_ = count;
  }
  [[nodiscard]] std::uint32_t size() const noexcept { return count_; }
  [[nodiscard]] std::vector<T>& operator[](std::uint32_t i) noexcept { return buffers_[i]; }
  [[nodiscard]] const std::vector<T>& operator[](std::uint32_t i) const noexcept {
    return buffers_[i];
  }
  [[nodiscard]] std::size_t totalSize() const noexcept {
    std::size_t total = 0;
    for (std::uint32_t i = 0; i < count_; ++i) total += buffers_[i].size();
    return total;
  }

  /// Appends buffer 0, then buffer 1, ... to `out` (copies in parallel).
  void appendTo(TaskSystem& tasks, std::vector<T>& out) { copyInto(tasks, out, out.size()); }
  /// Makes `out` buffer 0, then buffer 1, ... (copies in parallel). Unlike
  /// clear() then appendTo, the elements `out` already has are overwritten
  /// in place, not value-initialised first by one thread: only what grows
  /// past its old size is.
  void assignTo(TaskSystem& tasks, std::vector<T>& out) { copyInto(tasks, out, 0); }

  [[nodiscard]] std::size_t memoryBytes() const noexcept {
    std::size_t bytes =
        buffers_.capacity() * sizeof(std::vector<T>) + offsets_.capacity() * sizeof(std::size_t);
    for (const auto& b : buffers_) bytes += b.capacity() * sizeof(T);
    return bytes;
  }

 private:
  // The buffers into `out` from index `from` on; `out` ends after them.
  void copyInto(TaskSystem& tasks, std::vector<T>& out, std::size_t from) {
    offsets_.resize(count_ + 1);
    std::size_t at = from;
    for (std::uint32_t i = 0; i < count_; ++i) {
      offsets_[i] = at;
      at += buffers_[i].size();
    }
    offsets_[count_] = at;
    out.resize(at);
    if (at == from) return;
    T* dst = out.data();
    auto copy = [&](std::uint32_t i) {
      std::copy(buffers_[i].begin(), buffers_[i].end(), dst + offsets_[i]);
    };
    if ((at - from) * sizeof(T) < kSerialCopyBytes) {  // less than starting a region costs
      for (std::uint32_t i = 0; i < count_; ++i) copy(i);
      return;
    }
    tasks.forkJoin(count_, copy);
  }

  // Fewer bytes than this are copied on the calling thread: at memory
  // speed they take about as long as waking the other workers and joining
  // them (tens of microseconds on 16 cores: docs/scaling.md).
  static constexpr std::size_t kSerialCopyBytes = std::size_t{1} << 18;

  std::vector<std::vector<T>> buffers_;
  std::vector<std::size_t> offsets_;
  std::uint32_t count_ = 0;
};

/// The prefix sums of a stable counting sort done by chunks: `counts` holds,
/// for each chunk c, the count of each bucket b at counts[c * stride + b];
/// each is replaced by where that chunk's items of that bucket start
/// (bucket-major, then chunk order). When `bucketStart` is not null, it
/// gets each bucket's first offset. Returns the total.
inline std::uint32_t chunkedBucketOffsets(std::uint32_t* counts, std::uint32_t chunks,
                                          std::uint32_t buckets, std::size_t stride,
                                          std::uint32_t* bucketStart = nullptr) noexcept {
  std::uint32_t running = 0;
  for (std::uint32_t b = 0; b < buckets; ++b) {
    if (bucketStart != nullptr) bucketStart[b] = running;
    for (std::uint32_t c = 0; c < chunks; ++c) {
      std::uint32_t& slot = counts[std::size_t{c} * stride + b];
      const std::uint32_t here = slot;
      slot = running;
      running += here;
    }
  }
  return running;
}

/// Stable LSD radix sort of 64-bit keys of which only the low `keyBits` bits
/// may be set, in as few passes of at most 12 bits as cover them (digits
/// as even as they go: 34 bits are 3 passes of 12, not 4 of 11), chunks
/// counted and scattered in parallel (per-chunk histograms, prefix sums
/// over digit then chunk; about 8 chunks, of 16,384 to 65,536 keys: a
/// function of the key count alone; fewer keys sort on the calling thread,
/// where a pass costs less than starting a region). The result is the keys
/// in ascending order, whatever the task system. The `lowBits` lowest bits are not
/// sorted on: they ride along (a payload, such as an index), and keys equal
/// above them keep their order. `scratch` and `counts` are working space
/// kept by the caller.
inline void parallelRadixSort(TaskSystem& tasks, std::vector<std::uint64_t>& keys,
                              std::vector<std::uint64_t>& scratch,
                              std::vector<std::uint32_t>& counts, unsigned keyBits,
                              unsigned lowBits = 0) {
  constexpr unsigned kMaxDigitBits = 12;
  constexpr std::uint32_t kMinChunk = 1u << 14, kMaxChunk = 1u << 16, kChunks = 8;
  const auto n = static_cast<std::uint32_t>(keys.size());
  if (n < 2 || keyBits <= lowBits) return;
  const unsigned sortBits = keyBits - lowBits;
  const unsigned passes = (sortBits + kMaxDigitBits - 1) / kMaxDigitBits;
  const unsigned digitBits = (sortBits + passes - 1) / passes;
  const std::uint32_t digits = 1u << digitBits;
  const std::uint32_t chunk = std::clamp((n - 1) / kChunks + 1, kMinChunk, kMaxChunk);
  const std::uint32_t chunks = chunkCount(n, chunk);
  scratch.resize(n);
  counts.resize(std::size_t{chunks} * digits);
  for (unsigned shift = lowBits; shift < keyBits; shift += digitBits) {
    const std::uint64_t* src = keys.data();
    std::uint64_t* dst = scratch.data();
    std::uint32_t* count = counts.data();
    forEachChunk(tasks, n, chunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
      std::uint32_t* h = count + std::size_t{c} * digits;
      std::fill(h, h + digits, 0u);
      for (std::uint32_t i = begin; i < end; ++i) ++h[(src[i] >> shift) & (digits - 1)];
    });
    // A digit that every key shares sorts nothing.
    const std::uint64_t firstDigit = (src[0] >> shift) & (digits - 1);
    std::uint32_t sharing = 0;
    for (std::uint32_t c = 0; c < chunks; ++c)
      sharing += count[std::size_t{c} * digits + firstDigit];
    if (sharing == n) continue;
    chunkedBucketOffsets(count, chunks, digits, digits);
    forEachChunk(tasks, n, chunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
      std::uint32_t* cursor = count + std::size_t{c} * digits;
      for (std::uint32_t i = begin; i < end; ++i) {
        dst[cursor[(src[i] >> shift) & (digits - 1)]++] = src[i];
      }
    });
    keys.swap(scratch);
  }
}

}  // namespace quadbin
