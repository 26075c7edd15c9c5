// Bad inputs and options: each must throw gpufec::invalid_argument (or format_error for a stream
// that ends inside a stage, in test_conv_stream.cpp) with a message that names the problem and
// its value, for both decoders; nothing is decoded from a batch that holds a bad frame.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/llr_kind.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/reference.hpp"

namespace gpufec::conv {
namespace {

template <class Fn>
void expect_invalid(Fn&& fn, std::vector<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one mentioning '" << fragments[0] << "'";
  } catch (const invalid_argument& e) {
    for (const auto& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message '" << e.what() << "' lacks '" << f << "'";
  }
}

const conv_code k7(7, {0171, 0133});

decoder_options with(decoder_kind kind) {
  decoder_options o;
  o.decoder = kind;
  return o;
}

TEST(ConvErrors, PlanOptions) {
  const auto none = puncture_pattern::none(2);
  if (cuda_device_count() == 0)  // CUDA not compiled, or no device
    expect_invalid([&] { decoder_plan(k7, none, 100, termination::zero_tail, {}, backend::cuda); },
                   {"backend 'cuda' needs"});
  expect_invalid([&] { decoder_plan(k7, none, 100, termination::zero_tail, {}, backend::cpu, 0); },
                 {"max_batch = 0"});
  decoder_options bad_threads;
  bad_threads.threads = -1;
  expect_invalid([&] { decoder_plan(k7, none, 100, termination::zero_tail, bad_threads); },
                 {"threads = -1"});
  decoder_options bad_scale;
  bad_scale.llr_scale = -2;
  expect_invalid([&] { decoder_plan(k7, none, 100, termination::zero_tail, bad_scale); },
                 {"llr_scale = -2"});
  expect_invalid([&] { decoder_plan(k7, none, 3, termination::zero_tail); },
                 {"zero-tail", "frame_bits = 3"});
  expect_invalid([&] { decoder_plan(k7, puncture_pattern::none(3), 100, termination::truncated); },
                 {"3 rows", "beta = 2"});
  // `automatic` runs on CUDA exactly when a device is usable (the decoder automatic is tiled
  // there).
  EXPECT_EQ(
      decoder_plan(k7, none, 100, termination::zero_tail, {}, backend::automatic).summary().where,
      cuda_device_count() > 0 ? backend::cuda : backend::cpu);
}

TEST(ConvErrors, EnumNamesParseAndListTheChoices) {
  EXPECT_EQ(parse_name<termination>("tailbiting", "--term"), termination::tail_biting);
  EXPECT_EQ(name_of(termination::truncated), "trunc");
  EXPECT_EQ(parse_name<decoder_kind>("fast", "--decoder"), decoder_kind::fast);
  EXPECT_EQ(parse_name<llr_kind>("int8", "--llr"), llr_kind::i8);
  EXPECT_EQ(name_of(metric_type::f32), "float");
  expect_invalid([] { parse_name<termination>("tail", "--term"); },
                 {"unknown --term 'tail'", "zero, trunc or tailbiting"});
}

TEST(ConvErrors, BatchShapes) {
  for (decoder_kind kind : {decoder_kind::reference, decoder_kind::fast}) {
    SCOPED_TRACE(std::string(name_of(kind)));
    const auto p34 = puncture_pattern::standard("3/4", 2);
    decoder_plan plan(k7, p34, 1000, termination::zero_tail, with(kind), backend::cpu, 2);
    ASSERT_EQ(plan.shape().coded_bits, 1342u);
    std::vector<float> llr(3 * 1342, 1.0f);
    std::vector<std::uint8_t> bits(3 * 1000);
    const auto out = batch_span<std::uint8_t>::uniform(bits.data(), 2, 1000);
    // A frame one LLR short of the punctured stream's length.
    expect_invalid([&] { plan.decode(batch_view<float>::uniform(llr.data(), 2, 1341), out); },
                   {"1000 information bits", "pattern 101,110", "is 1342 LLRs; got 1341"});
    expect_invalid(
        [&] {
          plan.decode(batch_view<float>::uniform(llr.data(), 3, 1342),
                      batch_span<std::uint8_t>::uniform(bits.data(), 3, 1000));
        },
        {"3 frames exceed the plan's max_batch = 2"});
    expect_invalid(
        [&] {
          plan.decode(batch_view<float>::uniform(llr.data(), 2, 1342),
                      batch_span<std::uint8_t>::uniform(bits.data(), 2, 999));
        },
        {"1000 decided bits", "room was given for 999"});
    expect_invalid(
        [&] {
          plan.decode(batch_view<float>::uniform(llr.data(), 2, 1342),
                      batch_span<std::uint8_t>::uniform(bits.data(), 1, 1000));
        },
        {"2 frames received but room for 1"});
    const std::size_t offsets[] = {0, 1342, 2684};
    expect_invalid([&] { plan.decode(batch_view<float>::ragged(llr.data(), offsets, 2), out); },
                   {"must be uniform"});
    expect_invalid(
        [&] {
          plan.decode(batch_view<float>::uniform(llr.data(), 2, 1342, memory_space::device), out);
        },
        {"batches in device memory need a CUDA plan"});
    std::vector<std::uint8_t> hard(2 * 1342);
    expect_invalid(
        [&] { plan.decode_hard(batch_view<std::uint8_t>::uniform(hard.data(), 2, 1340), out); },
        {"is 1342 hard bits; got 1340"});
  }
}

TEST(ConvErrors, NonFiniteLlrsNameTheFrameAndPosition) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (decoder_kind kind : {decoder_kind::reference, decoder_kind::fast})
    for (double scale : {0.0, 4.0}) {
      SCOPED_TRACE(std::string(name_of(kind)) + ", llr_scale " + std::to_string(scale));
      decoder_options options = with(kind);
      options.llr_scale = scale;
      decoder_plan plan(k7, puncture_pattern::none(2), 100, termination::truncated, options,
                        backend::cpu, 5);
      std::vector<float> llr(5 * 200, 2.0f);
      std::vector<std::uint8_t> bits(5 * 100);
      const auto out = batch_span<std::uint8_t>::uniform(bits.data(), 5, 100);
      llr[3 * 200 + 17] = nan;
      expect_invalid([&] { plan.decode(batch_view<float>::uniform(llr.data(), 5, 200), out); },
                     {"frame 3", "LLR 17 is NaN", "finite"});
      llr[1 * 200 + 199] = -inf;  // a lower frame's error is the one reported
      expect_invalid([&] { plan.decode(batch_view<float>::uniform(llr.data(), 5, 200), out); },
                     {"frame 1", "LLR 199 is infinite"});
    }
  reference_decoder reference(k7, puncture_pattern::none(2), 10, termination::truncated);
  std::vector<float> llr(20, 1.0f);
  std::vector<std::uint8_t> bits(10);
  llr[4] = inf;
  expect_invalid([&] { reference.decode(llr, bits); }, {"LLR 4 is infinite"});
  expect_invalid(
      [&] {
        ml_tailbiting_decode(k7, puncture_pattern::standard("3/4", 2),
                             std::vector<float>(13, 1.0f));
      },
      {"is 14 LLRs; got 13"});
}

TEST(ConvErrors, EncoderSizes) {
  const encoder enc(k7, puncture_pattern::none(2), 10, termination::zero_tail);
  std::vector<std::uint8_t> info(9), coded(32);
  expect_invalid([&] { enc.encode(info, coded); }, {"9 information bits", "holds 10"});
  info.resize(10);
  coded.resize(31);
  expect_invalid([&] { enc.encode(info, coded); }, {"room for 31", "sends 32"});
}

}  // namespace
}  // namespace gpufec::conv
