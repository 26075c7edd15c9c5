// The sync family for the Monte Carlo simulator: uniform q-ary messages -> TVB code -> BSID channel
// -> MAP decoder -> symbol and bit errors. The sweep value p sets Pi = Pd = p unless Pi or Pd is
// fixed; Ps is fixed. Frame f draws its message from philox_stream(seed, rng_source, f) and its
// channel events from philox_stream(seed, rng_channel, f) on either backend, so the CPU and CUDA
// chains see identical frames (the CUDA chain simulates the channel on the GPU).
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "gpufec/common/batch.hpp"
#include "gpufec/common/hd.hpp"
#include "gpufec/sim/outcome.hpp"

#include "gpufec/sim/family.hpp"
#include "gpufec/sync/decoder.hpp"

namespace gpufec::sync {

// Where a code came from, for the reports (it changes every result): random codebooks and marker
// from a seed, or a codebook file (its path and content fingerprint).
struct code_source {
  std::string codebook = "random";  // "random", or the codebook file's path
  std::uint64_t seed = 1;           // of random codebooks and a random marker
  std::uint64_t fingerprint = 0;    // FNV-1a 64 of the codebook file (code_file::fingerprint)
  std::string marker = "none";      // "none", "random" (from the seed) or "file"
};

struct sim_setup {
  explicit sim_setup(tvb_code c) : code(std::move(c)) {}
  tvb_code code;
  code_source source;
  std::optional<double> Pi, Pd;  // fixed; unset: the sweep value p
  double Ps = 0;
  decoder_options options;
  backend where = backend::cpu;
};

bsid_params channel_at(const sim_setup& s, double p);

// Frame f of `seed`, as every chain, test and benchmark draws it (the CUDA chain's channel kernel
// draws the same on the device): a uniform message from philox_stream(seed, rng_source, f) into
// `message` (N symbols), encoded into `x` (tau symbols of scratch), sent through the channel with
// philox_stream(seed, rng_channel, f) into `received`. Returns the received length rho; only the
// first min(rho, capacity) symbols are stored.
std::size_t draw_frame(const tvb_code& code, const bsid_params& channel, std::uint64_t seed,
                       std::uint64_t f, std::uint32_t* message, std::uint8_t* x,
                       std::uint8_t* received, std::size_t capacity);
// Frames first .. first + count - 1, whole: their messages [frame][i] and received frames.
struct sim_frames {
  std::vector<std::uint32_t> messages;
  batch<std::uint8_t> received;
};
sim_frames draw_frames(const tvb_code& code, const bsid_params& channel, std::uint64_t seed,
                       std::size_t count, std::uint64_t first = 0);

// Bits per message symbol for BER: log2(q) when q is a power of two, else 0 (SER only).
int bits_per_symbol(int q);

class sim_family final : public sim::family {
 public:
  explicit sim_family(sim_setup setup);
  std::string name() const override { return "sync"; }
  std::string sweep_name() const override { return "p"; }
  std::string backend() const override;
  void validate_point(double p) const override { (void)channel_at(setup_, p); }
  // The largest p: Pi and Pd grow with p, and the drift limits (the state space) with them.
  double largest_point(std::span<const double> points) const override {
    return *std::max_element(points.begin(), points.end());
  }
  sim::fields parameters() const override;
  std::unique_ptr<sim::chain> make_chain(double point, std::uint64_t seed) const override;

 private:
  sim_setup setup_;
};

namespace detail {
// Outcome of one decoded frame against its message (shared by both chains, host and device). An
// undecodable frame's decisions are all zero (decode() on the host and on the device leaves them
// so, as the decision files show them); they are scored as they are against the message, what was
// measured rather than an invented count, and the frame also counts as undecodable (and a frame
// error). `bps` is bits_per_symbol(q).
GPUFEC_HD_INLINE sim::frame_outcome score_frame(const std::uint32_t* decided,
                                                const std::uint32_t* message, int N, int bps,
                                                bool decoded) {
  sim::frame_outcome o = sim::score_symbols(decided, message, static_cast<std::size_t>(N), bps);
  o.undecodable = !decoded;
  return o;
}
// What both chains report: the frame shape, and the plan's state-space facts per point.
sim::frame_shape chain_shape(const tvb_code& code);
sim::fields plan_details(const decoder_plan& plan);
}  // namespace detail

}  // namespace gpufec::sync
