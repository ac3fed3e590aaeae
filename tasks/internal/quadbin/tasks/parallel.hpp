#pragma once
/// \file
/// Deterministic building blocks on top of a TaskSystem. Work is cut into
/// chunks whose size is a constant of the caller (never the thread count),
/// each chunk writes only its own output, and outputs are merged in chunk
/// order; so results are the same, bit for bit, on any task system.
/// Internal to quadbin's layers (not installed).

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <quadbin/tasks/one_region.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <vector>

namespace quadbin {

/// Chunks of `chunkSize` indices covering [0, count): the last may be shorter.
[[nodiscard]] constexpr std::uint32_t chunkCount(std::uint32_t count,
                                                 std::uint32_t chunkSize) noexcept {
  return count == 0 ? 0 : (count - 1) / chunkSize + 1;
}

/// A chunk size for `count` items that cuts them into about `parts` chunks,
/// no smaller than `least` items and no larger than `most`: enough tasks
/// for many workers where the count is modest, tasks worth starting where
/// it is small, and the largest ones' cache locality where it is large. A
/// function of the count alone (never the thread count).
[[nodiscard]] constexpr std::uint32_t chunkSizeFor(std::uint32_t count, std::uint32_t parts,
                                                   std::uint32_t least,
                                                   std::uint32_t most) noexcept {
  return std::clamp(count / parts, least, most);
}

/// Items per task of a pass over a step's contacts, pairs or events (a few
/// to some tens of nanoseconds each): one chunk up to 4,096 items, chunks
/// of 2,048 below 16,384, about 64 chunks of 1,024 to 4,096 above. A
/// region pays for its start only with some tens of microseconds of work
/// per task (3,000 keys cut in three made a region of 5 us tasks), and
/// 10,000 items in chunks of 4,096 were three tasks, one and a half per
/// thread on two.
[[nodiscard]] constexpr std::uint32_t passChunk(std::uint32_t count) noexcept {
  constexpr std::uint32_t kSplitFrom = 1u << 14, kSmall = 2048, kMost = 4096;
  if (count <= kMost) return kMost;
  return count < kSplitFrom ? kSmall : chunkSizeFor(count, 64, 1024, kMost);
}

/// Items per range of an element-wise pass over a world's bodies (a few
/// nanoseconds each): 4,096 up to 262,144 bodies, then about 64 ranges of
/// up to 16,384. At 1,000,000 bodies ranges of 4,096 were 245 tasks of
/// 6-20 us a pass, on many workers as much claiming as work.
[[nodiscard]] constexpr std::uint32_t bodyPassGrain(std::uint32_t count) noexcept {
  return chunkSizeFor(count, 64, 4096, 16384);
}

/// The tasks a pass of passChunk over `count` items has: the width of a
/// region made of such passes (inOneRegion).
[[nodiscard]] constexpr std::uint32_t passWidth(std::size_t count) noexcept {
  const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(count, UINT32_MAX));
  return std::max(1u, chunkCount(n, passChunk(n)));
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
  /// Whether the buffers joined in order are sorted by `less`, given for
  /// each whether it came out sorted on its own (`inOrder[i] != 0`, noted
  /// as it was filled): only the boundaries between buffers are compared.
  template <class Less>
  [[nodiscard]] bool joinedInOrder(const std::vector<std::uint8_t>& inOrder, Less less) const {
    const T* last = nullptr;  // the last item of the buffers before
    for (std::uint32_t i = 0; i < count_; ++i) {
      if (inOrder[i] == 0) return false;
      const std::vector<T>& b = buffers_[i];
      if (b.empty()) continue;
      if (last != nullptr && less(b.front(), *last)) return false;
      last = &b.back();
    }
    return true;
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
    const std::size_t bytes = (at - from) * sizeof(T);
    if (bytes < kSerialCopyBytes) {  // less than starting a region costs
      for (std::uint32_t i = 0; i < count_; ++i) {
        std::copy(buffers_[i].begin(), buffers_[i].end(), dst + offsets_[i]);
      }
      return;
    }
    // Tasks by output range, not one per buffer (a broad phase's pairs come
    // in hundreds of buffers): each copies its share of `out` from the
    // buffers it overlaps.
    const auto parts = static_cast<std::uint32_t>(
        std::clamp<std::size_t>(bytes / kCopyTaskBytes, 1, kMaxCopyTasks));
    const std::size_t total = at - from;
    tasks.forkJoin(parts, [&](std::uint32_t t) {
      const std::size_t lo = from + total * t / parts, hi = from + total * (t + 1) / parts;
      // The last buffer that starts at or before lo.
      auto i = static_cast<std::uint32_t>(
          std::upper_bound(offsets_.begin(), offsets_.begin() + count_, lo) - offsets_.begin() - 1);
      for (; i < count_ && offsets_[i] < hi; ++i) {
        const std::size_t begin = std::max(lo, offsets_[i]), end = std::min(hi, offsets_[i + 1]);
        if (begin >= end) continue;
        const auto* src = buffers_[i].data() + (begin - offsets_[i]);
        std::copy(src, src + (end - begin), dst + begin);
      }
    });
  }

  // Fewer bytes than this are copied on the calling thread: at memory
  // speed they take about as long as waking the other workers and joining
  // them (tens of microseconds on 16 cores: docs/scaling.md).
  static constexpr std::size_t kSerialCopyBytes = std::size_t{1} << 18;
  // A copying task's share: at least this many bytes, in at most
  // kMaxCopyTasks tasks.
  static constexpr std::size_t kCopyTaskBytes = std::size_t{1} << 16;
  static constexpr std::size_t kMaxCopyTasks = 64;

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

namespace detail {

/// Stable LSD radix sort of a[0, n) on bits [lowBits, keyBits), digits of
/// at most 11 bits (as even as they go), `other` the second buffer of n
/// keys and `hist` 2,048 counters of working space. Returns the buffer
/// that holds the result: `a` or `other`. A digit that every key shares
/// is skipped.
inline std::uint64_t* radixSortBlock(std::uint64_t* a, std::uint64_t* other, std::uint32_t n,
                                     unsigned lowBits, unsigned keyBits,
                                     std::uint32_t* hist) noexcept {
  constexpr unsigned kMaxDigitBits = 11;
  if (n < 2 || keyBits <= lowBits) return a;
  const unsigned sortBits = keyBits - lowBits;
  const unsigned passes = (sortBits + kMaxDigitBits - 1) / kMaxDigitBits;
  const unsigned digitBits = (sortBits + passes - 1) / passes;
  const std::uint64_t mask = (std::uint64_t{1} << digitBits) - 1;
  const std::uint32_t digits = 1u << digitBits;
  for (unsigned shift = lowBits; shift < keyBits; shift += digitBits) {
    std::fill(hist, hist + digits, 0u);
    for (std::uint32_t i = 0; i < n; ++i) ++hist[(a[i] >> shift) & mask];
    if (hist[(a[0] >> shift) & mask] == n) continue;
    std::uint32_t running = 0;
    for (std::uint32_t d = 0; d < digits; ++d) {
      const std::uint32_t here = hist[d];
      hist[d] = running;
      running += here;
    }
    for (std::uint32_t i = 0; i < n; ++i) other[hist[(a[i] >> shift) & mask]++] = a[i];
    std::swap(a, other);
  }
  return a;
}

// parallelRadixSort's keys after the scatter: in dst, bucket b at
// [bucketStart[b], bucketStart[b + 1]); runStart is room for the runs.
struct ScatteredKeys {
  std::uint64_t* src;
  std::uint64_t* dst;
  const std::uint32_t* bucketStart;
  std::uint32_t* runStart;
};

// Runs of whole buckets of at least `target` keys (the last: the rest),
// each sorted on its own in one task (in dst, with src's part as the
// second buffer) and left in src.
inline void sortRuns(TaskSystem& tasks, ScatteredKeys k, std::uint32_t buckets,
                     std::uint32_t target, unsigned lowBits, unsigned keyBits) {
  constexpr std::uint32_t kHist = 1u << 11;  // radixSortBlock's counters
  std::uint32_t runs = 0;
  k.runStart[0] = 0;
  for (std::uint32_t b = 1; b <= buckets; ++b) {
    if (k.bucketStart[b] - k.runStart[runs] >= target || b == buckets) {
      if (k.bucketStart[b] > k.runStart[runs]) k.runStart[++runs] = k.bucketStart[b];
    }
  }
  tasks.forkJoin(runs, [&](std::uint32_t r) {
    const std::uint32_t begin = k.runStart[r], size = k.runStart[r + 1] - begin;
    std::array<std::uint32_t, kHist> local{};
    const std::uint64_t* sorted =
        radixSortBlock(k.dst + begin, k.src + begin, size, lowBits, keyBits, local.data());
    if (sorted != k.src + begin) std::copy(sorted, sorted + size, k.src + begin);
  });
}

}  // namespace detail

/// Stable radix sort of 64-bit keys of which only the low `keyBits` bits
/// may be set. The result is the keys in ascending order, whatever the
/// task system. The `lowBits` lowest bits are not sorted on: they ride
/// along (a payload, such as an index), and keys equal above them keep
/// their order. `scratch` and `counts` are working space kept by the
/// caller.
///
/// In one region of three phases, whatever the key width (an LSD sort
/// over memory takes two regions per digit; inOneRegion): the keys are counted by their top 8
/// sorted bits in chunks, scattered by them (per-chunk histograms, prefix sums over digit then
/// chunk), and each run of whole buckets, of about 1/32 of the keys, is then sorted on its own in
/// cache (an LSD sort of the run). The chunks and runs are a function of the keys alone. When the
/// top bits are the same in every key, the first count finds it and the keys are counted again on
/// the highest bits that differ. Up to 16,384 keys sort on the calling thread, where a region costs
/// more than the sort.
inline void parallelRadixSort(TaskSystem& tasks, std::vector<std::uint64_t>& keys,
                              std::vector<std::uint64_t>& scratch,
                              std::vector<std::uint32_t>& counts, unsigned keyBits,
                              unsigned lowBits = 0) {
  constexpr std::uint32_t kHist = 1u << 11;  // radixSortBlock's counters
  constexpr unsigned kTopBits = 8;
  constexpr std::uint32_t kBuckets = 1u << kTopBits;
  constexpr std::uint32_t kSerialMax = 1u << 14, kParts = 32;
  constexpr std::uint32_t kMinChunk = 1u << 13, kMaxChunk = 1u << 16;
  const auto n = static_cast<std::uint32_t>(keys.size());
  if (n < 2 || keyBits <= lowBits) return;
  scratch.resize(n);
  if (n <= kSerialMax) {
    counts.resize(kHist);
    if (detail::radixSortBlock(keys.data(), scratch.data(), n, lowBits, keyBits, counts.data()) !=
        keys.data()) {
      keys.swap(scratch);
    }
    return;
  }
  const std::uint32_t chunk = std::clamp((n - 1) / kParts + 1, kMinChunk, kMaxChunk);
  const std::uint32_t chunks = chunkCount(n, chunk);
  // counts: the chunks' histograms, then the buckets' starts, then the
  // runs' starts (kBuckets + 1 each at most).
  counts.resize(std::size_t{chunks} * kBuckets + std::size_t{2} * (kBuckets + 1));
  std::uint32_t* hist = counts.data();
  std::uint32_t* bucketStart = hist + std::size_t{chunks} * kBuckets;
  std::uint32_t* runStart = bucketStart + kBuckets + 1;
  std::uint64_t* src = keys.data();
  std::uint64_t* dst = scratch.data();
  // The passes and the serial work between them: one region.
  inOneRegion(tasks, kParts + 1, [&](TaskSystem& team) {
    // The bits in which some chunk's key differs from the first key, kept in
    // dst[c] (dst is written only by the scatter, after they are read).
    auto count = [&](unsigned shift, bool diff) {
      forEachChunk(team, n, chunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
        std::uint32_t* h = hist + std::size_t{c} * kBuckets;
        std::fill(h, h + kBuckets, 0u);
        std::uint64_t bits = 0;
        for (std::uint32_t i = begin; i < end; ++i) {
          ++h[(src[i] >> shift) & (kBuckets - 1)];
          bits |= src[i] ^ src[0];
        }
        if (diff) dst[c] = bits;
      });
    };
    unsigned shift = keyBits > lowBits + kTopBits ? keyBits - kTopBits : lowBits;
    count(shift, true);
    std::uint64_t differ = 0;
    for (std::uint32_t c = 0; c < chunks; ++c) differ |= dst[c];
    const auto highest = static_cast<unsigned>(std::bit_width(differ));
    if (highest <= lowBits) return;  // equal above the payload: in order already
    if (highest < keyBits) {
      keyBits = highest;
      const unsigned narrower = keyBits > lowBits + kTopBits ? keyBits - kTopBits : lowBits;
      if (narrower != shift) {
        shift = narrower;
        count(shift, false);
      }
    }
    chunkedBucketOffsets(hist, chunks, kBuckets, kBuckets, bucketStart);
    bucketStart[kBuckets] = n;
    forEachChunk(team, n, chunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
      std::uint32_t* cursor = hist + std::size_t{c} * kBuckets;
      for (std::uint32_t i = begin; i < end; ++i) {
        dst[cursor[(src[i] >> shift) & (kBuckets - 1)]++] = src[i];
      }
    });
    const std::uint32_t target = std::clamp((n - 1) / kParts + 1, kMinChunk / 2, kMaxChunk);
    detail::sortRuns(team, {src, dst, bucketStart, runStart}, kBuckets, target, lowBits, keyBits);
  });
}

}  // namespace quadbin
