// Batches of frames: one contiguous buffer, so a whole batch moves to the GPU in one copy.
//
// Three shapes:
// - uniform: every frame has the same length (`stride` elements; conv and polar frames, LLRs of
//   one code): frame f is data[f * stride, (f + 1) * stride);
// - ragged: per-frame offsets, for frames that differ in length (received sequences over an
//   insertion/deletion channel always do): frame f is data[offsets[f], offsets[f + 1]);
// - padded: frames at a fixed stride, each with its own length (<= stride), as a GPU stage that
//   writes one frame per thread leaves them: frame f is data[f * stride, f * stride + lengths[f]).
// A view also says where its memory lives. Host code may read a host view's data and offsets; a
// device view (memory_space::device) is only handed to a plan's device path, which reads it on the
// GPU (its offsets, when ragged, live on the device too).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "gpufec/common/error.hpp"

namespace gpufec {

enum class memory_space { host, device };

// A read-only view of a batch.
template <class T>
struct batch_view {
  const T* data = nullptr;
  const std::size_t* offsets = nullptr;  // ragged: frames() + 1 entries, offsets[0] == 0
  std::size_t count = 0;
  std::size_t stride = 0;  // uniform (offsets null): the length of every frame; padded: the stride
  memory_space where = memory_space::host;
  const std::size_t* lengths = nullptr;  // padded: frames() entries, each <= stride

  static batch_view uniform(const T* data, std::size_t frames, std::size_t length,
                            memory_space where = memory_space::host) {
    return {data, nullptr, frames, length, where};
  }
  static batch_view ragged(const T* data, const std::size_t* offsets, std::size_t frames,
                           memory_space where = memory_space::host) {
    return {data, offsets, frames, 0, where};
  }
  static batch_view padded(const T* data, const std::size_t* lengths, std::size_t frames,
                           std::size_t stride, memory_space where = memory_space::host) {
    return {data, nullptr, frames, stride, where, lengths};
  }

  bool is_uniform() const { return offsets == nullptr && lengths == nullptr; }
  bool is_padded() const { return lengths != nullptr; }
  bool on_device() const { return where == memory_space::device; }
  std::size_t frames() const { return count; }
  // Elements of the whole batch and of frame f (a ragged device view: not readable on the host).
  std::size_t size() const { return !count ? 0 : offsets ? offsets[count] : count * stride; }
  std::size_t begin_of(std::size_t f) const { return offsets ? offsets[f] : f * stride; }
  std::size_t length(std::size_t f) const { return offsets ? offsets[f + 1] - offsets[f] : stride; }
  std::span<const T> frame(std::size_t f) const { return {data + begin_of(f), length(f)}; }
  // Frames [first, first + n) as a view of their own (a ragged view keeps absolute offsets, so
  // only uniform and padded views can be sliced without copying).
  batch_view slice(std::size_t first, std::size_t n) const {
    require(!offsets, "a ragged batch view cannot be sliced");
    return {data + first * stride, nullptr, n, stride, where, lengths ? lengths + first : nullptr};
  }
};

// A writable uniform batch: frames of `stride` elements each (decoder outputs).
template <class T>
struct batch_span {
  T* data = nullptr;
  std::size_t count = 0;
  std::size_t stride = 0;
  memory_space where = memory_space::host;

  static batch_span uniform(T* data, std::size_t frames, std::size_t length,
                            memory_space where = memory_space::host) {
    return {data, frames, length, where};
  }
  bool on_device() const { return where == memory_space::device; }
  std::size_t frames() const { return count; }
  std::size_t size() const { return count * stride; }
  std::span<T> frame(std::size_t f) const { return {data + f * stride, stride}; }
  batch_span slice(std::size_t first, std::size_t n) const {
    return {data + first * stride, n, stride, where};
  }
  operator batch_view<T>() const { return {data, nullptr, count, stride, where}; }
};

// An owning host batch, ragged or uniform in content (offsets are always kept).
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
  batch_view<T> view() const {
    return batch_view<T>::ragged(data_.data(), offsets_.data(), frames());
  }

 private:
  std::vector<T> data_;
  std::vector<std::size_t> offsets_;
};

}  // namespace gpufec
