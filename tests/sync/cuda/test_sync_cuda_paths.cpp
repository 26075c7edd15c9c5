// The CUDA sync decoder's paths against each other and the CPU: folding, storage modes, direct and
// copied results, graphs, the general kernels, memory budgets; and the CUDA simulation chain.
// Every test skips when no CUDA device is present.
#include "gpufec/sync/simulation.hpp"
#include "sync/cuda/cuda_test_util.hpp"

namespace gpufec::sync {
namespace {

using namespace testing;

// with zero probability (a complemented symbol).
TEST(SyncCuda, FoldedChunksMatchTheThreeKernelPathBitForBit) {
  SKIP_WITHOUT_GPU();
  struct fold_case {
    int q, n, N;
    bsid_params ch;
    bool end_known, priors, impossible;
  };
  for (const fold_case& c : {fold_case{32, 10, 60, {1e-2, 1e-2, 1e-3}, true, false, false},
                             fold_case{64, 8, 40, {1e-3, 1e-3, 0}, false, false, false},
                             fold_case{32, 6, 30, {0.05, 0.05, 0}, true, true, false},
                             fold_case{32, 8, 40, {0, 0.01, 0}, true, false, true}}) {
    const std::string what = cat("q ", c.q, " N ", c.N, " p ", c.ch.Pd, " end ", c.end_known);
    const tvb_code code = tvb_code::random(c.q, c.n, c.N, 77 + c.q);
    const auto data = testing::make_frames(code, c.ch, 5 + c.N, 199);
    const batch<std::uint8_t> in = with_bad_frames(
        data.received, 150, c.impossible ? std::optional<std::size_t>(20) : std::nullopt);
    decoder_options o;
    o.end_known = c.end_known;
    o.fold_min_frames = 64;
    const std::vector<double> priors = random_priors(code, in.frames(), 3);
    const double* pr = c.priors ? priors.data() : nullptr;
    decoder_options chunks_of_30 = o;  // the same batch in chunks of 30 frames: three kernels
    chunks_of_30.storage = storage_mode::global;
    const plan_summary limits = decoder_plan(code, c.ch, o).summary();  // drift limits
    chunks_of_30.memory_budget = decoder_plan::memory_estimate(
        code, limits.frame, limits.codeword, storage_mode::global, real_kind::f32, 30);
    decoder_plan three(code, c.ch, chunks_of_30, backend::cuda, 200);
    decode_output b;
    three.decode(in.view(), b, pr);
    // Both folding kernels: items (one part) and frames (three parts of the batch of 200).
    for (const fold_kernel k : {fold_kernel::items, fold_kernel::frames}) {
      const std::string with = cat(what, " fold ", to_string(k));
      o.fold = k;
      decoder_plan folded(code, c.ch, o, backend::cuda, 200);
      const std::string expected = k == fold_kernel::frames
                                       ? "folded, chunks of 64+ frames: a block per frame"
                                       : "folded, chunks of 64+ frames: block";
      const auto& shapes = folded.summary().kernel_shapes;
      EXPECT_TRUE(std::any_of(shapes.begin(), shapes.end(), [&](const std::string& l) {
        return l.find(expected) != std::string::npos;
      })) << folded.describe();
      decode_output a;
      folded.decode(in.view(), a, pr);
      EXPECT_EQ(a.app, b.app) << with;
      EXPECT_EQ(a.decisions, b.decisions) << with;
      EXPECT_EQ(a.drift_posterior, b.drift_posterior) << with;
      EXPECT_EQ(a.decoded, b.decoded) << with;
      EXPECT_EQ(a.messages, b.messages) << with;
      EXPECT_FALSE(a.decoded[150]) << with;
      if (c.impossible) {
        EXPECT_FALSE(a.decoded[20]) << with;
        EXPECT_NE(a.messages[20].find("zero probability"), std::string::npos) << a.messages[20];
      }
    }
    compare(code, c.ch, o, in, what, pr, /*ties=*/c.ch.Pi == 0);
  }
}

// The three storage modes give the same digits: global (R of every index), compact (gsum of every
// index, the lattices run again for L) and local (gamma of a ring of four indices, alpha and beta
// one step per launch on the ring's streams). The register-row gamma with the prefetching
// alpha/beta order (q = 32), the general gamma kernel (q = 4) and the general alpha/beta order
// (M_n > 32), fewer indices than the ring (N = 2), an unknown end, priors, a skipped frame and,
// without insertions or substitutions, a frame with zero probability.
TEST(SyncCuda, StorageModesGiveTheSameDigits) {
  SKIP_WITHOUT_GPU();
  struct storage_case {
    int q, n, N;
    bsid_params ch;
    bool end_known, priors, impossible, wide;
  };
  for (const storage_case& c :
       {storage_case{32, 10, 60, {1e-2, 1e-2, 1e-3}, true, true, false, false},
        storage_case{32, 8, 40, {0, 0.01, 0}, false, false, true, false},
        storage_case{4, 5, 9, {0.05, 0.05, 0.01}, true, false, false, false},
        storage_case{32, 10, 12, {0.02, 0.02, 0.01}, true, true, false, true},
        storage_case{64, 8, 2, {1e-2, 1e-2, 0}, false, false, false, false}}) {
    const std::string what = cat("q ", c.q, " N ", c.N, " p ", c.ch.Pd, " end ", c.end_known,
                                 c.wide ? " wide limits" : "");
    const tvb_code code = tvb_code::random(c.q, c.n, c.N, 91 + c.q + c.N);
    const auto data = testing::make_frames(code, c.ch, 7 + c.N, 12);
    const batch<std::uint8_t> in = with_bad_frames(
        data.received, 5, c.impossible ? std::optional<std::size_t>(2) : std::nullopt);
    decoder_options o;
    o.end_known = c.end_known;
    if (c.wide) {
      o.codeword_limits = drift_limits{-10, 30, 0};
      o.frame_limits = drift_limits{-60, 60, 0};
    }
    const std::vector<double> priors = random_priors(code, in.frames(), 9);
    const double* pr = c.priors ? priors.data() : nullptr;
    decode_output reference;
    for (storage_mode s : {storage_mode::global, storage_mode::compact, storage_mode::local}) {
      o.storage = s;
      decoder_plan gpu(code, c.ch, o, backend::cuda, in.frames());
      ASSERT_EQ(gpu.summary().storage, s) << what;
      decode_output out;
      gpu.decode(in.view(), out, pr);
      EXPECT_FALSE(out.decoded[5]) << what;
      if (c.impossible) {
        EXPECT_FALSE(out.decoded[2]) << what;
        EXPECT_NE(out.messages[2].find("zero probability"), std::string::npos) << out.messages[2];
      }
      if (s == storage_mode::global) {
        reference = out;
        continue;
      }
      const std::string mode = what + " " + to_string(s) + "\n" + gpu.describe();
      EXPECT_EQ(out.app, reference.app) << mode;
      EXPECT_EQ(out.decisions, reference.decisions) << mode;
      EXPECT_EQ(out.drift_posterior, reference.drift_posterior) << mode;
      EXPECT_EQ(out.decoded, reference.decoded) << mode;
      EXPECT_EQ(out.messages, reference.messages) << mode;
    }
    o.storage = storage_mode::local;
    compare(code, c.ch, o, in, what + " local", pr, /*ties=*/c.ch.Pi == 0);
  }
}

// The edges of the parameter range the issue names, in every storage mode: q beyond 1024 (2048),
// codewords of n = 32 bits, and M_tau beyond the paper's 1024 (1201 states: alpha/beta then loop
// the states over a block of fewer threads).
TEST(SyncCuda, LargeAlphabetLongCodewordsAndManyDriftStates) {
  SKIP_WITHOUT_GPU();
  struct range_case {
    int q, n, N;
    double p;
    std::optional<drift_limits> frame;
  };
  for (const range_case& c : {range_case{2048, 12, 3, 1e-2, {}}, range_case{64, 32, 4, 1e-2, {}},
                              range_case{4, 10, 70, 2e-2, drift_limits{-600, 600, 0}}}) {
    const bsid_params ch{c.p, c.p, c.p / 10};
    const tvb_code code = tvb_code::random(c.q, c.n, c.N, 3 + c.q);
    const auto data = testing::make_frames(code, ch, 11 + c.n, 3);
    for (storage_mode s : {storage_mode::global, storage_mode::compact, storage_mode::local}) {
      decoder_options o;
      o.storage = s;
      o.frame_limits = c.frame;
      const std::string what = cat("q ", c.q, " n ", c.n, " N ", c.N, " ", to_string(s));
      if (c.frame) {
        decoder_plan gpu(code, ch, o, backend::cuda, 3);
        EXPECT_EQ(gpu.summary().frame.size(), 1201) << what;
      }
      compare(code, ch, o, data.received, what);
    }
  }
}

// A chunk of one part has L write its results and the frames' statuses straight into the host's
// page-locked staging; a chunk of several parts copies them. Both give the same digits, and both
// report an impossible frame.
TEST(SyncCuda, DirectResultsEqualCopiedResults) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0, 0, 0};  // noiseless: a complemented symbol makes a frame impossible
  const tvb_code code = tvb_code::random(32, 10, 50, 9);
  auto data = testing::make_frames(code, ch, 31, 120);
  batch<std::uint8_t> all, few;
  for (std::size_t f = 0; f < 120; ++f) {
    const auto frame = data.received.frame(f);
    std::vector<std::uint8_t> y(frame.begin(), frame.end());
    if (f == 5)
      for (std::size_t t = 200; t < 210; ++t) y[t] ^= 1;
    all.push_back(y);
    if (f < 20) few.push_back(y);
  }
  decoder_plan plan(code, ch, {}, backend::cuda, 120);
  decode_output copied, direct;
  plan.decode(all.view(), copied);  // 120 frames: two parts, results copied
  plan.decode(few.view(), direct);  // 20 frames: one part, results written by L
  const std::size_t per = std::size_t{50} * 32;
  expect_frames_of(direct, copied, 0, plan.describe());
  for (std::size_t f = 0; f < 20; ++f) {
    EXPECT_EQ(direct.decoded[f], copied.decoded[f]) << f;
    EXPECT_EQ(direct.messages[f], copied.messages[f]) << f;
  }
  EXPECT_FALSE(direct.decoded[5]);
  EXPECT_NE(direct.messages[5].find("zero probability"), std::string::npos) << direct.messages[5];
  EXPECT_EQ(direct.app[5 * per], 0.0);
  EXPECT_TRUE(direct.decoded[4]);
}

// decode() replays a captured CUDA graph while the chunk keeps its shape, and captures again when
// the frame count changes; with phase timings it runs the streams instead. Every way gives the
// same digits, and only the stream path reports the phase split.
TEST(SyncCuda, GraphReplayAndRecaptureMatchTheStreamPath) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.01, 0.01, 0.001};
  const tvb_code code = tvb_code::random(32, 10, 60, 5);
  const auto first = testing::make_frames(code, ch, 21, 40);
  const auto second = testing::make_frames(code, ch, 22, 40);
  decoder_plan plan(code, ch, {}, backend::cuda, 40);
  batch<std::uint8_t> seven;  // another frame count: the graph is captured again
  for (std::size_t f = 0; f < 7; ++f) seven.push_back(second.received.frame(f));
  auto run = [&](const batch<std::uint8_t>& in, bool phases) {
    plan.set_phase_timings(phases);
    decode_output out;
    plan.decode(in.view(), out);
    EXPECT_EQ(plan.last_timings().phases, phases);
    if (phases) {
      EXPECT_GT(plan.last_timings().gamma, 0.0);
    }
    return out;
  };
  const std::vector<const batch<std::uint8_t>*> inputs{&first.received, &second.received, &seven,
                                                       &first.received};
  for (const auto* in : inputs) {
    const decode_output graph = run(*in, false), replay = run(*in, false);
    const decode_output streams = run(*in, true);
    EXPECT_EQ(graph.app, replay.app);
    EXPECT_EQ(graph.app, streams.app);
    EXPECT_EQ(graph.drift_posterior, streams.drift_posterior);
    EXPECT_EQ(graph.decisions, streams.decisions);
    EXPECT_EQ(graph.decoded, streams.decoded);
  }
  decoder_plan cpu(code, ch, {}, backend::cpu, 40);
  decode_output reference;
  cpu.decode(second.received.view(), reference);
  expect_same(run(second.received, false), reference, "graph replay of the second batch");
}

// A noiseless channel makes a received frame with a flipped symbol impossible: alpha and beta
// run out of probability mid-frame (the prefetching kernel exits with copies in flight) and the
// frame is reported on both backends while its neighbours decode exactly.
TEST(SyncCuda, ImpossibleFrameIsReportedAndNeighboursDecode) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0, 0, 0};
  const tvb_code code = tvb_code::random(32, 10, 60, 5);
  const auto data = testing::make_frames(code, ch, 3, 3);
  batch<std::uint8_t> b;
  for (std::size_t f = 0; f < 3; ++f) {
    const auto frame = data.received.frame(f);
    std::vector<std::uint8_t> y(frame.begin(), frame.end());
    if (f == 1)
      for (std::size_t t = 300; t < 310; ++t) y[t] ^= 1;  // a whole symbol complemented
    b.push_back(y);
  }
  compare(code, ch, {}, b, "impossible frame");
  decoder_plan gpu(code, ch, {}, backend::cuda, 3);
  decode_output out;
  gpu.decode(b.view(), out);
  EXPECT_TRUE(out.decoded[0]);
  EXPECT_FALSE(out.decoded[1]);
  EXPECT_TRUE(out.decoded[2]);
  EXPECT_NE(out.messages[1].find("zero probability"), std::string::npos) << out.messages[1];
  for (std::size_t k = 0; k < 60; ++k) EXPECT_EQ(out.decisions[k], data.messages[0][k]);
}

// Wide explicit limits (M_n = 41 > 32): the general gamma kernel and the bounds-checked alpha/beta
// kernel (no prefetch), at q = 32 where the defaults take the fast ones.
TEST(SyncCuda, WideLimitsUseTheGeneralKernels) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.02, 0.02, 0.01};
  const tvb_code code = tvb_code::random(32, 10, 12, 8);
  const auto data = testing::make_frames(code, ch, 13, 5);
  decoder_options o;
  o.codeword_limits = drift_limits{-10, 30, 0};
  o.frame_limits = drift_limits{-60, 60, 0};
  for (storage_mode s : {storage_mode::global, storage_mode::compact, storage_mode::local}) {
    o.storage = s;
    decoder_plan gpu(code, ch, o, backend::cuda, 5);
    const auto& shapes = gpu.summary().kernel_shapes;
    ASSERT_GE(shapes.size(), 2u);
    EXPECT_EQ(shapes[0].find("register row"), std::string::npos) << shapes[0];
    EXPECT_EQ(shapes[1].find("prefetched"), std::string::npos) << shapes[1];
    compare(code, ch, o, data.received, cat("wide limits ", to_string(s)));
  }
}

// The register-row gamma kernel with symbol priors and with q not a multiple of a warp (a last
// chunk of D with idle lanes), on channels with and without substitutions (two variants of it),
// for one frame (a state per warp) and a batch of 24 frames of N = 100 (several states per warp).
TEST(SyncCuda, RegisterRowGammaWithPriorsPartialWarpsAndBothChannels) {
  SKIP_WITHOUT_GPU();
  for (const double ps : {0.0, 0.004})
    for (const int q : {40, 64}) {
      const bsid_params ch{0.01, 0.01, ps};
      const tvb_code code = tvb_code::random(q, 8, 100, 17 + q);
      const auto data = testing::make_frames(code, ch, 31 + q, 24);
      const std::vector<double> priors = random_priors(code, data.received.frames(), q);
      const std::string what = cat("q ", q, " Ps ", ps);
      {
        decoder_plan gpu(code, ch, {}, backend::cuda, 24);
        const std::string& gamma = gpu.summary().kernel_shapes.at(0);
        EXPECT_NE(gamma.find("register row"), std::string::npos) << gamma;
        EXPECT_EQ(gamma.find("no substitutions") != std::string::npos, ps == 0) << gamma;
      }
      compare(code, ch, {}, data.received, what);
      compare(code, ch, {}, data.received, what + " priors", priors.data());
      batch<std::uint8_t> one;
      one.push_back(data.received.frame(3));
      compare(code, ch, {}, one, what + " one frame", priors.data() + 3 * code.N() * code.q());
    }
}

// Without the drift posterior: same APPs and decisions as the CPU, none copied back; a reused
// output with a batch of a different size is fully rewritten.
TEST(SyncCuda, WithoutDriftPosteriorAndReusedOutput) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.01, 0.01, 0};
  const tvb_code code = tvb_code::random(32, 10, 60, 4);
  const auto data = testing::make_frames(code, ch, 21, 70);
  decoder_options o;
  o.drift_posterior = false;
  compare(code, ch, o, data.received, "no drift posterior");
  decoder_plan gpu(code, ch, o, backend::cuda, 70);
  decode_output out;
  gpu.decode(data.received.view(), out);
  EXPECT_TRUE(out.drift_posterior.empty());
  batch<std::uint8_t> few;
  for (std::size_t f = 5; f < 9; ++f) few.push_back(data.received.frame(f));
  const std::vector<double> full_app = out.app;
  gpu.decode(few.view(), out);
  ASSERT_EQ(out.app.size(), std::size_t{4} * 60 * 32);
  EXPECT_TRUE(std::equal(out.app.begin(), out.app.end(), full_app.begin() + 5 * 60 * 32));
}

// automatic storage takes the fastest mode that fits eight frames: global, then compact, then local
// (at q = 64 < N = 200 a ring of four indices of R is smaller than gsum of every index).
TEST(SyncCuda, MemoryBudgetSelectsStorageOrFailsClearly) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.01, 0.01, 0};
  const tvb_code code = tvb_code::random(64, 10, 200, 3);
  auto one_frame = [&](storage_mode s) {  // what a plan for one frame allocates
    decoder_options x;
    x.storage = s;
    return decoder_plan(code, ch, x, backend::cuda, 1).summary().memory_bytes;
  };
  const std::size_t global1 = one_frame(storage_mode::global),
                    compact1 = one_frame(storage_mode::compact),
                    local1 = one_frame(storage_mode::local);
  ASSERT_GT(global1, 8 * compact1 / 7);
  ASSERT_GT(compact1, 8 * local1 / 7);
  decoder_options o;
  o.memory_budget = 7 * global1;  // global fits at most 7 frames, compact at least 8
  EXPECT_EQ(decoder_plan(code, ch, o, backend::cuda, 100).summary().storage, storage_mode::compact);
  o.memory_budget = 7 * compact1;  // compact fits at most 7 frames, local at least 8
  decoder_plan local(code, ch, o, backend::cuda, 100);
  EXPECT_EQ(local.summary().storage, storage_mode::local);
  EXPECT_LE(local.summary().memory_bytes, o.memory_budget + global1) << local.describe();
  o.memory_budget = 8 * global1;  // a batch of at most 7 frames takes global
  EXPECT_EQ(decoder_plan(code, ch, o, backend::cuda, 7).summary().storage, storage_mode::global);
  o.memory_budget = global1 / 2;
  o.storage = storage_mode::global;
  try {
    decoder_plan impossible(code, ch, o, backend::cuda, 100);
    FAIL() << "expected out_of_memory";
  } catch (const out_of_memory& e) {
    EXPECT_NE(std::string(e.what()).find("bytes per frame"), std::string::npos) << e.what();
  }
  o.memory_budget = 1000;  // not even local storage fits
  o.storage = storage_mode::automatic;
  EXPECT_THROW(decoder_plan(code, ch, o, backend::cuda, 1), out_of_memory);
}

// The CUDA chain simulates the channel on the GPU from the same streams: same frames, same
// outcomes as the CPU chain.
TEST(SyncCudaSimulation, SameOutcomesAsCpuChain) {
  SKIP_WITHOUT_GPU();
  for (double p : {0.005, 0.03}) {
    sim_setup s(tvb_code::random(16, 8, 60, 77));
    s.Ps = 0.002;
    s.where = backend::cpu;
    const sim_family cpu(s);
    s.where = backend::cuda;
    const sim_family gpu(s);
    std::vector<sim::frame_outcome> a(300), b(300);
    cpu.make_chain(p, 123)->run(1000, a);
    gpu.make_chain(p, 123)->run(1000, b);
    std::size_t errors = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].symbol_errors, b[k].symbol_errors) << "p " << p << " frame " << k;
      EXPECT_EQ(a[k].bit_errors, b[k].bit_errors) << "p " << p << " frame " << k;
      EXPECT_EQ(a[k].undecodable, b[k].undecodable) << "p " << p << " frame " << k;
      errors += a[k].symbol_errors;
    }
    EXPECT_GT(errors, 0u) << "the comparison should include frames with errors";
  }
}

// A call of few frames is one part, whose L writes its results straight into the host's staging.
// The simulator wants decisions only, so no place is reserved for the APPs there, and L must not
// write them (it once did, past the staging: caught by compute-sanitizer memcheck, scripts/
// device-check sanitizer, or a fault when the APPs are large).
TEST(SyncCudaSimulation, FewFramesPerCallWriteOnlyDecisions) {
  SKIP_WITHOUT_GPU();
  sim_setup s(tvb_code::random(64, 8, 100, 5));
  s.where = backend::cpu;
  const sim_family cpu(s);
  s.where = backend::cuda;
  const sim_family gpu(s);
  std::vector<sim::frame_outcome> a(20), b(20);
  cpu.make_chain(0.02, 9)->run(0, a);
  gpu.make_chain(0.02, 9)->run(0, b);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].symbol_errors, b[k].symbol_errors) << "frame " << k;
    EXPECT_EQ(a[k].undecodable, b[k].undecodable) << "frame " << k;
  }
}

}  // namespace
}  // namespace gpufec::sync
