// `gpufec decode sync --backend cuda` end to end through the real binary, on frames made by
// `encode sync` and `channel bsid`: the CUDA decoder decodes what the CPU decodes and writes the
// same decisions. Every test skips without a CUDA device.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli/cli_util.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/random.hpp"

namespace gpufec {
namespace {

using testing::read_all;
using testing::run_cli;

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

class SyncCudaCli : public testing::cli_test {};

// q = 4, n = 4, N = 60, a random codebook per index, Pi = Pd = 0.03, Ps = 0.01: the full lattice
// in double needs 57 KB of shared memory per gamma block, above the 48 KB a launch gets without
// opting in. Every lattice, precision and storage mode decodes every frame, as on the CPU.
TEST_F(SyncCudaCli, FullLatticeDecodesWhatTheCpuDecodes) {
  SKIP_WITHOUT_GPU();
  std::ofstream messages(path("m.txt"));
  philox_stream rng(5, rng_source, 0);
  for (int f = 0; f < 20; ++f) {
    for (int i = 0; i < 60; ++i) messages << rng.next_below(4) << (i + 1 < 60 ? " " : "\n");
  }
  messages.close();
  const std::string code = " --q 4 --n 4 --N 60 --codebook-seed 3";
  ASSERT_EQ(run_cli("encode sync" + code + " -i " + path("m.txt") + " -o " + path("x.txt")).status,
            0);
  ASSERT_EQ(run_cli("channel bsid --pi 0.03 --pd 0.03 --ps 0.01 --seed 11 -i " + path("x.txt") +
                    " -o " + path("y.txt"))
                .status,
            0);
  for (const char* lattice : {"full", "corridor"})
    for (const char* real : {"double", "float"})
      for (const char* storage : {"global", "compact", "local"}) {
        const std::string args = "decode sync" + code +
                                 " --pi 0.03 --pd 0.03 --ps 0.01 --Pr 1e-10 --end known" +
                                 " --lattice " + lattice + " --lattice-real " + real +
                                 " --storage " + storage + " -i " + path("y.txt");
        const std::string what = std::string(lattice) + " " + real + " " + storage;
        const auto cpu = run_cli(args + " --backend cpu --decisions " + path("cpu.txt"));
        ASSERT_EQ(cpu.status, 0) << what << "\n" << cpu.output;
        const auto gpu = run_cli(args + " --backend cuda --decisions " + path("gpu.txt"));
        ASSERT_EQ(gpu.status, 0) << what << "\n" << gpu.output;
        EXPECT_EQ(read_all(path("gpu.txt")), read_all(path("cpu.txt"))) << what;
      }
}

}  // namespace
}  // namespace gpufec
