// Host batch memory (gpufec/common/page_locked.hpp): aligned, usable, released; page-locked exactly
// when a CUDA device is present (this binary runs on machines with and without one).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>
#include <numeric>

#include "gpufec/common/device.hpp"
#include "gpufec/common/page_locked.hpp"

namespace gpufec {
namespace {

TEST(PageLocked, VectorsAreAlignedUsableAndLockedWhenADeviceIs) {
  page_locked_vector<std::int32_t> v(100000);
  ASSERT_EQ(v.size(), 100000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 64, 0u);
  std::iota(v.begin(), v.end(), -7);
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), std::int64_t{0}),
            std::int64_t{100000} * (100000 - 1) / 2 - 7 * 100000);
  EXPECT_EQ(is_page_locked(v.data()), cuda_device_count() > 0);
  EXPECT_EQ(is_page_locked(v.data() + 99999), cuda_device_count() > 0);  // an interior pointer
  page_locked_vector<std::int32_t> moved = std::move(v);
  EXPECT_EQ(moved[12345], 12345 - 7);
  page_locked_vector<double> other(3, 1.5);
  EXPECT_TRUE(page_locked_allocator<double>() == page_locked_allocator<std::int32_t>());
}

TEST(PageLocked, OrdinaryMemoryIsNotLockedAndBadSizesThrow) {
  std::int32_t on_stack = 0;
  const page_locked_vector<std::int8_t> empty;
  EXPECT_FALSE(is_page_locked(&on_stack));
  EXPECT_FALSE(is_page_locked(nullptr));
  void* zero = allocate_host_batch_memory(0);
  EXPECT_NE(zero, nullptr);
  free_host_batch_memory(zero);
  free_host_batch_memory(nullptr);
  EXPECT_THROW(allocate_host_batch_memory(std::numeric_limits<std::size_t>::max()), std::bad_alloc);
  page_locked_allocator<std::int64_t> a;
  EXPECT_THROW((void)a.allocate(std::numeric_limits<std::size_t>::max() / 4), std::bad_alloc);
}

}  // namespace
}  // namespace gpufec
