// The conv family for the Monte Carlo simulator: source bits -> convolutional encoder (terminated,
// punctured) -> BPSK over AWGN -> float, int8 or hard LLRs -> Viterbi decoder (decoder_plan) ->
// bit and frame errors. It is a sim::binary_code run by the shared BPSK/AWGN chain
// (gpufec/sim/awgn_chain.hpp), so frame f's bits, noise and LLRs are those every binary family
// draws for (seed, point, f); the sweep value is Eb/N0 in dB, with Eb per information bit (the
// rate counts the tail and the puncturing: R = frame bits / coded bits).
//
// On backend::cuda the decoder is the CUDA tiled decoder (decoder_plan on backend::cuda), which
// decides exactly as the CPU tiled decoder with the same tile: int8 LLRs are made on the GPU by
// the CUDA chain and decoded there through the plan's device path (no byte through the host);
// float LLRs and hard decisions, which the plan takes from host memory only, come from the CPU
// chain and go to the GPU as host batches (float quantized per frame on the host). Either way
// frame f sees the same bits and noise as on the CPU, so a CPU run with --decoder tiled and the
// same tile reports the same counts. backend::automatic is cuda when a CUDA device is usable and
// the decoder can run there (automatic or tiled), else cpu (choose_backend, decoder.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "gpufec/common/backend.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/puncture.hpp"
#include "gpufec/sim/awgn_chain.hpp"
#include "gpufec/sim/family.hpp"

namespace gpufec::conv {

// Everything that changes a simulation's result.
struct sim_setup {
  sim_setup(conv_code c, puncture_pattern p) : code(std::move(c)), pattern(std::move(p)) {}
  conv_code code;
  puncture_pattern pattern;
  std::size_t frame_bits = 1000;  // information bits per frame
  termination term = termination::zero_tail;
  // What the decoder receives: float LLRs 2y/sigma^2, int8 LLRs quantized by channel::llr_to_int8
  // at channel::int8_llr_scale(sigma) (|y| = 1 + 3 sigma maps to 127), or hard decisions.
  llr_kind llr = llr_kind::f32;
  decoder_options options;       // decoder, reference metric, llr_scale, wrap_stages (threads: 0)
  backend where = backend::cpu;  // cpu, cuda or automatic (choose_backend)
};

// Checks the setup as the chain will use it (the code, the pattern's rows, the frame length for
// the termination, a recursive code that cannot tail-bite the frame length, the options, the
// backend) and throws invalid_argument naming the field (backend_unavailable for cuda without a
// usable device).
void validate(const sim_setup& s);

// The setup as the BPSK/AWGN chain takes it. Its decoders are decoder_plans on
// choose_backend(s.options, s.where), whichever chain asks for them.
sim::binary_code binary_code(const sim_setup& s);

class sim_family final : public sim::family {
 public:
  explicit sim_family(sim_setup setup);  // validates (see validate)
  std::string name() const override { return "conv"; }
  std::string sweep_name() const override { return "Eb/N0"; }
  std::string backend() const override { return to_string(where_); }
  // Eb/N0 in dB: any finite value.
  void validate_point(double ebn0_db) const override;
  sim::fields parameters() const override;
  std::unique_ptr<sim::chain> make_chain(double ebn0_db, std::uint64_t seed) const override;

  const sim_setup& setup() const { return setup_; }

 private:
  sim_setup setup_;
  gpufec::backend where_ = gpufec::backend::cpu;  // resolved: cpu or cuda
  plan_summary resolved_;    // what a plan for this setup chooses (decoder, wrap stages, shape)
  sim::binary_code binary_;  // every point's chain (its decoder plans are the chain's own)
};

}  // namespace gpufec::conv
