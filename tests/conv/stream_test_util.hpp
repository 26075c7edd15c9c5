// Streams for the stream decoder's tests (CPU and CUDA): a truncated stream with its bits, a
// decoder fed in chunks of cycling sizes, and the oracle of the tiled stream decoder, the tiled
// decoder on the whole stream as one truncated frame.
#pragma once

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conv_test_util.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/stream.hpp"
#include "gpufec/conv/tiling.hpp"

namespace gpufec::conv::testing {

struct test_stream {
  std::vector<std::uint8_t> info, coded;
  std::vector<float> llr;
};

// A truncated stream of `stages` stages: what an encoder that never stops sends.
inline test_stream make_stream(const conv_code& code, const puncture_pattern& pattern,
                               std::size_t stages, double sigma, std::uint64_t seed) {
  test_stream s;
  s.info = random_bits(seed, 0, stages);
  const encoder enc(code, pattern, stages, termination::truncated);
  s.coded.resize(enc.shape().coded_bits);
  enc.encode(s.info, s.coded);
  s.llr = sigma > 0 ? awgn_llrs(s.coded, sigma, seed, 0) : clean_llrs(s.coded);
  return s;
}

// Feeds `values` in chunks whose sizes cycle through `sizes`, then finishes.
template <class T, class Push>
inline std::vector<std::uint8_t> decode_in_chunks(stream_decoder& dec, const std::vector<T>& values,
                                                  const std::vector<std::size_t>& sizes,
                                                  Push push) {
  dec.reset();
  std::vector<std::uint8_t> out;
  std::size_t at = 0;
  for (std::size_t k = 0; at < values.size(); ++k) {
    const std::size_t n = std::min(sizes[k % sizes.size()], values.size() - at);
    push(dec, std::span<const T>(values).subspan(at, n), out);
    at += n;
  }
  dec.finish(out);
  return out;
}

inline const auto push_values = [](stream_decoder& d, auto chunk, std::vector<std::uint8_t>& out) {
  d.push(chunk, out);
};
inline const auto push_hard = [](stream_decoder& d, std::span<const std::uint8_t> chunk,
                                 std::vector<std::uint8_t>& out) { d.push_hard(chunk, out); };

// The tiled decoder on the whole stream of int8 values (a whole number of stages) as one
// truncated frame.
inline std::vector<std::uint8_t> tiled_whole(const conv_code& code, const puncture_pattern& pattern,
                                             const tile_shape& tile,
                                             const std::vector<std::int8_t>& values,
                                             std::size_t stages) {
  std::vector<std::uint8_t> bits(stages);
  if (stages == 0) return bits;
  tiled_decoder dec(code, pattern, stages, termination::truncated, tile);
  dec.decode(values, bits);
  return bits;
}

// What the stream decoders quantize float LLRs to: the scale of the first 4096 LLRs.
inline std::vector<std::int8_t> stream_quantized(const std::vector<float>& llr) {
  std::vector<std::int8_t> q(llr.size());
  if (llr.empty()) return q;
  const std::size_t window = std::min(llr.size(), stream_decoder::scale_window);
  quantize_llrs(llr, auto_llr_scale(std::span<const float>(llr).first(window)), q);
  return q;
}

// Hard bits as the decoders take them: +1 for 0, -1 for 1.
inline std::vector<std::int8_t> hard_as_int8(const std::vector<std::uint8_t>& hard) {
  std::vector<std::int8_t> q(hard.size());
  for (std::size_t i = 0; i < hard.size(); ++i) q[i] = hard[i] ? -1 : 1;
  return q;
}

// A NaN at stream value 617 is refused, naming its place.
inline void expect_nan_named(stream_decoder& dec) {
  std::vector<std::uint8_t> out;
  std::vector<float> llr(1000, 1.0f);
  llr[617] = std::nanf("");
  try {
    dec.push(llr, out);
    ADD_FAILURE() << "a NaN was taken";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stream value 617: LLR 617 is NaN"), std::string::npos)
        << e.what();
  }
}

}  // namespace gpufec::conv::testing
