// Helpers shared by the CUDA sync decoder tests: comparisons with the CPU reference and between
// GPU runs, and batches with priors or bad frames.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gpufec/common/device.hpp"
#include "gpufec/sync/decoder.hpp"
#include "sync/test_util.hpp"

namespace gpufec::sync::testing {

#define SKIP_WITHOUT_GPU() \
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

struct gpu_case {
  int q, n, N;
  double p;
  std::size_t batch;
  storage_mode storage;
};

inline std::string name_of(const gpu_case& c) {
  return cat("q", c.q, "_n", c.n, "_N", c.N, "_p", c.p, "_b", c.batch, "_", to_string(c.storage));
}

// APPs within 1e-6 relative (plus a 1e-15 floor), decisions identical, drift posteriors close.
// `ties`: a channel whose symbols may tie exactly (no insertions nor substitutions: deletion
// patterns are symmetric), where rounding picks the winner; a decision may then differ where the
// CPU's APPs of the two symbols agree within 1e-12 relative.
inline void expect_same(const decode_output& gpu, const decode_output& cpu, const std::string& what,
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
inline void expect_frames_of(const decode_output& some, const decode_output& all, std::size_t first,
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

inline void compare(const tvb_code& code, const bsid_params& ch, const decoder_options& o,
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
inline std::vector<double> random_priors(const tvb_code& code, std::size_t frames,
                                         std::uint64_t seed) {
  std::vector<double> priors(frames * code.N() * code.q());
  philox_stream rng(seed, rng_source, 0);
  for (auto& p : priors) p = rng.next_uniform();
  return priors;
}

// `received` with an empty frame (skipped for its length) inserted before frame `skipped_at` and,
// when `impossible_at` is given, a run of 16 complemented bits in that frame: zero probability on
// a channel without insertions or substitutions.
inline batch<std::uint8_t> with_bad_frames(const batch<std::uint8_t>& received,
                                           std::size_t skipped_at,
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

}  // namespace gpufec::sync::testing
