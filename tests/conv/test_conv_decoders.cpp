// The decoders through the plan: noise-free frames decode exactly for every code, rate,
// termination, decoder and input kind; the fast decoder equals the reference bit for bit on noisy
// int8 frames (same integer metrics, same tie rules) and on the int8 values its float quantizer
// makes; batches, threads and single calls agree; and the BER at 3 dB matches the ML value.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "conv/cpu/frame_quantizer.hpp"
#include "conv_test_util.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/reference.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;

struct decoder_choice {
  std::string name;
  decoder_options options;
};

std::vector<decoder_choice> decoder_choices() {
  decoder_options ref64, ref32, fast, tiled, subframes;
  ref64.decoder = ref32.decoder = decoder_kind::reference;
  ref32.reference_metric = metric_type::f32;
  fast.decoder = decoder_kind::fast;
  // Frames of 100 bits in four tiles, traced back whole or by subframes of 8 stages (the overlaps
  // are set per code).
  tiled.decoder = subframes.decoder = decoder_kind::tiled;
  tiled.tile = {32, 48, 48, 0};
  subframes.tile = {32, 48, 48, 8};
  return {{"reference double", ref64},
          {"reference float", ref32},
          {"fast", fast},
          {"tiled", tiled},
          {"tiled, parallel traceback", subframes}};
}

std::vector<puncture_pattern> all_patterns_for(const conv_code& code) {
  auto patterns = patterns_for(code);
  if (code.beta() == 2)
    for (const char* rate : {"5/6", "7/8"}) patterns.push_back(puncture_pattern::standard(rate, 2));
  return patterns;
}

// Encodes `frames` random frames of `N` bits: info and coded batches.
struct coded_batch {
  std::vector<std::uint8_t> info, coded;
};
coded_batch make_batch(const encoder& enc, std::size_t frames, std::uint64_t seed) {
  coded_batch b;
  const frame_shape& s = enc.shape();
  b.info.resize(frames * s.info_bits);
  b.coded.resize(frames * s.coded_bits);
  for (std::size_t f = 0; f < frames; ++f) {
    const auto bits = random_bits(seed, f, s.info_bits);
    std::copy(bits.begin(), bits.end(),
              b.info.begin() + static_cast<std::ptrdiff_t>(f * s.info_bits));
  }
  enc.encode(batch_view<std::uint8_t>::uniform(b.info.data(), frames, s.info_bits),
             batch_span<std::uint8_t>::uniform(b.coded.data(), frames, s.coded_bits));
  return b;
}

template <class T>
std::vector<std::uint8_t> decode_batch(decoder_plan& plan, const std::vector<T>& received,
                                       std::size_t frames) {
  std::vector<std::uint8_t> bits(frames * plan.shape().info_bits);
  plan.decode(batch_view<T>::uniform(received.data(), frames, plan.shape().coded_bits),
              batch_span<std::uint8_t>::uniform(bits.data(), frames, plan.shape().info_bits));
  return bits;
}

// Noise-free frames: the decisions must re-encode to the bits sent (a perfect match, which is the
// ML decision), and be exactly the bits sent wherever the punctured code is unambiguous
// (exact_when_noise_free); the test counts both kinds so neither can silently vanish.
TEST(ConvDecoders, NoiseFreeFramesDecodeExactly) {
  const std::size_t N = 100, frames = 2;  // not a multiple of the RSC feedback periods 3 and 7
  int exact_checks = 0, codeword_checks = 0;
  for (const auto& named : all_codes())
    for (const auto& pattern : all_patterns_for(named.code))
      for (termination term : all_terminations) {
        const conv_code& code = named.code;
        const encoder enc(code, pattern, N, term);
        const auto batch = make_batch(enc, frames, 21);
        const auto llr = clean_llrs(batch.coded);
        std::vector<std::int8_t> q(batch.coded.size());
        for (std::size_t i = 0; i < q.size(); ++i) q[i] = batch.coded[i] ? -40 : 40;
        const bool exact = exact_when_noise_free(named, pattern);
        for (auto [decoder_name, options] : decoder_choices()) {
          SCOPED_TRACE(named.name + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)) + ", " + decoder_name);
          const bool tiled = options.decoder == decoder_kind::tiled;
          // Tiles choose among equally good paths each on its own, so with an ambiguous code
          // their joined decision need not be a codeword: only the exact cases apply.
          // A catastrophic code cannot be decoded from an unknown start state, which tiles have.
          if (tiled && (!exact || catastrophic(code, pattern))) continue;
          if (tiled) options.tile.v1 = options.tile.v2 = default_traceback_depth(code, pattern);
          decoder_plan plan(code, pattern, N, term, options, backend::cpu, frames);
          std::vector<std::uint8_t> hard(batch.info.size());
          plan.decode_hard(
              batch_view<std::uint8_t>::uniform(batch.coded.data(), frames, enc.shape().coded_bits),
              batch_span<std::uint8_t>::uniform(hard.data(), frames, N));
          for (const auto& [input, bits] :
               {std::pair{"float LLRs", decode_batch(plan, llr, frames)},
                std::pair{"int8 LLRs", decode_batch(plan, q, frames)},
                std::pair{"hard bits", hard}}) {
            if (exact) {
              EXPECT_EQ(bits, batch.info) << input;
              ++exact_checks;
            } else {
              std::vector<std::uint8_t> recoded(batch.coded.size());
              enc.encode(batch_view<std::uint8_t>::uniform(bits.data(), frames, N),
                         batch_span<std::uint8_t>::uniform(recoded.data(), frames,
                                                           enc.shape().coded_bits));
              EXPECT_EQ(recoded, batch.coded) << input;
              ++codeword_checks;
            }
          }
        }
      }
  EXPECT_GT(exact_checks, codeword_checks);
  EXPECT_GT(codeword_checks, 0);
}

// Same integer metrics and the same tie rules: the fast decoder must reproduce the reference on
// every frame, ties included, for every K = 3..9 and beta = 2..4.
TEST(ConvDecoders, FastEqualsReferenceOnNoisyInt8Frames) {
  const std::size_t N = 151, frames = 12;
  std::size_t frames_with_errors = 0;
  for (const auto& [name, code] : all_codes())
    for (const auto& pattern : patterns_for(code))
      for (termination term : all_terminations) {
        SCOPED_TRACE(name + ", pattern " + pattern.to_string() + ", " + std::string(name_of(term)));
        const encoder enc(code, pattern, N, term);
        const auto batch = make_batch(enc, frames, 22);
        const double sigma = 0.95 * std::sqrt(0.5 / pattern.rate());  // same Eb/N0 at every rate
        std::vector<std::int8_t> q(batch.coded.size());
        const std::size_t n = enc.shape().coded_bits;
        for (std::size_t f = 0; f < frames; ++f) {
          const std::vector<std::uint8_t> coded(batch.coded.begin() + f * n,
                                                batch.coded.begin() + (f + 1) * n);
          const auto llr = awgn_llrs(coded, sigma, 22, f);
          quantize_llrs(llr, 9.0, std::span<std::int8_t>(q).subspan(f * n, n));
        }
        decoder_options fast;
        fast.decoder = decoder_kind::fast;
        decoder_plan plan(code, pattern, N, term, fast, backend::cpu, frames);
        const auto fast_bits = decode_batch(plan, q, frames);
        reference_decoder reference(code, pattern, N, term);
        for (std::size_t f = 0; f < frames; ++f) {
          std::vector<std::uint8_t> bits(N);
          reference.decode(std::span<const std::int8_t>(q).subspan(f * n, n), bits);
          EXPECT_TRUE(std::equal(bits.begin(), bits.end(), fast_bits.begin() + f * N))
              << "frame " << f;
          frames_with_errors += !std::equal(bits.begin(), bits.end(), batch.info.begin() + f * N);
        }
      }
  EXPECT_GT(frames_with_errors, 100u) << "too little noise to exercise the decisions";
}

// Tail-biting with a short wrap-around: a recursive code's first released bits then depend on
// the start state the traceback ends in (the fast decoder's paired walk reads it back).
TEST(ConvDecoders, FastEqualsReferenceWithShortWrapAround) {
  const auto code = conv_code::recursive_systematic(5, {023, 035});
  const auto pattern = puncture_pattern::none(2);
  const std::size_t N = 64, frames = 6;
  const encoder enc(code, pattern, N, termination::tail_biting);
  const auto batch = make_batch(enc, frames, 25);
  std::vector<std::int8_t> q(batch.coded.size());
  const std::size_t n = enc.shape().coded_bits;
  for (std::size_t f = 0; f < frames; ++f) {
    const auto llr =
        awgn_llrs({batch.coded.begin() + f * n, batch.coded.begin() + (f + 1) * n}, 0.8, 25, f);
    quantize_llrs(llr, 9.0, std::span<std::int8_t>(q).subspan(f * n, n));
  }
  for (std::size_t wrap : {1, 2, 5}) {
    decoder_options fast;
    fast.decoder = decoder_kind::fast;
    fast.wrap_stages = wrap;
    decoder_plan plan(code, pattern, N, termination::tail_biting, fast, backend::cpu, frames);
    const auto fast_bits = decode_batch(plan, q, frames);
    reference_decoder reference(code, pattern, N, termination::tail_biting,
                                {metric_type::f64, wrap});
    for (std::size_t f = 0; f < frames; ++f) {
      std::vector<std::uint8_t> bits(N);
      reference.decode(std::span<const std::int8_t>(q).subspan(f * n, n), bits);
      EXPECT_TRUE(std::equal(bits.begin(), bits.end(), fast_bits.begin() + f * N))
          << "frame " << f << ", wrap " << wrap;
    }
  }
}

TEST(ConvDecoders, FastFloatInputEqualsReferenceOnTheQuantizedFrame) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::standard("3/4", 2);
  const std::size_t N = 400, frames = 6;
  const encoder enc(code, pattern, N, termination::truncated);
  const auto batch = make_batch(enc, frames, 23);
  const std::size_t n = enc.shape().coded_bits;
  std::vector<float> llr(batch.coded.size());
  for (std::size_t f = 0; f < frames; ++f) {
    const std::vector<std::uint8_t> coded(batch.coded.begin() + f * n,
                                          batch.coded.begin() + (f + 1) * n);
    const auto l = awgn_llrs(coded, 0.6, 23, f);
    std::copy(l.begin(), l.end(), llr.begin() + static_cast<std::ptrdiff_t>(f * n));
  }
  for (double fixed_scale : {0.0, 3.0}) {
    decoder_options fast;
    fast.decoder = decoder_kind::fast;
    fast.llr_scale = fixed_scale;
    decoder_plan plan(code, pattern, N, termination::truncated, fast, backend::cpu, frames);
    const auto fast_bits = decode_batch(plan, llr, frames);
    reference_decoder reference(code, pattern, N, termination::truncated);
    for (std::size_t f = 0; f < frames; ++f) {
      const auto frame = std::span<const float>(llr).subspan(f * n, n);
      std::vector<std::int8_t> q(n);
      quantize_llrs(frame, fixed_scale > 0 ? fixed_scale : auto_llr_scale(frame), q);
      std::vector<std::uint8_t> bits(N);
      reference.decode(q, bits);
      EXPECT_TRUE(std::equal(bits.begin(), bits.end(), fast_bits.begin() + f * N))
          << "frame " << f << ", llr_scale " << fixed_scale;
    }
  }
}

TEST(ConvDecoders, QuantizerRoundsHalfToEvenAndSaturates) {
  const std::vector<float> llr = {0.5f, 1.5f, -2.5f, 1000.0f, -1000.0f, 0.26f, -0.0f, 126.6f};
  std::vector<std::int8_t> q(llr.size());
  quantize_llrs(llr, 1.0, q);
  EXPECT_EQ(q, (std::vector<std::int8_t>{0, 2, -2, 127, -127, 0, 0, 127}));
  // Long enough for the SIMD body, not only the scalar tail.
  std::vector<float> ramp(100);
  std::vector<std::int8_t> r(ramp.size());
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = -25.0f + 0.5f * static_cast<float>(i);
  quantize_llrs(ramp, 2.0, r);
  for (std::size_t i = 0; i < ramp.size(); ++i) EXPECT_EQ(r[i], -50 + static_cast<int>(i)) << i;
  EXPECT_DOUBLE_EQ(auto_llr_scale(std::vector<float>{2.0f, -2.0f, 4.0f, -4.0f}), 31.75 / 3.0);
  EXPECT_DOUBLE_EQ(auto_llr_scale(std::vector<float>{0.0f, 0.0f}), 1.0);
}

// A CUDA plan makes one long host frame int8 over all its threads (detail::quantize_frame): the
// same scale to the last bit as auto_llr_scale (its sum's additions in the same order: runs cut
// anywhere but at scan_llrs's 2^20 values move the scale's last bits), the same int8 values as
// quantize_llrs, and the same first non-finite value named; the hard bits likewise.
TEST(ConvDecoders, OneFrameOverThreadsQuantizesAsOneThread) {
  std::mt19937 rng(20261129);
  std::normal_distribution<float> noise(1.0f, 2.5f);
  // Frames of 2 runs and a bit, 3 whole runs, 5 runs less one value (a partial last block), and
  // one short frame (one run: one thread's path).
  for (const std::size_t n : {std::size_t{(2u << 20) + 123}, std::size_t{3u << 20},
                              std::size_t{5u << 20} - 1, std::size_t{3000}}) {
    std::vector<float> llr(n);
    for (float& v : llr) v = noise(rng) * (rng() % 7 == 0 ? 100.0f : 1.0f);
    const double one_scale = auto_llr_scale(llr);
    std::vector<std::int8_t> one(n), many(n);
    quantize_llrs(llr, one_scale, one);
    for (const int threads : {1, 2, 3, 8}) {
      const double scale = detail::quantize_frame(llr, 0, many.data(), threads);
      EXPECT_EQ(scale, one_scale) << n << " values, " << threads << " threads";
      EXPECT_EQ(many, one) << n << " values, " << threads << " threads";
    }
    // Block sums of a few thousand carry about 26 significant bits, so adding them in double is
    // exact in any order; one value of 1e20 first makes every later addition round, so that only
    // the runs' own order gives auto_llr_scale's sum.
    auto huge = llr;
    huge[5] = 1e20f;
    EXPECT_EQ(detail::quantize_frame(huge, 0, many.data(), 8), auto_llr_scale(huge)) << n;
    std::vector<std::int8_t> fixed(n);
    quantize_llrs(llr, 2.5, fixed);
    EXPECT_EQ(detail::quantize_frame(llr, 2.5, many.data(), 4), 2.5);
    EXPECT_EQ(many, fixed) << n;

    // The lowest non-finite value is named, whichever thread meets it first.
    auto bad = llr;
    bad[n - 2] = std::numeric_limits<float>::infinity();
    bad[n / 2 + 1] = std::nanf("");
    std::string expected;
    try {
      (void)auto_llr_scale(bad);
    } catch (const invalid_argument& e) {
      expected = e.what();
    }
    ASSERT_NE(expected.find(std::to_string(n / 2 + 1)), std::string::npos) << expected;
    for (const double fixed_scale : {0.0, 2.5}) {
      try {
        (void)detail::quantize_frame(bad, fixed_scale, many.data(), 8);
        ADD_FAILURE() << "no error for a NaN at " << n / 2 + 1;
      } catch (const invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), expected);
      }
    }

    std::vector<std::uint8_t> hard(n);
    for (auto& b : hard) b = static_cast<std::uint8_t>(rng() % 3);  // 2 is a 1 too
    detail::harden_frame(hard, many.data(), 8);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(many[i], hard[i] ? -1 : 1) << "value " << i << " of " << n;
  }
}

TEST(ConvDecoders, BatchesThreadsAndSingleCallsAgree) {
  const conv_code code(5, {023, 035});
  const auto pattern = puncture_pattern::none(2);
  const std::size_t N = 300, frames = 9;
  const encoder enc(code, pattern, N, termination::zero_tail);
  const auto batch = make_batch(enc, frames, 24);
  std::vector<float> llr;
  for (std::size_t f = 0; f < frames; ++f) {
    const std::size_t n = enc.shape().coded_bits;
    const auto l =
        awgn_llrs({batch.coded.begin() + f * n, batch.coded.begin() + (f + 1) * n}, 0.85, 24, f);
    llr.insert(llr.end(), l.begin(), l.end());
  }
  for (decoder_kind kind : {decoder_kind::reference, decoder_kind::fast, decoder_kind::tiled}) {
    decoder_options one, two;
    one.decoder = two.decoder = kind;
    one.threads = 1;
    two.threads = 2;
    decoder_plan serial(code, pattern, N, termination::zero_tail, one, backend::cpu, frames);
    decoder_plan parallel(code, pattern, N, termination::zero_tail, two, backend::cpu, frames);
    const auto a = decode_batch(serial, llr, frames), b = decode_batch(parallel, llr, frames);
    EXPECT_EQ(a, b) << name_of(kind);
    for (std::size_t f = 0; f < frames; ++f) {
      const std::vector<float> frame(llr.begin() + f * enc.shape().coded_bits,
                                     llr.begin() + (f + 1) * enc.shape().coded_bits);
      const auto alone = decode_batch(serial, frame, 1);
      EXPECT_TRUE(std::equal(alone.begin(), alone.end(), a.begin() + f * N)) << f;
    }
  }
}

TEST(ConvDecoders, DescribeSaysWhatThePlanChose) {
  decoder_options options;
  options.threads = 2;
  const decoder_plan plan(conv_code(7, {0171, 0133}), puncture_pattern::standard("3/4", 2), 1000,
                          termination::zero_tail, options, backend::cpu, 64);
  const std::string text = plan.describe();
  for (const char* fragment :
       {"K=7 (171,133)", "101,110", "rate 3/4", "1000 information bits", "zero",
        "1006 trellis stages", "1342 coded bits", "fast", "int16", "threads: 2", "max batch 64"})
    EXPECT_NE(text.find(fragment), std::string::npos) << fragment << " not in:\n" << text;
  EXPECT_EQ(plan.summary().decoder, decoder_kind::fast);
  EXPECT_EQ(plan.summary().where, backend::cpu);

  decoder_options ref;
  ref.decoder = decoder_kind::reference;
  const decoder_plan tb(conv_code(7, {0171, 0133}), puncture_pattern::none(2), 100,
                        termination::tail_biting, ref);
  EXPECT_NE(tb.describe().find("wrap-around 35 + 100 + 35 stages"), std::string::npos)
      << tb.describe();
  EXPECT_NE(tb.describe().find("reference (double"), std::string::npos) << tb.describe();
}

// BER of the (171,133) code, r = 1/2, zero tail, float LLRs over BPSK/AWGN at Eb/N0 = 3 dB, whose
// ML value is 3.9e-4. Bit errors come in bursts (error events), so the tolerance comes
// from the frames themselves: the per-frame error counts e_f are independent, the estimate
// BER = mean(e_f) / N has standard error s = sd(e_f) / (N sqrt(F)), and we accept |BER - 3.9e-4|
// <= 4 s + 0.05e-4 (four standard errors, plus the rounding of the quoted value). With 2000
// frames of 1000 bits s is about 6% of the BER, so a loss of 0.2 dB (+40% BER) would fail.
void expect_ber_at_3db(decoder_kind kind, std::size_t frames) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::none(2);
  const std::size_t N = 1000;
  const double sigma = channel::sigma_from_ebn0(3.0, 0.5);
  const encoder enc(code, pattern, N, termination::zero_tail);
  decoder_options options;
  options.decoder = kind;
  decoder_plan plan(code, pattern, N, termination::zero_tail, options, backend::cpu, frames);
  const std::size_t n = enc.shape().coded_bits;
  std::vector<std::uint8_t> info(frames * N), coded(frames * n), decided(frames * N);
  std::vector<float> llr(frames * n);
  const auto count = static_cast<std::ptrdiff_t>(frames);
#pragma omp parallel for
  for (std::ptrdiff_t fi = 0; fi < count; ++fi) {
    const auto f = static_cast<std::size_t>(fi);
    const auto bits = random_bits(2022, f, N);
    std::copy(bits.begin(), bits.end(), info.begin() + static_cast<std::ptrdiff_t>(f * N));
    enc.encode(bits, std::span<std::uint8_t>(coded).subspan(f * n, n));
    for (std::size_t i = 0; i < n; ++i)
      llr[f * n + i] = static_cast<float>(channel::llr_from_sample(
          channel::awgn_received(2022, f, i, coded[f * n + i], sigma), sigma));
  }
  plan.decode(batch_view<float>::uniform(llr.data(), frames, n),
              batch_span<std::uint8_t>::uniform(decided.data(), frames, N));
  std::vector<double> errors(frames, 0);
  for (std::size_t f = 0; f < frames; ++f)
    for (std::size_t i = 0; i < N; ++i) errors[f] += decided[f * N + i] != info[f * N + i];
  const double mean = std::accumulate(errors.begin(), errors.end(), 0.0) / frames;
  double var = 0;
  for (double e : errors) var += (e - mean) * (e - mean);
  var /= static_cast<double>(frames - 1);
  const double ber = mean / N, se = std::sqrt(var / frames) / N;
  EXPECT_NEAR(ber, 3.9e-4, 4 * se + 0.05e-4) << name_of(kind) << ": standard error " << se;
  EXPECT_LT(se, 0.25 * 3.9e-4) << "too few frames for a meaningful check";
}

TEST(ConvDecoders, BerAt3dBMatchesMlFast) {
  expect_ber_at_3db(decoder_kind::fast, 2000);
}
TEST(ConvDecoders, BerAt3dBMatchesMlReference) {
  expect_ber_at_3db(decoder_kind::reference, 600);
}
// The default tile shape loses nothing measurable at this tolerance (docs/conv.md measures it).
TEST(ConvDecoders, BerAt3dBMatchesMlTiled) {
  expect_ber_at_3db(decoder_kind::tiled, 600);
}

}  // namespace
}  // namespace gpufec::conv
