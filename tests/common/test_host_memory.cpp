// The host memory plans count on: the cgroup limits of a container or a batch job, and the user's
// cap, over what the kernel reports.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "common/host_memory.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::detail {
namespace {

namespace fs = std::filesystem;
constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("gpufec_cgroup_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) {
    const fs::path p = root_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string root() const { return root_.string(); }
  fs::path root_;
};

TEST_F(CgroupTree, V2TakesTheTightestAncestorLessResidentUse) {
  // A job's cgroup under a user slice: the slice allows 8 GiB with 6 GiB in use, the job 4 GiB
  // with 1 GiB in use of which 512 MiB is reclaimable page cache.
  write("memory.max", "max\n");
  write("user.slice/memory.max", "8589934592\n");
  write("user.slice/memory.current", "6442450944\n");
  write("user.slice/job/memory.max", "4294967296\n");
  write("user.slice/job/memory.current", "1073741824\n");
  write("user.slice/job/memory.stat", "anon 536870912\ninactive_file 536870912\n");
  EXPECT_EQ(cgroup_memory_headroom(root(), "0::/user.slice/job\n"), std::size_t{2} << 30);
  write("user.slice/memory.current", "1073741824\n");
  EXPECT_EQ(cgroup_memory_headroom(root(), "0::/user.slice/job\n"),
            (std::size_t{4} << 30) - (std::size_t{512} << 20));
  // Over the limit already: nothing is left, never a wrapped-around huge number.
  write("user.slice/job/memory.current", "8589934592\n");
  write("user.slice/job/memory.stat", "inactive_file 0\n");
  EXPECT_EQ(cgroup_memory_headroom(root(), "0::/user.slice/job\n"), 0u);
}

TEST_F(CgroupTree, V1ReadsTheMemoryHierarchyAndItsNoLimitValue) {
  write("memory/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  write("memory/memory.usage_in_bytes", "24145920\n");
  EXPECT_EQ(cgroup_memory_headroom(root(), "4:memory:/process_api/abc\n0::/\n"), none);
  write("memory/memory.limit_in_bytes", "2147483648\n");
  write("memory/memory.stat", "cache 100\ntotal_inactive_file 145920\n");
  EXPECT_EQ(cgroup_memory_headroom(root(), "5:cpu:/x\n4:memory,hugetlb:/process_api/abc\n"),
            2147483648u - 24000000u);
}

TEST_F(CgroupTree, NoCgroupFilesMeanNoLimit) {
  EXPECT_EQ(cgroup_memory_headroom(root(), ""), none);
  EXPECT_EQ(cgroup_memory_headroom(root(), "0::/a/b\n"), none);
  write("memory.max", "max\n");
  EXPECT_EQ(cgroup_memory_headroom(root(), "0::/\n"), none);
}

TEST(MemoryLimit, SizesInBytesOrBinaryUnits) {
  EXPECT_EQ(parse_memory_limit("4096"), 4096u);
  EXPECT_EQ(parse_memory_limit("64G"), std::size_t{64} << 30);
  EXPECT_EQ(parse_memory_limit("512m"), std::size_t{512} << 20);
  EXPECT_EQ(parse_memory_limit("1.5GiB"), std::size_t{3} << 29);
  EXPECT_EQ(parse_memory_limit("2TB"), std::size_t{2} << 40);
  EXPECT_EQ(parse_memory_limit("8k "), 8192u);
  for (const char* bad : {"", "G", "-1G", "0", "12X", "1e30T", "nan", "4 G B"}) {
    try {
      parse_memory_limit(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("GPUFEC_MEMORY_LIMIT"), std::string::npos) << e.what();
    }
  }
}

TEST(MemoryLimit, CapsWhatPlansCountOn) {
  const char* before = std::getenv(memory_limit_variable);
  const std::string saved = before ? before : "";
  const std::size_t unlimited = available_host_memory();
  ::setenv(memory_limit_variable, "1M", 1);
  EXPECT_EQ(available_host_memory(), std::min(unlimited, std::size_t{1} << 20));
  ::setenv(memory_limit_variable, "lots", 1);
  EXPECT_THROW(available_host_memory(), invalid_argument);
  if (before)
    ::setenv(memory_limit_variable, saved.c_str(), 1);
  else
    ::unsetenv(memory_limit_variable);
}

}  // namespace
}  // namespace gpufec::detail
