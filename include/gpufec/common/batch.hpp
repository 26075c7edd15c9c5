// Batches of frames: one contiguous buffer plus per-frame offsets, so frames may differ in length
// (received sequences over an insertion/deletion channel always do) and a whole batch moves to the
// GPU in one copy.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "gpufec/common/error.hpp"

namespace gpufec {

// A read-only view of a batch: frame f is data[offsets[f], offsets[f + 1]).
template <class T>
struct batch_view {
  const T* data = nullptr;
  const std::size_t* offsets = nullptr;  // frames() + 1 entries, offsets[0] == 0
  std::size_t count = 0;

  std::size_t frames() const { return count; }
  std::size_t size() const { return count ? offsets[count] : 0; }
  std::size_t length(std::size_t f) const { return offsets[f + 1] - offsets[f]; }
  std::span<const T> frame(std::size_t f) const { return {data + offsets[f], length(f)}; }
};

template <class T>
class batch {
 public:
  batch() : offsets_{0} {}
  // `frames` frames of equal length `length`, value-initialized.
  batch(std::size_t frames, std::size_t length) : data_(frames * length), offsets_(frames + 1) {
    for (std::size_t f = 0; f <= frames; ++f) offsets_[f] = f * length;
  }

  std::size_t frames() const { return offsets_.size() - 1; }
  std::size_t size() const { return data_.size(); }
  std::size_t length(std::size_t f) const { return offsets_[f + 1] - offsets_[f]; }
  std::span<T> frame(std::size_t f) { return {data_.data() + offsets_[f], length(f)}; }
  std::span<const T> frame(std::size_t f) const { return {data_.data() + offsets_[f], length(f)}; }

  void clear() {
    data_.clear();
    offsets_.assign(1, 0);
  }
  void push_back(std::span<const T> frame) {
    data_.insert(data_.end(), frame.begin(), frame.end());
    offsets_.push_back(data_.size());
  }
  // Appends a frame of `length` value-initialized elements and returns it for filling.
  std::span<T> append(std::size_t length) {
    data_.resize(data_.size() + length);
    offsets_.push_back(data_.size());
    return frame(frames() - 1);
  }

  std::vector<T>& data() { return data_; }
  const std::vector<T>& data() const { return data_; }
  const std::vector<std::size_t>& offsets() const { return offsets_; }
  batch_view<T> view() const { return {data_.data(), offsets_.data(), frames()}; }

 private:
  std::vector<T> data_;
  std::vector<std::size_t> offsets_;
};

}  // namespace gpufec
