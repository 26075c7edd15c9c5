#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gpufec/sync/decoder.hpp"
#include "sync/test_util.hpp"

namespace gpufec::sync {
namespace {

using testing::make_frames;
using testing::prefix_likelihoods;

// Exact APPs by enumerating every message: L_i(D) ∝ sum_{msg: msg_i = D} prior(msg) P(y | x(msg)),
// with P(y | x) from the full-frame lattice (no drift limits). Unknown end: P = sum_m
// P(y[0, tau+m), S = m | x) Phi(m) over m in [m_lo, min(m_hi, rho - tau)].
std::vector<double> brute_force_app(const tvb_code& code, const bsid_params& ch,
                                    std::span<const std::uint8_t> y, bool end_known,
                                    const drift_limits& frame) {
  const int q = code.q(), N = code.N();
  const auto tau = static_cast<std::int64_t>(code.tau());
  const auto rho = static_cast<std::int64_t>(y.size());
  std::vector<double> phi;
  if (!end_known) phi = drift_pmf(ch, tau, frame.lo, frame.hi);
  std::vector<double> app(static_cast<std::size_t>(N) * q, 0.0);
  std::vector<std::uint32_t> msg(N, 0);
  std::vector<std::uint8_t> x(tau);
  std::size_t total = 1;
  for (int i = 0; i < N; ++i) total *= q;
  for (std::size_t k = 0; k < total; ++k) {
    std::size_t v = k;
    for (int i = 0; i < N; ++i, v /= q) msg[i] = static_cast<std::uint32_t>(v % q);
    code.encode(msg, x);
    const auto lik = prefix_likelihoods(x, y, ch);
    double p = 0;
    if (end_known) {
      p = lik[rho];
    } else {
      for (std::int64_t m = frame.lo; m <= frame.hi; ++m)
        if (tau + m >= 0 && tau + m <= rho) p += lik[tau + m] * phi[m - frame.lo];
    }
    for (int i = 0; i < N; ++i) app[static_cast<std::size_t>(i) * q + msg[i]] += p;
  }
  for (int i = 0; i < N; ++i) {
    double s = 0;
    for (int D = 0; D < q; ++D) s += app[i * q + D];
    for (int D = 0; D < q; ++D) app[i * q + D] /= s;
  }
  return app;
}

struct tiny_case {
  int q, n, N;
  bsid_params ch;
  bool end_known;
  const char* name;
};

class BruteForce : public ::testing::TestWithParam<tiny_case> {};

TEST_P(BruteForce, MatchesEnumerationWithWideLimits) {
  const tiny_case c = GetParam();
  const tvb_code code = tvb_code::random(c.q, c.n, c.N, 1234 + c.q * 100 + c.n * 10 + c.N);
  const auto data = make_frames(code, c.ch, 77 + c.N, 6);
  std::size_t rho_max = 0;
  for (std::size_t f = 0; f < data.received.frames(); ++f)
    rho_max = std::max(rho_max, data.received.length(f));
  decoder_options o;
  o.lattice_real = real_kind::f64;
  o.end_known = c.end_known;
  const int wide = static_cast<int>(rho_max) + 2;
  o.codeword_limits = drift_limits{-c.n, wide, 0};
  o.frame_limits = drift_limits{-static_cast<int>(code.tau()), wide, 0};
  for (storage_mode s : {storage_mode::global, storage_mode::local}) {
    o.storage = s;
    decoder_plan plan(code, c.ch, o, backend::cpu, data.received.frames());
    decode_output out;
    plan.decode(data.received.view(), out);
    for (std::size_t f = 0; f < data.received.frames(); ++f) {
      ASSERT_TRUE(out.decoded[f]) << out.messages[f];
      const auto expect =
          brute_force_app(code, c.ch, data.received.frame(f), c.end_known, plan.summary().frame);
      for (std::size_t k = 0; k < expect.size(); ++k)
        EXPECT_NEAR(out.frame_app(f)[k], expect[k], 1e-9 * std::max(expect[k], 1e-3))
            << c.name << " frame " << f << " entry " << k << " storage " << to_string(s);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    TinyCodes, BruteForce,
    ::testing::Values(tiny_case{2, 2, 2, {0.1, 0, 0}, true, "insertion-only"},
                      tiny_case{3, 3, 3, {0, 0.12, 0}, true, "deletion-only"},
                      tiny_case{4, 3, 2, {0, 0, 0.1}, true, "substitution-only"},
                      tiny_case{4, 4, 3, {0.05, 0.08, 0.03}, true, "mixed"},
                      tiny_case{2, 4, 4, {0.1, 0.1, 0.05}, true, "mixed-heavy"},
                      tiny_case{3, 2, 4, {0.06, 0.04, 0.02}, false, "mixed-unknown-end"},
                      tiny_case{4, 4, 2, {0.1, 0, 0.05}, false, "insertion-unknown-end"}),
    [](const auto& param_info) {
      std::string s = param_info.param.name;
      std::replace(s.begin(), s.end(), '-', '_');
      return s;
    });

// The float lattice (the default) agrees with the exact APPs to float precision.
TEST(SyncDecoder, FloatLatticeCloseToBruteForce) {
  const bsid_params ch{0.05, 0.05, 0.02};
  const tvb_code code = tvb_code::random(4, 4, 3, 99);
  const auto data = make_frames(code, ch, 5, 4);
  decoder_options o;
  o.codeword_limits = drift_limits{-4, 40, 0};
  o.frame_limits = drift_limits{-12, 40, 0};
  decoder_plan plan(code, ch, o, backend::cpu, 4);
  decode_output out;
  plan.decode(data.received.view(), out);
  for (std::size_t f = 0; f < data.received.frames(); ++f) {
    const auto expect =
        brute_force_app(code, ch, data.received.frame(f), true, plan.summary().frame);
    for (std::size_t k = 0; k < expect.size(); ++k)
      EXPECT_NEAR(out.frame_app(f)[k], expect[k], 2e-6);
  }
}

// Global and local storage run the same arithmetic: results are bit-identical.
TEST(SyncDecoder, GlobalEqualsLocalExactly) {
  const bsid_params ch{0.02, 0.02, 0.01};
  const tvb_code code = tvb_code::random(8, 5, 40, 3);
  const auto data = make_frames(code, ch, 8, 4);
  decode_output out[2];
  int k = 0;
  for (storage_mode s : {storage_mode::global, storage_mode::local}) {
    decoder_options o;
    o.storage = s;
    decoder_plan plan(code, ch, o, backend::cpu, 4);
    EXPECT_EQ(plan.summary().storage, s);
    plan.decode(data.received.view(), out[k++]);
  }
  EXPECT_EQ(out[0].app, out[1].app);
  EXPECT_EQ(out[0].decisions, out[1].decisions);
  EXPECT_EQ(out[0].drift_posterior, out[1].drift_posterior);
}

// The corridor drops lattice paths whose drift inside a codeword leaves [m_n^-, m_n^+]: together
// less than about Pr of the probability, so APPs move by far less than 1e-6.
TEST(SyncDecoder, CorridorCloseToFullLattice) {
  const bsid_params ch{0.03, 0.03, 0.0};
  const tvb_code code = tvb_code::random(16, 6, 30, 11);
  const auto data = make_frames(code, ch, 12, 3);
  decode_output out[2];
  int k = 0;
  for (lattice_mode l : {lattice_mode::corridor, lattice_mode::full}) {
    decoder_options o;
    o.lattice = l;
    o.lattice_real = real_kind::f64;
    decoder_plan plan(code, ch, o, backend::cpu, 3);
    plan.decode(data.received.view(), out[k++]);
  }
  double worst = 0;
  for (std::size_t j = 0; j < out[0].app.size(); ++j)
    worst = std::max(worst, std::abs(out[0].app[j] - out[1].app[j]));
  EXPECT_LT(worst, 1e-6);
  EXPECT_EQ(out[0].decisions, out[1].decisions);
}

TEST(SyncDecoder, NoiseFreeChannelDecodesExactly) {
  const tvb_code code = tvb_code::random(32, 10, 50, 21);
  const bsid_params noiseless{0, 0, 0};
  const auto data = make_frames(code, noiseless, 3, 3);
  decoder_plan plan(code, noiseless, {}, backend::cpu, 3);
  EXPECT_EQ(plan.summary().frame.size(), 1);
  decode_output out;
  plan.decode(data.received.view(), out);
  for (std::size_t f = 0; f < 3; ++f)
    for (int i = 0; i < code.N(); ++i) {
      EXPECT_EQ(out.frame_decisions(f)[i], data.messages[f][i]);
      EXPECT_DOUBLE_EQ(out.frame_app(f)[i * 32 + data.messages[f][i]], 1.0);
    }
  // A channel with errors possible but none happening: still decoded exactly.
  const bsid_params ch{1e-3, 1e-3, 1e-3};
  decoder_plan plan2(code, ch, {}, backend::cpu, 3);
  plan2.decode(data.received.view(), out);
  for (std::size_t f = 0; f < 3; ++f)
    for (int i = 0; i < code.N(); ++i) EXPECT_EQ(out.frame_decisions(f)[i], data.messages[f][i]);
}

TEST(SyncDecoder, DriftPosteriorPeaksAtTrueEndAndStart) {
  const bsid_params ch{0.01, 0.01, 0};
  const tvb_code code = tvb_code::random(16, 8, 20, 5);
  const auto data = make_frames(code, ch, 6, 1);
  decoder_plan plan(code, ch);
  const auto out = plan.decode(data.received.frame(0));
  const int M = out.M_tau, lo = out.m_tau_min, N = code.N();
  const double* first = out.frame_drift(0);
  const double* last = out.frame_drift(0) + static_cast<std::size_t>(N) * M;
  EXPECT_DOUBLE_EQ(first[-lo], 1.0);
  const auto end_drift = static_cast<int>(data.received.length(0)) - static_cast<int>(code.tau());
  EXPECT_DOUBLE_EQ(last[end_drift - lo], 1.0);
  for (int i = 0; i <= N; ++i) {
    double s = 0;
    for (int m = 0; m < M; ++m) s += out.frame_drift(0)[static_cast<std::size_t>(i) * M + m];
    EXPECT_NEAR(s, 1.0, 1e-12);
  }
}

TEST(SyncDecoder, PriorsSteerTheDecision) {
  // With a channel that erases all information (every symbol deleted is impossible, so use a
  // strongly substituting channel), the prior decides; a certain prior forces the decision.
  const bsid_params ch{0, 0, 0.5};
  const tvb_code code = tvb_code::random(4, 3, 5, 8);
  const auto data = make_frames(code, ch, 2, 1);
  decoder_plan plan(code, ch);
  std::vector<double> prior(5 * 4, 0.0);
  for (int i = 0; i < 5; ++i) prior[i * 4 + (i % 4)] = 1.0;
  const auto out = plan.decode(data.received.frame(0), prior.data());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out.decisions[i], static_cast<std::uint32_t>(i % 4));
  std::vector<double> bad(prior);
  bad[3] = std::nan("");
  EXPECT_THROW(plan.decode(data.received.frame(0), bad.data()), invalid_argument);
}

TEST(SyncDecoder, StorageAutoFollowsBudget) {
  const tvb_code code = tvb_code::random(32, 10, 100, 1);
  const bsid_params ch{0.01, 0.01, 0};
  decoder_options o;
  decoder_plan roomy(code, ch, o);
  EXPECT_EQ(roomy.summary().storage, storage_mode::global);
  o.memory_budget = roomy.summary().gamma_bytes_per_frame / 2;
  decoder_plan tight(code, ch, o);
  EXPECT_EQ(tight.summary().storage, storage_mode::local);
  EXPECT_LT(tight.memory_estimate(), roomy.memory_estimate());
  EXPECT_NE(tight.describe().find("storage local"), std::string::npos);
  // compact is a GPU mode; the CPU keeps one index of gamma anyway and runs it as local.
  o.storage = storage_mode::compact;
  EXPECT_EQ(decoder_plan(code, ch, o).summary().storage, storage_mode::local);
  EXPECT_EQ(to_string(storage_mode::compact), "compact");
}

TEST(SyncDecoder, RejectsBadInput) {
  const tvb_code code = tvb_code::random(8, 4, 10, 2);
  const bsid_params ch{0.01, 0.01, 0};
  decoder_plan plan(code, ch);
  std::vector<std::uint8_t> empty;
  EXPECT_THROW(plan.decode(std::span<const std::uint8_t>(empty)), undecodable_error);
  const int hi = plan.summary().frame.hi, lo = plan.summary().frame.lo;
  std::vector<std::uint8_t> too_long(code.tau() + hi + 1, 0), too_short(code.tau() + lo - 1, 0);
  try {
    plan.decode(std::span<const std::uint8_t>(too_long));
    FAIL() << "no exception";
  } catch (const undecodable_error& e) {
    EXPECT_NE(std::string(e.what()).find("received length"), std::string::npos) << e.what();
  }
  EXPECT_THROW(plan.decode(std::span<const std::uint8_t>(too_short)), undecodable_error);
  std::vector<std::uint8_t> bad_symbol(code.tau(), 2);
  EXPECT_THROW(plan.decode(std::span<const std::uint8_t>(bad_symbol)), invalid_argument);
  // In a batch, the bad frame is flagged and the others decode.
  batch<std::uint8_t> b;
  b.push_back(too_long);
  std::vector<std::uint8_t> ok(code.tau(), 0);
  b.push_back(ok);
  decoder_plan plan2(code, ch, {}, backend::cpu, 2);
  decode_output out;
  plan2.decode(b.view(), out);
  EXPECT_FALSE(out.decoded[0]);
  EXPECT_TRUE(out.decoded[1]);
  EXPECT_THROW(plan.decode(b.view(), out), invalid_argument);  // batch larger than max_batch 1

  EXPECT_THROW(decoder_plan(code, bsid_params{0.6, 0.5, 0}), invalid_argument);
  EXPECT_THROW(decoder_plan(code, bsid_params{-0.1, 0, 0}), invalid_argument);
  EXPECT_THROW(decoder_plan(code, bsid_params{0, 0, std::nan("")}), invalid_argument);
  decoder_options o;
  o.Pr = 0;
  EXPECT_THROW(decoder_plan(code, ch, o), invalid_argument);
  o = {};
  o.frame_limits = drift_limits{1, 5, 0};
  EXPECT_THROW(decoder_plan(code, ch, o), invalid_argument);
}

// A zero-probability received sequence (Pi = Pd = 0 but a substitution-free channel that cannot
// produce it) is reported, not decoded into garbage.
TEST(SyncDecoder, ZeroProbabilityFrameIsUndecodable) {
  codebook cb = tvb_code::natural(2, 2);  // 00, 01
  const tvb_code code(2, 2, 2, {cb});
  const bsid_params ch{0, 0, 0};
  decoder_plan plan(code, ch);
  std::vector<std::uint8_t> y{1, 1, 1, 1};  // first bit of every codeword is 0
  EXPECT_THROW(plan.decode(std::span<const std::uint8_t>(y)), undecodable_error);
}

// Without the drift posterior the APPs and decisions are the same; a reused decode_output is
// overwritten, with an undecodable frame zeroed rather than left holding the previous call's data.
TEST(SyncDecoder, DriftPosteriorOptionalAndOutputReused) {
  const tvb_code code = tvb_code::random(8, 6, 20, 5);
  const bsid_params ch{0.01, 0.01, 0.005};
  const auto data = make_frames(code, ch, 11, 3);
  decoder_plan with(code, ch, {}, backend::cpu, 3);
  decoder_options o;
  o.drift_posterior = false;
  decoder_plan without(code, ch, o, backend::cpu, 3);
  decode_output a, b;
  with.decode(data.received.view(), a);
  without.decode(data.received.view(), b);
  EXPECT_EQ(a.drift_posterior.size(), std::size_t{3} * 21 * a.M_tau);
  EXPECT_TRUE(b.drift_posterior.empty());
  EXPECT_EQ(a.app, b.app);
  EXPECT_EQ(a.decisions, b.decisions);

  batch<std::uint8_t> second;  // frame 1 now too short to decode
  second.push_back(data.received.frame(0));
  const std::vector<std::uint8_t> short_frame(3, 1);
  second.push_back(short_frame);
  second.push_back(data.received.frame(2));
  with.decode(second.view(), a);
  ASSERT_FALSE(a.decoded[1]);
  const std::size_t per = std::size_t{20} * 8;
  for (std::size_t k = 0; k < per; ++k) EXPECT_EQ(a.app[per + k], 0.0);
  for (std::size_t k = 0; k < 20; ++k) EXPECT_EQ(a.decisions[20 + k], 0u);
  for (std::size_t k = 0; k < std::size_t{21} * a.M_tau; ++k)
    EXPECT_EQ(a.drift_posterior[21 * a.M_tau + k], 0.0);
  EXPECT_TRUE(std::equal(a.app.begin(), a.app.begin() + per, b.app.begin()));
  EXPECT_TRUE(std::equal(a.app.begin() + 2 * per, a.app.end(), b.app.begin() + 2 * per));
}

}  // namespace
}  // namespace gpufec::sync
