// The CUDA sync decoder against the CPU reference on fresh random frames. Every test skips when
// no CUDA device is present.
#include "sync/cuda/cuda_test_util.hpp"

namespace gpufec::sync {
namespace {

using namespace testing;

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

// The full lattice over small q with substitutions, at channel rates whose drift limits give
// the general gamma kernel more than the 48 KB of shared memory a block gets without opting in
// (q = 4, n = 4, N = 60 at Pi = Pd = 0.03: 57 KB per block of 4 D lanes x 54 states), in both
// lattice precisions, both frame ends and every storage mode. The plan must only choose shapes
// the launch can run: a kernel sized in one translation unit and launched through another's copy
// fails there (cudaErrorInvalidValue) once its shared memory needs the opt-in.
TEST(SyncCuda, FullLatticeSmallAlphabetsWithSubstitutionsEveryStorageMode) {
  SKIP_WITHOUT_GPU();
  struct full_case {
    int q, n, N;
    double pi, pd, ps;
  };
  bool opted_in = false;  // some case must need the opt-in, or the test covers nothing new
  for (const full_case& c :
       {full_case{4, 4, 60, 0.03, 0.03, 0.01}, full_case{4, 4, 60, 0.03, 0.03, 0},
        full_case{2, 3, 80, 0.05, 0.04, 0.02}, full_case{3, 2, 50, 0.02, 0.03, 0.03},
        full_case{8, 5, 40, 0.04, 0.02, 0.01}, full_case{4, 4, 60, 0.01, 0.01, 0.01}}) {
    const bsid_params ch{c.pi, c.pd, c.ps};
    const tvb_code code = tvb_code::random(c.q, c.n, c.N, 31 + c.q * 7 + c.N);
    const auto data = testing::make_frames(code, ch, 977 + c.N, 5);
    for (real_kind r : {real_kind::f64, real_kind::f32})
      for (bool end_known : {true, false})
        for (storage_mode s : {storage_mode::global, storage_mode::compact, storage_mode::local}) {
          decoder_options o;
          o.lattice = lattice_mode::full;
          o.lattice_real = r;
          o.end_known = end_known;
          o.storage = s;
          const std::string what =
              cat("q ", c.q, " n ", c.n, " N ", c.N, " Pi ", c.pi, " Pd ", c.pd, " Ps ", c.ps, " ",
                  to_string(r), " end ", end_known, " ", to_string(s));
          compare(code, ch, o, data.received, what);
          const std::string text = decoder_plan(code, ch, o, backend::cuda, 5).describe();
          const std::size_t at = text.find("gamma: block");
          if (at != std::string::npos) {
            const std::size_t shared = text.find("shared ", at);
            opted_in = opted_in || std::stoul(text.substr(shared + 7)) > 48 * 1024;
          }
        }
  }
  EXPECT_TRUE(opted_in) << "no case needed more than 48 KB of shared memory";
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

}  // namespace
}  // namespace gpufec::sync
