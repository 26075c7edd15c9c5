// The CUDA sync decoder against the CPU reference on fresh random frames. Every test skips when
// no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include "gpufec/common/device.hpp"
#include "gpufec/sync/decoder.hpp"
#include "sync/test_util.hpp"

namespace gpufec::sync {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

struct gpu_case {
  int q, n, N;
  double p;
  std::size_t batch;
  storage_mode storage;
};

std::string name_of(const gpu_case& c) {
  return cat("q", c.q, "_n", c.n, "_N", c.N, "_p", c.p, "_b", c.batch, "_", to_string(c.storage));
}

// APPs within 1e-6 relative (plus a 1e-15 floor), decisions identical, drift posteriors close.
// `ties`: a channel whose symbols may tie exactly (no insertions nor substitutions: deletion
// patterns are symmetric), where rounding picks the winner; a decision may then differ where the
// CPU's APPs of the two symbols agree within 1e-12 relative.
void expect_same(const decode_output& gpu, const decode_output& cpu, const std::string& what,
                 bool ties = false) {
  ASSERT_EQ(gpu.app.size(), cpu.app.size()) << what;
  ASSERT_EQ(gpu.decoded, cpu.decoded) << what;
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t k = 0; k < cpu.app.size(); ++k) {
    const double err = std::abs(gpu.app[k] - cpu.app[k]);
    const double tol = 1e-6 * std::abs(cpu.app[k]) + 1e-15;
    worst = std::max(worst, err / (std::abs(cpu.app[k]) + 1e-15));
    if (err > tol && bad++ < 5)
      ADD_FAILURE() << what << ": app[" << k << "] gpu " << gpu.app[k] << " cpu " << cpu.app[k];
  }
  EXPECT_EQ(bad, 0u) << what << " worst relative error " << worst;
  if (!ties) {
    EXPECT_EQ(gpu.decisions, cpu.decisions) << what;
  } else {
    ASSERT_EQ(gpu.decisions.size(), cpu.decisions.size());
    const std::size_t q = cpu.app.size() / std::max<std::size_t>(cpu.decisions.size(), 1);
    for (std::size_t k = 0; k < cpu.decisions.size(); ++k) {
      if (gpu.decisions[k] == cpu.decisions[k]) continue;
      const double a = cpu.app[k * q + gpu.decisions[k]], b = cpu.app[k * q + cpu.decisions[k]];
      EXPECT_LE(std::abs(a - b), 1e-12 * b) << what << ": decision " << k << " not a tie";
    }
  }
  for (std::size_t k = 0; k < cpu.drift_posterior.size(); ++k)
    ASSERT_NEAR(gpu.drift_posterior[k], cpu.drift_posterior[k],
                1e-9 + 1e-6 * cpu.drift_posterior[k])
        << what << " lambda[" << k << "]";
}

// `some`, the outputs of frames [first, first + k) of a batch decoded on their own, has the digits
// of those frames in `all`: APPs, decisions and drift posteriors, bit for bit.
void expect_frames_of(const decode_output& some, const decode_output& all, std::size_t first,
                      const std::string& what) {
  const std::size_t k = some.decoded.size();
  ASSERT_GT(k, 0u) << what;
  // Both hold the same values per frame, and the slice lies within `all`.
  auto slice_equal = [&](const auto& part, const auto& whole) {
    const std::size_t per = part.size() / k;
    return part.size() * all.decoded.size() == whole.size() * k &&
           first * per + part.size() <= whole.size() &&
           std::equal(part.begin(), part.end(), whole.begin() + first * per);
  };
  EXPECT_TRUE(slice_equal(some.app, all.app)) << what;
  EXPECT_TRUE(slice_equal(some.decisions, all.decisions)) << what;
  EXPECT_TRUE(slice_equal(some.drift_posterior, all.drift_posterior)) << what;
}

void compare(const tvb_code& code, const bsid_params& ch, const decoder_options& o,
             const batch<std::uint8_t>& received, const std::string& what,
             const double* priors = nullptr, bool ties = false) {
  decoder_plan cpu(code, ch, o, backend::cpu, received.frames());
  decoder_plan gpu(code, ch, o, backend::cuda, received.frames());
  decode_output a, b;
  cpu.decode(received.view(), a, priors);
  gpu.decode(received.view(), b, priors);
  expect_same(b, a, what + "\n" + gpu.describe(), ties);
}

// Random symbol priors for every frame of `frames`, as from an outer decoder.
std::vector<double> random_priors(const tvb_code& code, std::size_t frames, std::uint64_t seed) {
  std::vector<double> priors(frames * code.N() * code.q());
  philox_stream rng(seed, rng_source, 0);
  for (auto& p : priors) p = rng.next_uniform();
  return priors;
}

// `received` with an empty frame (skipped for its length) inserted before frame `skipped_at` and,
// when `impossible_at` is given, a run of 16 complemented bits in that frame: zero probability on
// a channel without insertions or substitutions.
batch<std::uint8_t> with_bad_frames(const batch<std::uint8_t>& received, std::size_t skipped_at,
                                    std::optional<std::size_t> impossible_at) {
  batch<std::uint8_t> in;
  for (std::size_t f = 0; f < received.frames(); ++f) {
    if (f == skipped_at) in.push_back(std::vector<std::uint8_t>());
    const auto frame = received.frame(f);
    std::vector<std::uint8_t> y(frame.begin(), frame.end());
    if (f == impossible_at)
      for (std::size_t t = 100; t < 116; ++t) y[t] ^= 1;
    in.push_back(y);
  }
  return in;
}

class SyncCudaVsCpu : public ::testing::TestWithParam<gpu_case> {};

TEST_P(SyncCudaVsCpu, SameAppsAndDecisions) {
  SKIP_WITHOUT_GPU();
  const gpu_case c = GetParam();
  const bsid_params ch{c.p, c.p, c.p / 10};
  const tvb_code code = tvb_code::random(c.q, c.n, c.N, 1000 + c.q + c.N);
  const auto data = testing::make_frames(code, ch, 4242 + c.batch, c.batch);
  decoder_options o;
  o.storage = c.storage;
  compare(code, ch, o, data.received, name_of(c));
}

INSTANTIATE_TEST_SUITE_P(Sweep, SyncCudaVsCpu,
                         ::testing::Values(gpu_case{2, 3, 7, 0.1, 1000, storage_mode::global},
                                           gpu_case{2, 3, 7, 0.1, 333, storage_mode::local},
                                           gpu_case{2, 3, 7, 0.1, 100, storage_mode::compact},
                                           gpu_case{4, 4, 210, 1e-2, 7, storage_mode::global},
                                           gpu_case{4, 5, 1000, 1e-3, 3, storage_mode::local},
                                           gpu_case{32, 10, 210, 1e-3, 16, storage_mode::global},
                                           gpu_case{32, 10, 210, 1e-2, 8, storage_mode::global},
                                           gpu_case{32, 10, 210, 1e-2, 8, storage_mode::local},
                                           gpu_case{32, 10, 210, 1e-2, 8, storage_mode::compact},
                                           gpu_case{32, 10, 210, 1e-3, 1, storage_mode::local},
                                           gpu_case{32, 10, 3, 1e-2, 9, storage_mode::local},
                                           gpu_case{32, 10, 1, 0.1, 50, storage_mode::global},
                                           gpu_case{32, 10, 30, 1e-2, 130, storage_mode::global},
                                           gpu_case{32, 8, 1000, 1e-3, 2, storage_mode::automatic},
                                           gpu_case{16, 6, 50, 0.1, 4, storage_mode::global},
                                           gpu_case{256, 12, 7, 1e-2, 5, storage_mode::global},
                                           gpu_case{256, 9, 30, 1e-3, 3, storage_mode::compact},
                                           gpu_case{256, 9, 30, 0.1, 2, storage_mode::local},
                                           gpu_case{1024, 12, 1, 1e-2, 4, storage_mode::global},
                                           gpu_case{1024, 11, 7, 1e-3, 2, storage_mode::local},
                                           gpu_case{3, 2, 20, 1e-2, 10, storage_mode::global},
                                           gpu_case{40, 7, 12, 1e-2, 6, storage_mode::compact}),
                         [](const auto& param_info) {
                           std::string s = name_of(param_info.param);
                           std::replace(s.begin(), s.end(), '.', '_');
                           std::replace(s.begin(), s.end(), '-', 'm');
                           return s;
                         });

TEST(SyncCuda, FullLatticeDoubleLatticeUnknownEndAndPriors) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.02, 0.03, 0.01};
  const tvb_code code = tvb_code::random(16, 7, 40, 5, /*random_marker=*/true);
  const auto data = testing::make_frames(code, ch, 9, 6);
  for (lattice_mode l : {lattice_mode::corridor, lattice_mode::full})
    for (real_kind r : {real_kind::f32, real_kind::f64})
      for (bool end_known : {true, false})
        for (storage_mode s : {storage_mode::global, storage_mode::compact, storage_mode::local}) {
          decoder_options o;
          o.lattice = l;
          o.lattice_real = r;
          o.end_known = end_known;
          o.storage = s;
          compare(code, ch, o, data.received,
                  cat(to_string(l), " ", to_string(r), " end ", end_known, " ", to_string(s)));
        }
  const std::vector<double> priors = random_priors(code, data.received.frames(), 1);
  compare(code, ch, {}, data.received, "priors", priors.data());
}

TEST(SyncCuda, UndecodableFramesInABatchAreReportedAndOthersDecode) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.01, 0.01, 0};
  const tvb_code code = tvb_code::random(8, 5, 20, 7);
  auto data = testing::make_frames(code, ch, 10, 4);
  batch<std::uint8_t> b;
  for (std::size_t f = 0; f < 4; ++f) {
    if (f == 1) b.push_back(std::vector<std::uint8_t>(code.tau() * 2, 0));  // far too long
    if (f == 2) b.push_back(std::vector<std::uint8_t>());                   // empty
    b.push_back(data.received.frame(f));
  }
  compare(code, ch, {}, b, "mixed batch");
  decoder_plan gpu(code, ch, {}, backend::cuda, 6);
  decode_output out;
  gpu.decode(b.view(), out);
  EXPECT_FALSE(out.decoded[1]);
  EXPECT_FALSE(out.decoded[3]);
  EXPECT_NE(out.messages[1].find("received length"), std::string::npos);
  EXPECT_NE(out.messages[3].find("empty"), std::string::npos);
  for (int f : {0, 2, 4, 5}) EXPECT_TRUE(out.decoded[f]) << out.messages[f];
  EXPECT_THROW(gpu.decode(testing::make_frames(code, ch, 1, 7).received.view(), out),
               invalid_argument);
}

TEST(SyncCuda, DeterministicAcrossRunsAndChunks) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.01, 0.01, 0};
  const tvb_code code = tvb_code::random(32, 10, 100, 3);
  const auto data = testing::make_frames(code, ch, 11, 40);
  decoder_plan whole(code, ch, {}, backend::cuda, 40);
  decoder_options small;
  small.memory_budget =
      decoder_plan::memory_estimate(code, whole.summary().frame, whole.summary().codeword,
                                    storage_mode::global, real_kind::f32, 9);
  small.storage = storage_mode::global;
  decoder_plan chunked(code, ch, small, backend::cuda, 40);  // several chunks per batch
  decode_output a, b, c;
  whole.decode(data.received.view(), a);
  whole.decode(data.received.view(), b);
  chunked.decode(data.received.view(), c);
  EXPECT_EQ(a.app, b.app);
  EXPECT_EQ(a.app, c.app) << chunked.describe();
  EXPECT_EQ(a.decisions, c.decisions);
  // A frame decoded alone (the small-batch L shape, one part) gives the same digits as in a batch.
  batch<std::uint8_t> one;
  one.push_back(data.received.frame(17));
  decode_output d;
  whole.decode(one.view(), d);
  const std::size_t per = std::size_t{100} * 32;
  EXPECT_TRUE(std::equal(d.app.begin(), d.app.end(), a.app.begin() + 17 * per));
}

// A frame decoded alone gets the widest L block, in a batch the narrowest: the sums over D and
// over the drift states (M_tau = 88 against 64 threads in a batch at q = 32) must not depend on it.
// Frames of random bits through a channel with many substitutions keep the APPs and drift
// posteriors of comparable size, so that any other order of the sums shows in the digits. APPs,
// decisions and drift posteriors, bit for bit.
TEST(SyncCuda, AFrameHasTheSameDigitsAloneAndInABatch) {
  SKIP_WITHOUT_GPU();
  for (const auto& [q, n, N] : {std::tuple{64, 8, 100}, std::tuple{32, 10, 210}}) {
    const bsid_params ch{1e-2, 1e-2, 0.2};
    const tvb_code code = tvb_code::random(q, n, N, 19);
    batch<std::uint8_t> frames;
    philox_stream rng(23, rng_channel, q);
    std::vector<std::uint8_t> y(code.tau());
    for (int f = 0; f < 40; ++f) {
      for (auto& bit : y) bit = static_cast<std::uint8_t>(rng.next_below(2));
      frames.push_back(y);
    }
    decoder_plan plan(code, ch, {}, backend::cuda, 40);
    decode_output all;
    plan.decode(frames.view(), all);
    ASSERT_TRUE(std::all_of(all.decoded.begin(), all.decoded.end(), [](auto d) { return d; }));
    for (std::size_t f : {0, 17, 39}) {
      batch<std::uint8_t> one;
      one.push_back(frames.frame(f));
      decode_output alone;
      plan.decode(one.view(), alone);
      expect_frames_of(alone, all, f, cat("q ", q, " frame ", f, "\n", plan.describe()));
    }
  }
}

// A batch whose results exceed the page-locked staging (256 MB: here 400 frames of q = 1024, ~830
// KB of results each) is decoded in steps that fit it: the same digits as the same frames in calls
// of 100.
TEST(SyncCuda, BatchBeyondTheStagingHasTheDigitsOfSmallerCalls) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{1e-3, 1e-3, 0};
  const tvb_code code = tvb_code::random(1024, 11, 100, 29);
  constexpr std::size_t frames = 400, call = 100;
  const auto data = testing::make_frames(code, ch, 37, frames);
  decoder_options o;
  o.storage = storage_mode::compact;  // no stored R: the whole batch is one chunk on the device
  decoder_plan plan(code, ch, o, backend::cuda, frames);
  decode_output all;
  plan.decode(data.received.view(), all);
  ASSERT_TRUE(std::all_of(all.decoded.begin(), all.decoded.end(), [](auto d) { return d; }));
  ASSERT_GT(all.app.size() * sizeof(double), std::size_t{256} << 20);
  for (std::size_t first = 0; first < frames; first += call) {
    batch<std::uint8_t> part;
    for (std::size_t f = first; f < first + call; ++f) part.push_back(data.received.frame(f));
    decode_output some;
    plan.decode(part.view(), some);
    expect_frames_of(some, all, first, cat("frames from ", first, "\n", plan.describe()));
  }
}

// A chunk of at least fold_min_frames frames takes the folded path (gamma and beta interleaved, V
// stored instead of R, then alpha and L); smaller chunks the three kernels. A frame has the same
// digits either way: a batch of 200 folded by each kernel (items; frames, in three pipelined
// parts) against the same frames in chunks of 30, bit for bit, and against the CPU. Both gamma
// variants (with and without substitutions), two chunks of symbols per lane (q = 64), an unknown
// end, priors, a frame skipped for its length and, without insertions or substitutions, a frame
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

}  // namespace
}  // namespace gpufec::sync

#include "gpufec/sync/simulation.hpp"

namespace gpufec::sync {
namespace {

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
