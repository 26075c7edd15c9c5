// A CPU conv plan's call ends on a stop (gpufec::stopped, inside a long frame too) for every
// decoder, gives the bits of an unstopped call otherwise, plans no more threads and scratch than
// its batches can use, and refuses up front what would not fit in memory.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

#include "conv/conv_test_util.hpp"
#include "gpufec/common/device.hpp"

namespace gpufec::conv::testing {
namespace {

TEST(ConvStop, EveryCpuDecoderEndsOnAStopAndDecodesAlikeWithoutOne) {
  const conv_code code(7, {0171, 0133});
  const puncture_pattern none = puncture_pattern::none(2);
  const std::size_t N = 200000;  // 200 000 stages: several stop checks in one frame
  const encoder enc(code, none, N, termination::truncated);
  const auto bits = random_bits(3, 0, N);
  std::vector<std::uint8_t> coded(enc.shape().coded_bits);
  enc.encode(bits, coded);
  const std::vector<float> llr = awgn_llrs(coded, 0.7, 5, 0);
  std::atomic<bool> flag{true};
  const stop_token requested(&flag, stop_token::clock::time_point::max());
  for (const decoder_kind kind :
       {decoder_kind::reference, decoder_kind::fast, decoder_kind::tiled}) {
    SCOPED_TRACE(name_of(kind));
    decoder_options o;
    o.decoder = kind;
    decoder_plan plan(code, none, N, termination::truncated, o, backend::cpu, 1);
    EXPECT_EQ(plan.summary().threads, 1) << "one frame per call: one thread";
    std::vector<std::uint8_t> out(N), again(N);
    const auto in = batch_view<float>::uniform(llr.data(), 1, llr.size());
    EXPECT_THROW(plan.decode(in, batch_span<std::uint8_t>::uniform(out.data(), 1, N), requested),
                 stopped);
    // Not requested: the same bits as a call without a token.
    std::atomic<bool> idle{false};
    plan.decode(in, batch_span<std::uint8_t>::uniform(out.data(), 1, N),
                stop_token(&idle, stop_token::clock::time_point::max()));
    plan.decode(in, batch_span<std::uint8_t>::uniform(again.data(), 1, N));
    EXPECT_EQ(out, again);
  }
}

// Threads and scratch follow the batch: the fast decoder takes runs of 16 frames per thread.
TEST(ConvStop, PlansNoMoreThreadsThanTheirBatchesUse) {
  const conv_code code(7, {0171, 0133});
  const puncture_pattern none = puncture_pattern::none(2);
  decoder_options o;
  o.threads = 4;
  o.decoder = decoder_kind::fast;
  EXPECT_EQ(
      decoder_plan(code, none, 100, termination::zero_tail, o, backend::cpu, 1).summary().threads,
      1);
  EXPECT_EQ(
      decoder_plan(code, none, 100, termination::zero_tail, o, backend::cpu, 40).summary().threads,
      3);
  o.decoder = decoder_kind::reference;
  EXPECT_EQ(
      decoder_plan(code, none, 100, termination::zero_tail, o, backend::cpu, 2).summary().threads,
      2);
}

// A frame whose survivors cannot fit is refused at the plan by every CPU decoder, naming its need:
// 2^28 stages of 256 states on 64 threads hold 2^42 bytes of the reference's byte per state and
// stage, 64 x 2^28 x 17 bytes of the tiled decoder's depunctured doubles and stage bits, and
// 4 x 2^28 x 34 bytes (36 GB) of the fast decoder's bit per state and stage (a run of 16 frames a
// thread: 4 threads for 64 frames). A large machine has the 36 GB: the cap GPUFEC_MEMORY_LIMIT
// makes "cannot fit" the same everywhere.
TEST(ConvStop, AnImpossibleFrameIsRefusedAtThePlan) {
  const conv_code code(9, {0561, 0753});
  const char* before = std::getenv("GPUFEC_MEMORY_LIMIT");
  const std::string saved = before ? before : "";
  ::setenv("GPUFEC_MEMORY_LIMIT", "16G", 1);
  for (const decoder_kind kind :
       {decoder_kind::reference, decoder_kind::fast, decoder_kind::tiled}) {
    SCOPED_TRACE(name_of(kind));
    decoder_options o;
    o.decoder = kind;
    o.threads = 64;
    try {
      decoder_plan plan(code, puncture_pattern::none(2), std::size_t{1} << 28,
                        termination::truncated, o, backend::cpu, 64);
      FAIL() << "planned " << plan.summary().scratch_bytes << " bytes";
    } catch (const out_of_memory& e) {
      EXPECT_NE(std::string(e.what()).find("needs"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--threads 1"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("--decoder tiled") == std::string::npos,
                kind == decoder_kind::tiled)
          << e.what();
    }
  }
  before ? ::setenv("GPUFEC_MEMORY_LIMIT", saved.c_str(), 1) : ::unsetenv("GPUFEC_MEMORY_LIMIT");
}

}  // namespace
}  // namespace gpufec::conv::testing
