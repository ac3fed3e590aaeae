#pragma once
// A growable scratch array that is never zero-filled, for the broad phases'
// per-frame working space.

#include <algorithm>
#include <cstddef>
#include <memory>

namespace quadbin::detail {

/// A growable array of a trivially copyable T that is never zero-filled
/// (std::vector::resize would zero-fill what every split then overwrites).
template <class T>
class ScratchBuffer {
 public:
  [[nodiscard]] T* data() noexcept { return data_.get(); }
  [[nodiscard]] const T* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  void clear() noexcept { size_ = 0; }
  void resize(std::size_t n) {
    if (n > capacity_) grow(n);
    size_ = n;
  }
  // Named as std::vector's, so the builds read the same with either.
  void push_back(const T& value) {  // NOLINT(readability-identifier-naming)
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_++] = value;
  }

 private:
  void grow(std::size_t atLeast) {
    const std::size_t capacity = std::max({atLeast, 2 * capacity_, std::size_t{64}});
    auto grown = std::make_unique_for_overwrite<T[]>(capacity);
    std::copy(data_.get(), data_.get() + size_, grown.get());
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};
}  // namespace quadbin::detail
