// The conv family in the simulator (gpufec/conv/simulation.hpp): the BER of K = 7 (171,133) at
// 3 dB through the shared BPSK/AWGN chain against the ML value, a point's counts independent of
// threads and batch, noise-free-like behaviour at high SNR for every LLR kind, typed parameters,
// the backend resolution (auto, cuda without a device, CPU-only decoders) and the refusals (bad
// frames) naming the field.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <numeric>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/simulation.hpp"
#include "gpufec/sim/simulator.hpp"

namespace gpufec::conv {
namespace {

sim_setup k7(std::size_t frame_bits = 1000) {
  sim_setup s(conv_code(7, {0171, 0133}), puncture_pattern::none(2));
  s.frame_bits = frame_bits;
  return s;
}

// The BER through the family's chain (sim::make_awgn_chain: Philox source, BPSK, AWGN, float
// LLRs, decoder_plan), with the tolerance of tests/conv/test_conv_decoders.cpp: per-frame error
// counts are independent, so the estimate's standard error is s = sd(e_f) / (N sqrt(F)); accept
// |BER - 3.9e-4| <= 4 s + 0.05e-4 (four standard errors, plus the rounding of the quoted value).
// 2000 frames of 1000 bits make s about 6% of the BER, so a 0.2 dB loss (+40%) fails.
TEST(ConvSimulation, BerAt3dBThroughTheChainMatchesMl) {
  const sim_family fam(k7());
  const std::size_t frames = 2000;
  const auto chain = fam.make_chain(3.0, sim::point_seed(7, 3.0));
  std::vector<sim::frame_outcome> outcomes(frames);
  (void)chain->run(0, outcomes);
  ASSERT_EQ(outcomes.size(), frames);
  std::vector<double> errors;
  for (const auto& o : outcomes) errors.push_back(o.bit_errors);
  const double mean = std::accumulate(errors.begin(), errors.end(), 0.0) / frames;
  double var = 0;
  for (const double e : errors) var += (e - mean) * (e - mean);
  var /= static_cast<double>(frames - 1);
  const double ber = mean / 1000, se = std::sqrt(var / frames) / 1000;
  EXPECT_NEAR(ber, 3.9e-4, 4 * se + 0.05e-4) << "standard error " << se;
  EXPECT_LT(se, 0.25 * 3.9e-4) << "too few frames for a meaningful check";
}

TEST(ConvSimulation, PointCountsDoNotDependOnThreadsOrBatch) {
  sim_setup s = k7(300);
  s.pattern = puncture_pattern::standard("3/4", 2);
  s.llr = llr_kind::i8;
  const sim_family fam(s);
  sim::options o;
  o.seed = 3;
  o.stop.max_fe = 12;
  const int threads_before = omp_get_max_threads();  // run_point sets OpenMP's count
  std::vector<sim::point_result> results;
  for (const auto& [threads, batch] : {std::pair{1, 5}, std::pair{2, 0}, std::pair{2, 33}}) {
    o.threads = threads;
    o.batch_frames = static_cast<std::size_t>(batch);
    results.push_back(sim::run_point(fam, 4.0, 0, o));
  }
  for (const auto& r : results) {
    EXPECT_EQ(r.frames, results[0].frames);
    EXPECT_EQ(r.frame_errors, 12u);
    EXPECT_EQ(r.bit_errors, results[0].bit_errors);
  }
  omp_set_num_threads(threads_before);
}

TEST(ConvSimulation, EveryLlrKindAndTerminationDecodesCleanlyAtHighSnr) {
  for (const auto llr : {llr_kind::f32, llr_kind::i8, llr_kind::hard})
    for (const auto term :
         {termination::zero_tail, termination::truncated, termination::tail_biting}) {
      sim_setup s = k7(200);
      s.llr = llr;
      s.term = term;
      const sim_family fam(s);
      const auto chain = fam.make_chain(9.0, 11);
      std::vector<sim::frame_outcome> outcomes(50);
      (void)chain->run(0, outcomes);
      std::uint64_t errors = 0;
      for (const auto& o : outcomes) errors += o.bit_errors;
      EXPECT_EQ(errors, 0u) << name_of(llr) << " " << name_of(term);
      EXPECT_EQ(chain->shape().info_bits, 200u);
    }
}

TEST(ConvSimulation, ParametersAreTypedAndComplete) {
  sim_setup s(conv_code::recursive_systematic(4, {013, 015}), puncture_pattern::none(2));
  s.frame_bits = 100;
  s.term = termination::tail_biting;
  s.options.decoder = decoder_kind::reference;
  const sim_family fam(s);
  nlohmann::json p;
  for (const auto& [key, value] : fam.parameters()) p[key] = value;
  EXPECT_EQ(p["K"], 4);
  EXPECT_EQ(p["polynomials"], "13,15");
  EXPECT_EQ(p["recursive"], true);
  EXPECT_EQ(p["feedback"], "13");
  EXPECT_EQ(p["termination"], "tailbiting");
  EXPECT_EQ(p["frame_bits"], 100);
  EXPECT_EQ(p["coded_bits"], 200);
  EXPECT_EQ(p["rate"], 0.5);
  EXPECT_EQ(p["decoder"], "reference");
  EXPECT_EQ(p["reference_metric"], "double");
  EXPECT_TRUE(p["wrap_stages"].is_number_unsigned()) << p.dump();
  EXPECT_EQ(p["llr"], "float");
  EXPECT_EQ(fam.name(), "conv");
  EXPECT_EQ(fam.sweep_name(), "Eb/N0");
  EXPECT_EQ(fam.backend(), "cpu");
}

TEST(ConvSimulation, RefusalsNameTheField) {
  const bool gpu = cuda_device_count() > 0;
  sim_setup cuda = k7();
  cuda.where = backend::cuda;
  if (!gpu) {
    EXPECT_THROW(sim_family{cuda}, backend_unavailable);
  }
  cuda.options.decoder = decoder_kind::fast;  // the CUDA decoder is the tiled decoder
  try {
    sim_family fam(cuda);
    FAIL() << "a CUDA setup with the fast decoder was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(gpu ? "decoder fast runs on the CPU only" : "needs"),
              std::string::npos)
        << e.what();
  }
  sim_setup automatic = k7();
  automatic.where = backend::automatic;
  EXPECT_EQ(sim_family{automatic}.backend(), gpu ? "cuda" : "cpu");
  automatic.options.decoder = decoder_kind::reference;  // runs on the CPU only: auto means cpu
  EXPECT_EQ(sim_family{automatic}.backend(), "cpu");
  EXPECT_THROW(sim_family{k7(3)}, invalid_argument);  // shorter than the K-1 = 6 tail
  sim_setup rsc(conv_code::recursive_systematic(4, {013, 015}), puncture_pattern::none(2));
  rsc.frame_bits = 70;  // a multiple of the feedback's period 7: no tail-biting start state
  rsc.term = termination::tail_biting;
  EXPECT_THROW(sim_family{rsc}, invalid_argument);
  const sim_family fam(k7());
  EXPECT_THROW(fam.validate_point(std::nan("")), invalid_argument);
  EXPECT_NO_THROW(fam.validate_point(-3.5));
}

// choose_backend: cpu stays cpu; automatic is cpu for the CPU-only decoders and a wrap-around,
// and cuda for the others exactly when a device exists, with the reason; cuda needs a device and
// the tiled decoder.
TEST(ConvSimulation, ChooseBackendResolvesAutoAndRefusesCpuOnlyDecoders) {
  const bool gpu = cuda_device_count() > 0;
  for (const decoder_kind d : {decoder_kind::automatic, decoder_kind::reference, decoder_kind::fast,
                               decoder_kind::tiled}) {
    SCOPED_TRACE(std::string(name_of(d)));
    decoder_options o;
    o.decoder = d;
    const bool tiled = d == decoder_kind::automatic || d == decoder_kind::tiled;
    EXPECT_EQ(choose_backend(o, backend::cpu).where, backend::cpu);
    EXPECT_EQ(choose_backend(o, backend::cpu).reason, "");
    const backend_choice automatic = choose_backend(o, backend::automatic);
    EXPECT_EQ(automatic.where, gpu && tiled ? backend::cuda : backend::cpu);
    EXPECT_NE(automatic.reason, "");
    if (!tiled) {
      EXPECT_NE(automatic.reason.find("runs on the CPU"), std::string::npos);
    }
    if (tiled && !gpu) {
      EXPECT_NE(automatic.reason.find("CUDA"), std::string::npos);
    }
    if (gpu && tiled) {
      EXPECT_EQ(choose_backend(o, backend::cuda).where, backend::cuda);
    } else {
      EXPECT_THROW(choose_backend(o, backend::cuda), invalid_argument);
    }
    o.wrap_stages = 40;
    EXPECT_EQ(choose_backend(o, backend::automatic).where, backend::cpu);
  }
}

// A plan asked for automatic says where it runs and why; a named backend gives no reason.
TEST(ConvSimulation, AnAutomaticPlanSaysWhyItRunsWhereItDoes) {
  const conv_code code(7, {0171, 0133});
  decoder_options o;
  o.decoder = decoder_kind::fast;
  const decoder_plan plan(code, puncture_pattern::none(2), 100, termination::zero_tail, o,
                          backend::automatic);
  EXPECT_EQ(plan.summary().where, backend::cpu);
  EXPECT_EQ(plan.summary().backend_reason, "decoder fast runs on the CPU");
  EXPECT_NE(plan.describe().find("auto: decoder fast runs on the CPU"), std::string::npos)
      << plan.describe();
  EXPECT_EQ(decoder_plan(code, puncture_pattern::none(2), 100, termination::zero_tail, o)
                .summary()
                .backend_reason,
            "");
}

}  // namespace
}  // namespace gpufec::conv
