#include <gtest/gtest.h>

#include <cmath>

#include "gpufec/sync/simulation.hpp"

namespace gpufec::sync {
namespace {

sim_setup reference_setup() {
  sim_setup s{tvb_code::random(8, 5, 50, 2024)};
  s.Ps = 0.002;
  return s;
}

struct totals {
  double frames = 0, frame_errors = 0, symbol_errors = 0, symbol_errors_sq = 0;
};

totals simulate(const sim_setup& s, double p, std::uint64_t seed, std::size_t frames) {
  sim_family fam(s);
  auto chain = fam.make_chain(p, seed);
  std::vector<sim::frame_outcome> out(frames);
  chain->run(0, out);
  totals t;
  for (const auto& o : out) {
    t.frames += 1;
    t.frame_errors += o.symbol_errors > 0 || o.undecodable;
    t.symbol_errors += o.symbol_errors;
    t.symbol_errors_sq += double(o.symbol_errors) * o.symbol_errors;
  }
  return t;
}

// Reference error rates of this exact configuration (q=8, n=5, N=50, random codebooks seed 2024,
// Pi=Pd=0.01, Ps=0.002, Pr=1e-10), measured once over 10000 frames (chain seed 99, frames 0..9999,
// commit of this test): FER 0.880300, SER 0.047174. A run of 400 frames with another seed must
// agree within 4 sigma.
constexpr double REF_FER = 0.880300;
constexpr double REF_SER = 0.047174;

TEST(SyncSimulation, ErrorRatesMatchReferenceWithinStatisticalTolerance) {
  const totals t = simulate(reference_setup(), 0.01, 7, 400);
  const double fer = t.frame_errors / t.frames;
  EXPECT_NEAR(fer, REF_FER, 4 * std::sqrt(REF_FER * (1 - REF_FER) / t.frames) + 1e-9);
  // SER: symbol errors cluster within frames, so use the per-frame variance of the count.
  const double mean = t.symbol_errors / t.frames;
  const double var = t.symbol_errors_sq / t.frames - mean * mean;
  EXPECT_NEAR(mean / 50, REF_SER, 4 * std::sqrt(var / t.frames) / 50 + 1e-9);
}

TEST(SyncSimulation, DeterministicAndIndependentOfBatching) {
  const sim_setup s = reference_setup();
  sim_family fam(s);
  auto a = fam.make_chain(0.01, 5);
  std::vector<sim::frame_outcome> whole(24), first(10), rest(14);
  a->run(0, whole);
  auto b = fam.make_chain(0.01, 5);
  b->run(0, first);
  b->run(10, rest);
  for (std::size_t k = 0; k < 24; ++k) {
    const auto& o = k < 10 ? first[k] : rest[k - 10];
    EXPECT_EQ(whole[k].symbol_errors, o.symbol_errors) << k;
    EXPECT_EQ(whole[k].bit_errors, o.bit_errors) << k;
  }
}

TEST(SyncSimulation, NoiselessPointHasNoErrorsAndSweepSetsChannel) {
  sim_setup s = reference_setup();
  s.Ps = 0;
  const totals t = simulate(s, 0.0, 1, 20);
  EXPECT_EQ(t.symbol_errors, 0);
  s.Pi = 0.001;
  const bsid_params ch = channel_at(s, 0.02);
  EXPECT_EQ(ch.Pi, 0.001);
  EXPECT_EQ(ch.Pd, 0.02);
  EXPECT_THROW(channel_at(s, 1.5), invalid_argument);
  EXPECT_EQ(bits_per_symbol(32), 5);
  EXPECT_EQ(bits_per_symbol(40), 0);
}

}  // namespace
}  // namespace gpufec::sync
