// The conv fast decoder on every SIMD target this CPU supports (Highway's test mock), not only the
// one dispatch picks here: CI and the development machine have AVX-512, so without this the AVX2
// and SSE4 kernels (the headline number is AVX2) would run untested. On each target the
// fast decoder equals the reference bit for bit on noisy int8 frames, the float path (Highway's
// scan and quantizer) decides as on the default target, and the plan names the target it used.
// Also the GPUFEC_SIMD cap's parsing.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "common/simd_target.hpp"
#include "common/simd_targets_util.hpp"
#include "conv/cpu/fast_kernel.hpp"
#include "conv_test_util.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/reference.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;
using gpufec::testing::simd_target_name;
using gpufec::testing::simd_target_override;
using gpufec::testing::simd_targets_to_test;

std::vector<std::uint8_t> decode_all(decoder_plan& plan, const void* received, bool int8,
                                     std::size_t frames) {
  std::vector<std::uint8_t> bits(frames * plan.shape().info_bits);
  const auto out = batch_span<std::uint8_t>::uniform(bits.data(), frames, plan.shape().info_bits);
  if (int8)
    plan.decode(batch_view<std::int8_t>::uniform(static_cast<const std::int8_t*>(received), frames,
                                                 plan.shape().coded_bits),
                out);
  else
    plan.decode(batch_view<float>::uniform(static_cast<const float*>(received), frames,
                                           plan.shape().coded_bits),
                out);
  return bits;
}

// Noisy frames of one code: the info bits, float LLRs and their int8 quantization (scale 9).
struct noisy_frames {
  std::vector<std::uint8_t> info;
  std::vector<float> llr;
  std::vector<std::int8_t> q;
};
noisy_frames make_frames(const conv_code& code, const puncture_pattern& pattern, std::size_t N,
                         termination term, std::size_t frames) {
  const encoder enc(code, pattern, N, term);
  const std::size_t n = enc.shape().coded_bits;
  const double sigma = 0.95 * std::sqrt(0.5 / pattern.rate());
  noisy_frames out;
  for (std::size_t f = 0; f < frames; ++f) {
    const auto info = random_bits(23, f, N);
    std::vector<std::uint8_t> coded(n);
    enc.encode(info, coded);
    const auto llr = awgn_llrs(coded, sigma, 23, f);
    out.info.insert(out.info.end(), info.begin(), info.end());
    out.llr.insert(out.llr.end(), llr.begin(), llr.end());
  }
  out.q.resize(out.llr.size());
  quantize_llrs(out.llr, 9.0, out.q);  // on the default target
  return out;
}

// The codes of the three branch layouts (pair, full, half), the two-frame range (K = 5..7) and
// beyond it (K = 9), a recursive code; each unpunctured and punctured.
std::vector<named_code> codes_under_test() {
  return {{"K7 (171,133)", conv_code(7, {0171, 0133})},
          {"K7 (133,171,165)", conv_code(7, {0133, 0171, 0165})},
          {"K5 (23,12) general", conv_code(5, {023, 012})},
          {"K5 RSC (23,35)", conv_code::recursive_systematic(5, {023, 035})},
          {"K3 (7,5)", conv_code(3, {07, 05})},
          {"K9 (561,753)", conv_code(9, {0561, 0753})}};
}

TEST(ConvSimdTargets, TheMockReachesSeveralTargets) {
  const auto targets = simd_targets_to_test();
  std::string names;
  for (const auto t : targets) names += simd_target_name(t) + " ";
  // Any x86-64 CPU has SSE4 and SSSE3 besides the scalar fallback (GPUFEC_SIMD=scalar: only it).
  EXPECT_GE(targets.size(), gpufec::testing::simd_capped() ? 1u : 3u) << names;
  std::cout << "SIMD targets under test: " << names << "\n";
}

TEST(ConvSimdTargets, FastEqualsReferenceOnEveryTarget) {
  const std::size_t N = 203, frames = 9;  // odd: the two-frame kernel's pairs and a single frame
  std::size_t checked_targets = 0, frames_with_errors = 0;
  for (const std::int64_t target : simd_targets_to_test()) {
    const std::string name = simd_target_name(target);
    SCOPED_TRACE("SIMD target " + name);
    const simd_target_override use(target);
    const detail::simd_shape shape = detail::acs_shape(7);
    EXPECT_EQ(std::string(shape.target), name);
    if (shape.lanes < 2) {  // no ACS kernel (HWY_SCALAR): automatic takes the reference
      decoder_options fast;
      fast.decoder = decoder_kind::fast;
      try {
        decoder_plan plan(conv_code(7, {0171, 0133}), puncture_pattern::none(2), N,
                          termination::zero_tail, fast, backend::cpu, frames);
        ADD_FAILURE() << "a fast plan without an ACS kernel";
      } catch (const invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
      const decoder_plan automatic(conv_code(7, {0171, 0133}), puncture_pattern::none(2), N,
                                   termination::zero_tail, {}, backend::cpu, frames);
      EXPECT_EQ(automatic.summary().decoder, decoder_kind::reference);
      continue;
    }
    ++checked_targets;
    for (const auto& [code_name, code] : codes_under_test())
      for (const auto& pattern : patterns_for(code))
        for (termination term : {termination::zero_tail, termination::tail_biting}) {
          if (!can_encode(code, pattern, N, term)) continue;
          SCOPED_TRACE(code_name + ", pattern " + pattern.to_string() + ", " +
                       std::string(name_of(term)));
          const auto batch = make_frames(code, pattern, N, term, frames);
          decoder_options fast;
          fast.decoder = decoder_kind::fast;
          decoder_plan plan(code, pattern, N, term, fast, backend::cpu, frames);
          EXPECT_EQ(plan.summary().kernel.rfind(name + ":", 0), 0u) << plan.summary().kernel;
          EXPECT_NE(plan.describe().find(name), std::string::npos) << plan.describe();
          const auto fast_bits = decode_all(plan, batch.q.data(), true, frames);
          reference_decoder reference(code, pattern, N, term);
          const std::size_t n = plan.shape().coded_bits;
          for (std::size_t f = 0; f < frames; ++f) {
            std::vector<std::uint8_t> bits(N);
            reference.decode(std::span<const std::int8_t>(batch.q).subspan(f * n, n), bits);
            EXPECT_TRUE(std::equal(bits.begin(), bits.end(), fast_bits.begin() + f * N))
                << "frame " << f;
            frames_with_errors += !std::equal(bits.begin(), bits.end(), batch.info.begin() + f * N);
          }
        }
  }
  EXPECT_GE(checked_targets, gpufec::testing::simd_capped() ? 0u : 2u);
  if (checked_targets > 0) {
    EXPECT_GT(frames_with_errors, 50u) << "too little noise to exercise the decisions";
  }
}

// The float path runs Highway code besides the ACS (the |LLR| scan of the automatic scale, the
// quantizer): on every target it decides the bits the default target decides.
TEST(ConvSimdTargets, FloatInputDecidesAsOnTheDefaultTarget) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::standard("3/4", 2);
  const std::size_t N = 300, frames = 6;
  if (detail::acs_shape(7).lanes < 2) GTEST_SKIP() << "no SIMD target (GPUFEC_SIMD=scalar)";
  const auto batch = make_frames(code, pattern, N, termination::truncated, frames);
  decoder_options fast;
  fast.decoder = decoder_kind::fast;
  decoder_plan default_plan(code, pattern, N, termination::truncated, fast, backend::cpu, frames);
  const auto expected = decode_all(default_plan, batch.llr.data(), false, frames);
  for (const std::int64_t target : simd_targets_to_test()) {
    SCOPED_TRACE("SIMD target " + simd_target_name(target));
    const simd_target_override use(target);
    std::vector<std::int8_t> q(batch.llr.size());
    quantize_llrs(batch.llr, 9.0, q);
    EXPECT_EQ(q, batch.q);
    if (detail::acs_shape(7).lanes < 2) continue;
    decoder_plan plan(code, pattern, N, termination::truncated, fast, backend::cpu, frames);
    EXPECT_EQ(decode_all(plan, batch.llr.data(), false, frames), expected);
  }
}

TEST(ConvSimdTargets, CapValues) {
  using gpufec::detail::simd_cap_disabled_targets;
  EXPECT_EQ(simd_cap_disabled_targets(""), 0);
  EXPECT_EQ(simd_cap_disabled_targets("auto"), 0);
  EXPECT_EQ(simd_cap_disabled_targets("AVX2"), simd_cap_disabled_targets("avx2"));
  const std::int64_t avx3 = simd_cap_disabled_targets("avx3");
  const std::int64_t avx2 = simd_cap_disabled_targets("avx2");
  const std::int64_t sse4 = simd_cap_disabled_targets("sse4");
  const std::int64_t scalar = simd_cap_disabled_targets("scalar");
  EXPECT_TRUE((avx3 & HWY_AVX3_DL) && !(avx3 & HWY_AVX3));
  EXPECT_TRUE((avx2 & HWY_AVX3) && (avx2 & HWY_AVX3_DL) && !(avx2 & HWY_AVX2));
  EXPECT_TRUE((sse4 & HWY_AVX2) && !(sse4 & HWY_SSE4) && !(sse4 & HWY_SSSE3));
  EXPECT_TRUE((scalar & HWY_SSSE3) && (scalar & HWY_SSE4) && !(scalar & HWY_SCALAR) &&
              !(scalar & HWY_EMU128));
  for (const char* bad : {"avx512", "avx-2", " avx2", "none"}) {
    try {
      simd_cap_disabled_targets(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("GPUFEC_SIMD"), std::string::npos) << what;
      EXPECT_NE(what.find("auto, avx3, avx2, sse4 or scalar"), std::string::npos) << what;
      EXPECT_NE(what.find(bad), std::string::npos) << what;
    }
  }
}

// The variable itself, in a child process (the cap is read once per process): the CLI's benchmark
// header names the capped target, and an unknown value is an error naming the variable.
std::pair<int, std::string> run_cli_with_cap(const std::string& cap, const std::string& args) {
  const std::string command =
      "env GPUFEC_SIMD=" + cap + " " + std::string(GPUFEC_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, ""};
  std::string output;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, output};
}

TEST(ConvSimdTargets, CliFollowsTheCap) {
  const std::string bench = "bench conv --K 7 --rates 1/2 --frames 2 --backend cpu --threads 1";
  const auto targets = simd_targets_to_test();
  if (std::find(targets.begin(), targets.end(), HWY_SSE4) != targets.end()) {
    const auto [status, output] = run_cli_with_cap("sse4", bench);
    EXPECT_EQ(status, 0) << output;
    EXPECT_NE(output.find("SIMD target SSE4"), std::string::npos) << output;
  }
  const auto [status, output] = run_cli_with_cap("avx1024", bench);
  EXPECT_NE(status, 0) << output;
  EXPECT_NE(output.find("GPUFEC_SIMD = \"avx1024\" is not a SIMD cap"), std::string::npos)
      << output;
}

}  // namespace
}  // namespace gpufec::conv
