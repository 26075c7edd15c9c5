// The BPSK/AWGN simulation chain for binary codes, built from stages:
//
//   source bits -> the family's encoder -> BPSK + AWGN -> LLRs (float, int8 or hard)
//               -> the family's decoder (its plan) -> bit and frame errors
//
// on the CPU or on CUDA, from the same Philox streams, so both backends see the same frames. A
// binary family supplies a binary_code (sizes, an encoder, a decoder factory) and nothing else;
// `uncoded` is the identity case (no encoder, a hard decision).
//
// Frame f of a chain with seed s (docs/simulator.md):
// - information bit i is source_bit(philox_stream(s, rng_source, f), i);
// - transmitted bit j is sent as 1 - 2b and received as channel::awgn_received(s, f, j, b, sigma),
//   sigma = sigma_from_ebn0(Eb/N0, R = info_bits / coded_bits);
// - its LLR is 2y / sigma^2 (positive: bit 0), as a float, or quantized to int8 by
//   channel::llr_to_int8 at channel::int8_llr_scale(sigma), or the hard decision on it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpufec/common/backend.hpp"
#include "gpufec/common/batch.hpp"
#include "gpufec/common/bits.hpp"
#include "gpufec/common/cuda_stream.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/hd.hpp"
#include "gpufec/common/llr_kind.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/sim/family.hpp"

namespace gpufec::sim {

// Information bit i of a frame's source stream: bit (i mod 32) of its word i / 32.
GPUFEC_HD_INLINE std::uint8_t source_bit(const philox_stream& source, std::uint64_t i) {
  return static_cast<std::uint8_t>((u32_at(source, i >> 5) >> (i & 31)) & 1u);
}

// source_bit(source, i) for every i in [begin, end) into bits[0, end - begin): one Philox block
// per 128 bits (source_bit alone draws a block for each), whole blocks expanded by table.
inline void source_bits(const philox_stream& source, std::uint64_t begin, std::uint64_t end,
                        std::uint8_t* bits) {
  for (std::uint64_t i = begin; i < end;) {
    const philox4x32_ctr w = source.block(static_cast<std::uint32_t>(i >> 7));
    if ((i & 127) == 0 && end - i >= 128) {
      word_to_bit_bytes(w.v[0] | (std::uint64_t{w.v[1]} << 32), bits + (i - begin));
      word_to_bit_bytes(w.v[2] | (std::uint64_t{w.v[3]} << 32), bits + (i - begin) + 64);
      i += 128;
      continue;
    }
    const std::uint64_t last = std::min<std::uint64_t>(end, (i | 127) + 1);
    for (; i < last; ++i)
      bits[i - begin] = static_cast<std::uint8_t>((w.v[(i >> 5) & 3] >> (i & 31)) & 1u);
  }
}

// A decoder as the chain sees it: the family's plan behind a small interface. Views are on the
// host, or on the device (a CUDA decoder) with the chain's `stream`; a decoder takes what its
// family supports and throws invalid_argument for the rest. A host decode whose `stop` is
// requested may end early (inside a long frame too) by throwing gpufec::stopped.
class binary_decoder {
 public:
  virtual ~binary_decoder() = default;
  virtual std::size_t max_batch() const = 0;
  // The frames per call that keep the decoder's device full (its plan's choice), at most
  // max_batch(). The CUDA chain runs steps of this many frames.
  virtual std::size_t preferred_batch() const { return max_batch(); }
  // LLRs of the transmitted bits (frames of coded_bits) into information bits (0 or 1, frames of
  // info_bits).
  virtual void decode(batch_view<float> llr, batch_span<std::uint8_t> bits, cuda_stream stream,
                      const stop_token& stop) = 0;
  virtual void decode(batch_view<std::int8_t> llr, batch_span<std::uint8_t> bits,
                      cuda_stream stream, const stop_token& stop);
  // Hard decisions on the received bits.
  virtual void decode_hard(batch_view<std::uint8_t> received, batch_span<std::uint8_t> bits,
                           cuda_stream stream, const stop_token& stop);
  // Per-point facts for the report (the plan's choices, and what the calls so far measured, e.g.
  // the mean iterations of an early-stopping decoder). Asked for at the end of a point.
  virtual fields details() const { return {}; }
};

// What a binary family supplies.
struct binary_code {
  std::size_t info_bits = 0;   // K, per frame
  std::size_t coded_bits = 0;  // transmitted bits per frame (after termination and puncturing)
  llr_kind llr = llr_kind::f32;
  // Information bits into transmitted bits, host views. Null: the identity (coded_bits ==
  // info_bits).
  std::function<void(batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded)> encode;
  // The same on device views, queued on `stream`; null: the CUDA chain encodes on the host.
  std::function<void(batch_view<std::uint8_t> info, batch_span<std::uint8_t> coded,
                     cuda_stream stream)>
      encode_device;
  // The decoder for `where` (cpu or cuda), taking up to `max_batch` frames per call.
  std::function<std::unique_ptr<binary_decoder>(backend where, std::size_t max_batch)> decoder;

  double rate() const { return static_cast<double>(info_bits) / static_cast<double>(coded_bits); }
  void validate() const;  // throws invalid_argument naming the bad field
};

// The frames per batch the chain on `where` (cpu or cuda) plans its decoder for: about 2^20
// values a batch on the CPU (cache-sized stages), 2^28 on CUDA (waves of the largest decoders:
// the CUDA chain then steps by the decoder's preferred batch, within what the device's free
// memory holds), at least one frame. A family that reports its plan's choices plans for the same
// batch.
std::size_t chain_batch_frames(std::size_t info_bits, std::size_t coded_bits, backend where);

// The chain for one Eb/N0 point. `where` is cpu or cuda (a CUDA chain needs a CUDA build and
// device: backend_unavailable otherwise).
std::unique_ptr<chain> make_awgn_chain(const binary_code& code, backend where, double ebn0_db,
                                       std::uint64_t seed);

}  // namespace gpufec::sim
