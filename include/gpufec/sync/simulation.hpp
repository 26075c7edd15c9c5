// The sync family for the Monte Carlo simulator: uniform q-ary messages -> TVB code -> BSID channel
// -> MAP decoder -> symbol and bit errors. The sweep value p sets Pi = Pd = p unless Pi or Pd is
// fixed; Ps is fixed. Frame f draws its message from philox_stream(seed, rng_source, f) and its
// channel events from philox_stream(seed, rng_channel, f) on either backend, so the CPU and CUDA
// chains see identical frames (the CUDA chain simulates the channel on the GPU).
#pragma once

#include <optional>

#include "gpufec/sim/family.hpp"
#include "gpufec/sync/decoder.hpp"

namespace gpufec::sync {

struct sim_setup {
  explicit sim_setup(tvb_code c) : code(std::move(c)) {}
  tvb_code code;
  std::optional<double> Pi, Pd;  // fixed; unset: the sweep value p
  double Ps = 0;
  decoder_options options;
  backend where = backend::cpu;
};

bsid_params channel_at(const sim_setup& s, double p);

// Bits per message symbol for BER: log2(q) when q is a power of two, else 0 (SER only).
int bits_per_symbol(int q);

class sim_family final : public sim::family {
 public:
  explicit sim_family(sim_setup setup);
  std::string name() const override { return "sync"; }
  std::string sweep_name() const override { return "p"; }
  std::string backend() const override;
  std::vector<std::pair<std::string, std::string>> parameters() const override;
  std::unique_ptr<sim::chain> make_chain(double point, std::uint64_t seed) const override;

 private:
  sim_setup setup_;
};

namespace detail {
// The CUDA chain (cuda_chain.cu; cuda_chain.nocuda.cpp throws without CUDA).
std::unique_ptr<sim::chain> make_cuda_chain(const sim_setup& setup, const bsid_params& channel,
                                            std::uint64_t seed);
// Outcome of one decoded frame against its message (shared by both chains).
sim::frame_outcome score_frame(const std::uint32_t* decided, const std::uint32_t* message, int N,
                               int q, bool decoded);
// What both chains report: the frame shape, and the plan's state-space facts per point.
sim::frame_shape chain_shape(const tvb_code& code);
std::vector<std::pair<std::string, std::string>> plan_details(const decoder_plan& plan);
// Message of frame f, as both chains draw it.
void draw_message(std::uint64_t seed, std::uint64_t frame, int q, std::uint32_t* message, int N);
}  // namespace detail

}  // namespace gpufec::sync
