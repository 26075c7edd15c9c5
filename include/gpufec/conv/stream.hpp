// Continuous (stream) decoding, like MATLAB vitdec's 'cont' mode or GNU Radio's streaming Viterbi:
// LLRs arrive in chunks of any size (a stage may straddle two chunks) and decided bits leave with a
// bounded delay, in memory that does not grow with the stream, so a stream larger than memory
// (10^10 LLRs from a file) decodes in one pass.
//
// Method: the path metrics run on from the first stage (start state 0). Survivors of the last
// D + B stages are kept in a ring, D = traceback_depth. Whenever D + B stages are undecided, the
// decoder traces back from the best current state (lowest state among equals) and releases the
// oldest B bits, so every bit is decided with at least D stages of look-ahead and at most D + B
// of delay; B = 4D keeps the traceback work at 1.25 steps per bit. finish() traces back from the
// best end state over what is left (a truncated stream). Tracebacks happen at fixed stage counts,
// so the bits never depend on how the stream was cut into chunks: decoding it in one chunk or in
// many gives the same bits, which the tests check.
//
// D defaults to default_traceback_depth (2.5 K / (1 - R): 35 stages for K = 7 at rate 1/2, 70 at
// 3/4); docs/conv.md measures what it costs against whole-frame decoding.
//
// The fast decoder runs on int8 LLRs: float LLRs are quantized with options.llr_scale, or by
// default with the scale auto_llr_scale gives for the stream's first 4096 LLRs (the decoder holds
// them back until it has them, or until finish()), so the scale too is independent of chunking.
//
// Tiled (decoder = tiled, and every CUDA stream decoder: where = backend::cuda): the stream is one
// truncated frame that never ends, cut into the tiled decoder's tiles on a grid anchored at stage
// 0 (tiling.hpp: tile j decodes [j f, (j+1) f) from v1 stages before to v2 after). A tile is
// decoded once its v2 stages of look-ahead have arrived, in windows of many tiles; the bits equal,
// bit for bit, tiled_decoder's on the whole stream as one truncated frame with the same tile
// shape, whatever the chunking (float LLRs quantized as above, hard bits as +-1). On CUDA a window
// goes through the GPU on one of two streams, from page-locked staging that push() fills directly
// (float LLRs quantized on the way: a quarter of the bytes over the link), so one window's copies
// overlap the other's kernel; a window's bits are appended by the push() that launches the next
// window, or by finish(). Memory: two windows on the host and the device, whatever the stream's
// length (window_stages; by default about two waves of the GPU's resident tiles).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpufec/conv/code.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/puncture.hpp"

namespace gpufec::conv {

struct stream_options {
  // reference: double path metrics; tiled: the tile grid above (on the CPU, or on CUDA).
  decoder_kind decoder = decoder_kind::automatic;
  std::size_t traceback_depth = 0;  // D; 0 = default_traceback_depth (not for tiled)
  double llr_scale = 0;             // float LLRs: 0 = from the first 4096 LLRs (not reference)
  backend where = backend::cpu;     // cuda: the tiled decoder on the GPU (decoder auto or tiled)
  // Tiled: f = 0 takes default_tile_shape(code, pattern) on the CPU, and on CUDA the default of
  // the kernel that runs (the register kernel's is that one; the shared kernel's, (256, D, D, 0)).
  tile_shape tile;
  cuda_kernel kernel = cuda_kernel::automatic;  // CUDA: which kernel (the bits are the same)
  std::size_t window_stages = 0;  // tiled: stages decided per window; 0 = the backend's choice
};

namespace detail {
class stream_engine;
}

class stream_decoder {
 public:
  static constexpr std::size_t scale_window = 4096;  // LLRs that fix the automatic scale

  // Throws invalid_argument for a bad option (named), e.g. where = cuda with the reference or
  // fast decoder, or a traceback depth for the tiled one; backend_unavailable for where = cuda
  // without CUDA or a device. automatic resolves to cpu.
  stream_decoder(const conv_code& code, const puncture_pattern& pattern,
                 const stream_options& options = {});
  ~stream_decoder();
  stream_decoder(stream_decoder&&) noexcept;
  stream_decoder& operator=(stream_decoder&&) noexcept;

  // Feeds received values in stream order (the punctured stream, pattern phase 0 at the first
  // value) and appends the bits decided so far to `decided` (0/1, in order). Throws
  // invalid_argument for a NaN or infinite LLR (naming its position in the stream; none of that
  // call's values is taken) or when called after finish().
  void push(std::span<const float> llrs, std::vector<std::uint8_t>& decided);
  void push(std::span<const std::int8_t> llrs, std::vector<std::uint8_t>& decided);
  void push_hard(std::span<const std::uint8_t> hard, std::vector<std::uint8_t>& decided);
  // Ends the stream: decides the remaining bits from the best end state and appends them. Throws
  // format_error when the values fed end inside a stage (some of its coded bits are missing).
  void finish(std::vector<std::uint8_t>& decided);
  // Starts a new stream (keeps the allocated memory).
  void reset();

  // Traceback-ring decoders: D and B (above). Tiled: v2 and the stages decided per window.
  std::size_t traceback_depth() const { return depth_; }
  std::size_t release_block() const { return block_; }
  // Where it decodes (cpu or cuda) and, tiled, the tile shape (f = 0 otherwise).
  backend where() const { return options_.where; }
  const tile_shape& tile() const { return options_.tile; }
  std::uint64_t values_received() const { return values_; }
  std::uint64_t stages_received() const;
  std::uint64_t bits_decided() const;
  std::size_t memory_bytes() const;
  std::string describe() const;

 private:
  template <class T>
  void feed(std::span<const T> values, std::vector<std::uint8_t>& decided);
  void feed_float(std::span<const float> llrs, std::vector<std::uint8_t>& decided);

  conv_code code_;
  puncture_pattern pattern_;
  stream_options options_;
  std::size_t depth_ = 0, block_ = 0;
  std::uint64_t values_ = 0;
  bool finished_ = false;
  float scale_ = 0;          // fast decoder, float LLRs; 0 until known
  std::vector<float> held_;  // float LLRs held back until the scale is known
  std::vector<std::int8_t> quantized_;
  std::unique_ptr<detail::stream_engine> engine_;
};

}  // namespace gpufec::conv
