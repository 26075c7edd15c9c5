// The stream decoder: chunked decoding gives exactly the bits of decoding the stream in one chunk
// (awkward chunk sizes, many tracebacks), fast and reference agree on int8 streams, noise-free
// streams decode exactly, the decision delay costs little against whole-frame decoding, memory
// stays bounded, and a stream that ends inside a stage is an error.
#include <gtest/gtest.h>

#include <string>

#include "conv_test_util.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/stream.hpp"
#include "stream_test_util.hpp"

namespace gpufec::conv {
namespace {

using namespace testing;

TEST(ConvStream, ChunkedEqualsWholeForEveryInputAndDecoder) {
  const std::vector<std::size_t> awkward = {1, 7, 333, 4095, 2, 4097, 64, 5};
  const std::vector<std::size_t> whole = {std::size_t{1} << 40};
  const std::pair<conv_code, puncture_pattern> cases[] = {
      {conv_code(7, {0171, 0133}), puncture_pattern::none(2)},
      {conv_code(7, {0171, 0133}), puncture_pattern::standard("3/4", 2)},
      {conv_code::recursive_systematic(4, {013, 015}), puncture_pattern::standard("2/3", 2)},
      {conv_code(5, {023, 012}), puncture_pattern::none(2)},
      {conv_code(9, {0557, 0663, 0711}), puncture_pattern::parse("11,10,01", 3)},
  };
  for (const auto& [code, pattern] : cases)
    for (decoder_kind kind : {decoder_kind::fast, decoder_kind::reference}) {
      SCOPED_TRACE(code.to_string() + ", pattern " + pattern.to_string() + ", " +
                   std::string(name_of(kind)));
      const auto s = make_stream(code, pattern, 12000, 0.8, 31);
      std::vector<std::int8_t> q(s.llr.size());
      quantize_llrs(s.llr, 7.0, q);
      stream_options options;
      options.decoder = kind;
      stream_decoder dec(code, pattern, options);
      const auto f_whole = decode_in_chunks(dec, s.llr, whole, push_values);
      ASSERT_EQ(f_whole.size(), s.info.size());
      EXPECT_EQ(decode_in_chunks(dec, s.llr, awkward, push_values), f_whole) << "float";
      const auto q_whole = decode_in_chunks(dec, q, whole, push_values);
      EXPECT_EQ(decode_in_chunks(dec, q, awkward, push_values), q_whole) << "int8";
      const auto h_whole = decode_in_chunks(dec, s.coded, whole, push_hard);
      EXPECT_EQ(decode_in_chunks(dec, s.coded, awkward, push_hard), h_whole) << "hard";
      EXPECT_NE(f_whole, s.info) << "no decoding errors: too little noise to test anything";
      EXPECT_GT(dec.stages_received(), 10 * (dec.traceback_depth() + dec.release_block()));
    }
}

TEST(ConvStream, FastEqualsReferenceOnInt8Streams) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::standard("5/6", 2);
  const auto s = make_stream(code, pattern, 20000, 0.55, 32);
  std::vector<std::int8_t> q(s.llr.size());
  quantize_llrs(s.llr, 5.0, q);
  stream_options fast, reference;
  fast.decoder = decoder_kind::fast;
  reference.decoder = decoder_kind::reference;
  stream_decoder a(code, pattern, fast), b(code, pattern, reference);
  EXPECT_EQ(decode_in_chunks(a, q, {1000}, push_values),
            decode_in_chunks(b, q, {777}, push_values));
}

TEST(ConvStream, NoiseFreeStreamsDecodeExactly) {
  for (const auto& named : all_codes())
    for (const auto& pattern : patterns_for(named.code)) {
      if (!exact_when_noise_free(named, pattern)) continue;  // see conv_test_util.hpp
      const auto s = make_stream(named.code, pattern, 3000, 0, 33);
      stream_decoder dec(named.code, pattern);
      EXPECT_EQ(decode_in_chunks(dec, s.llr, {500}, push_values), s.info)
          << named.name << ", pattern " << pattern.to_string();
    }
}

// The decision delay D = default_traceback_depth costs little: over the same noisy stream, the
// stream decoder's bit errors stay within 25% of the whole-stream (full traceback) decoder's. The
// points have a BER of about 3e-4 (rate 1/2 at 3 dB, 3/4 at 4 dB): some 60 errors in a dozen
// error events are expected, so the comparison is not made on a handful.
TEST(ConvStream, DefaultDepthIsCloseToFullTraceback) {
  const conv_code code(7, {0171, 0133});
  for (const char* rate : {"1/2", "3/4"}) {
    const auto pattern = puncture_pattern::standard(rate, 2);
    const std::size_t stages = 200000;
    const double sigma = channel::sigma_from_ebn0(rate[2] == '2' ? 3.0 : 4.0, pattern.rate());
    const auto s = make_stream(code, pattern, stages, sigma, 34);
    stream_decoder dec(code, pattern);
    const auto streamed = decode_in_chunks(dec, s.llr, {65536}, push_values);
    decoder_options options;
    options.decoder = decoder_kind::fast;
    decoder_plan whole(code, pattern, stages, termination::truncated, options);
    std::vector<std::uint8_t> full(stages);
    whole.decode(batch_view<float>::uniform(s.llr.data(), 1, s.llr.size()),
                 batch_span<std::uint8_t>::uniform(full.data(), 1, stages));
    std::size_t stream_errors = 0, full_errors = 0;
    for (std::size_t i = 0; i < stages; ++i) {
      stream_errors += streamed[i] != s.info[i];
      full_errors += full[i] != s.info[i];
    }
    EXPECT_GT(full_errors, 20u) << rate;
    EXPECT_LE(stream_errors, full_errors * 5 / 4 + 5)
        << rate << ": depth " << dec.traceback_depth();
  }
}

TEST(ConvStream, MemoryStaysBounded) {
  const conv_code code(7, {0171, 0133});
  stream_decoder dec(code, puncture_pattern::none(2));
  const std::size_t before = dec.memory_bytes();
  std::vector<float> chunk(1 << 16, 3.0f);
  std::vector<std::uint8_t> out;
  for (int k = 0; k < 16; ++k) {
    out.clear();
    dec.push(chunk, out);
  }
  EXPECT_EQ(dec.memory_bytes(), before);
  EXPECT_LT(before, std::size_t{64} << 10) << dec.describe();
  EXPECT_EQ(dec.values_received(), std::uint64_t{16} << 16);
  EXPECT_GE(dec.bits_decided() + dec.traceback_depth() + dec.release_block(),
            dec.stages_received());
}

TEST(ConvStream, BadStreamsAreReported) {
  const conv_code code(7, {0171, 0133});
  const auto pattern = puncture_pattern::standard("3/4", 2);
  stream_decoder dec(code, pattern);
  std::vector<std::uint8_t> out;
  // Stages of 3/4 send 2, 1, 1 values: stages 0-2 take 4 values, the fifth is half of stage 3.
  dec.push(std::vector<float>(5, 1.0f), out);
  try {
    dec.finish(out);
    ADD_FAILURE() << "no error for a stream that ends inside a stage";
  } catch (const format_error& e) {
    EXPECT_NE(std::string(e.what()).find("ends inside a stage"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("stage 3"), std::string::npos) << e.what();
  }
  dec.reset();
  std::vector<float> bad(100, 1.0f);
  bad[57] = std::numeric_limits<float>::quiet_NaN();
  dec.push(std::vector<float>(10, 1.0f), out);
  try {
    dec.push(bad, out);
    ADD_FAILURE() << "no error for a NaN";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stream value 67"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  }
  dec.reset();
  dec.push(std::vector<float>(4, 1.0f), out);
  dec.finish(out);
  EXPECT_THROW(dec.push(std::vector<float>(4, 1.0f), out), invalid_argument);
}

}  // namespace
}  // namespace gpufec::conv
