// The polar family in the simulator (gpufec/polar/simulation.hpp): the chain's frames are the
// documented ones (Philox source and noise, the library's encoder, the plan's decisions), the
// mean BP iterations are those of the plan on the same frames, and the family refuses what it
// cannot run.
#include <gtest/gtest.h>

#include <numeric>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/polar/encoder.hpp"
#include "gpufec/polar/simulation.hpp"
#include "gpufec/sim/simulator.hpp"

namespace gpufec::polar {
namespace {

struct expected_counts {
  std::uint64_t frame_errors = 0, bit_errors = 0;
  double mean_iterations = 0;
};

// Frames 0 .. frames-1 of a point as docs/simulator.md defines them, decoded by a plan.
expected_counts decode_by_hand(const polar_code& code, const decoder_options& o, double ebn0,
                               std::uint64_t point_seed, std::size_t frames) {
  const std::size_t N = code.N(), K = code.K();
  const double sigma = channel::sigma_from_ebn0(ebn0, code.rate());
  std::vector<std::uint8_t> info(frames * K), x(N), bits(frames * K);
  std::vector<float> llr(frames * N);
  for (std::size_t f = 0; f < frames; ++f) {
    const philox_stream source(point_seed, rng_source, f);
    for (std::size_t i = 0; i < K; ++i) info[f * K + i] = sim::source_bit(source, i);
    encode(code, {info.data() + f * K, K}, x);
    for (std::size_t j = 0; j < N; ++j)
      llr[f * N + j] = static_cast<float>(
          channel::llr_from_sample(channel::awgn_received(point_seed, f, j, x[j], sigma), sigma));
  }
  decoder_plan plan(code, o, backend::cpu, frames);
  std::vector<std::uint32_t> iterations(frames);
  plan.decode(batch_view<float>::uniform(llr.data(), frames, N),
              batch_span<std::uint8_t>::uniform(bits.data(), frames, K), iterations);
  expected_counts c;
  for (std::size_t f = 0; f < frames; ++f) {
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < K; ++i) wrong += bits[f * K + i] != info[f * K + i];
    c.bit_errors += wrong;
    c.frame_errors += wrong > 0;
  }
  c.mean_iterations = std::accumulate(iterations.begin(), iterations.end(), 0.0) / frames;
  return c;
}

double detail(const sim::point_result& r, const std::string& key) {
  for (const auto& [k, v] : r.details)
    if (k == key) return v.get<double>();
  ADD_FAILURE() << "no detail " << key;
  return -1;
}

TEST(PolarSimulation, ChainDecodesTheDocumentedFramesWithThePlan) {
  const std::size_t frames = 300;
  sim::options opt;
  opt.seed = 21;
  opt.stop.max_fe = 0;
  opt.stop.max_frames = frames;
  opt.batch_frames = 64;
  for (const bool bp : {false, true}) {
    const polar_code code(128, 72, construction_spec::parse("ga:2"),
                          bp ? encoding::systematic : encoding::non_systematic);
    decoder_options o;
    if (bp) {
      o.decoder = decoder_kind::bp;
      o.update = update_rule::scaled_min_sum;
      o.iterations = 20;
      o.early_stop = true;
    }
    const sim_family fam(code, o, backend::cpu);
    const double ebn0 = 2.0;
    const sim::point_result r = sim::run_point(fam, ebn0, 0, opt);
    const expected_counts want = decode_by_hand(code, o, ebn0, sim::point_seed(21, ebn0), frames);
    EXPECT_EQ(r.frames, frames);
    EXPECT_EQ(r.frame_errors, want.frame_errors) << "bp " << bp;
    EXPECT_EQ(r.bit_errors, want.bit_errors) << "bp " << bp;
    EXPECT_GT(r.frame_errors, 0u) << "2 dB at N = 128 must show errors";
    EXPECT_EQ(detail(r, "decoded_frames"), static_cast<double>(frames));
    if (bp) {
      EXPECT_DOUBLE_EQ(detail(r, "mean_iterations"), want.mean_iterations);
    }
  }
}

TEST(PolarSimulation, FamilyRefusesWhatItCannotRun) {
  const polar_code code(64, 32);
  EXPECT_THROW(sim_family(code, {}, backend::cuda), invalid_argument);
  try {
    sim_family(code, {}, backend::cuda);
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA polar decoder"), std::string::npos) << e.what();
  }
  decoder_options soft;
  soft.output = output_kind::info_llrs;
  EXPECT_THROW(sim_family(code, soft, backend::cpu), invalid_argument);
  decoder_options scaled_sc;
  scaled_sc.update = update_rule::scaled_min_sum;
  EXPECT_THROW(sim_family(code, scaled_sc, backend::cpu), invalid_argument);
  // The chain's decoder refuses CUDA too (what a CUDA chain would ask for).
  const sim::binary_code bc = binary_code(code, {});
  EXPECT_THROW(bc.decoder(backend::cuda, 16), invalid_argument);
  EXPECT_NO_THROW(sim_family(code, {}, backend::automatic));
}

TEST(PolarSimulation, ParametersAreTypedAndNameTheFrozenSet) {
  decoder_options o;
  o.decoder = decoder_kind::bp;
  o.update = update_rule::scaled_min_sum;
  o.scale = 0.75f;
  o.iterations = 12;
  const sim_family fam(polar_code(256, 100, construction_spec::parse("bhatt:1.5")), o,
                       backend::cpu);
  nlohmann::json p = nlohmann::json::object();
  for (const auto& [k, v] : fam.parameters()) p[k] = v;
  EXPECT_EQ(p["N"], 256);
  EXPECT_EQ(p["K"], 100);
  EXPECT_EQ(p["construction"], "bhatt");
  EXPECT_EQ(p["design_ebn0_db"], 1.5);
  EXPECT_EQ(p["scale"], 0.75);
  EXPECT_EQ(p["iterations"], 12);
  EXPECT_EQ(p["early_stop"], false);
  EXPECT_EQ(p["systematic"], false);
  EXPECT_TRUE(p["frozen_file"].is_null());

  // The fingerprint is the set's: the same set from explicit indices has the same one.
  const polar_code nr(64, 32);
  const polar_code same = polar_code::from_indices(64, nr.frozen_positions(), index_set::frozen);
  EXPECT_EQ(frozen_set_fingerprint(nr), frozen_set_fingerprint(same));
  EXPECT_NE(frozen_set_fingerprint(nr), frozen_set_fingerprint(polar_code(64, 33)));
  std::vector<std::uint32_t> swapped = nr.frozen_positions();
  swapped.back() = nr.info_positions().front();  // one frozen index exchanged for an info one
  EXPECT_NE(frozen_set_fingerprint(nr),
            frozen_set_fingerprint(polar_code::from_indices(64, swapped, index_set::frozen)));
}

}  // namespace
}  // namespace gpufec::polar
