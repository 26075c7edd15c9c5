// The polar family for the Monte Carlo simulator: a polar code as the BPSK/AWGN chain takes it
// (gpufec/sim/awgn_chain.hpp: sizes, the encoder, a decoder over polar::decoder_plan), and the
// sim::family that sweeps Eb/N0 (in dB, at the rate K/N) with it.
//
// The decoder counts what it measured: the BP iterations each frame ran (G-matrix early stopping
// stops a frame before the cap), reported per point as `mean_iterations` over `decoded_frames`.
// Those are the frames the decoder ran, which are the counted frames when a point ends on
// --max-frames, and may include frames a batch ran past the stop when it ends on --max-fe (the
// error counts never do; docs/simulator.md). backend::cuda decodes with the CUDA BP plan (SC is
// refused) on the CPU chain's LLRs, so both backends decode the same frames to the same counts
// (fp32, the same rule); backend::automatic is polar::choose_backend's choice (CUDA for BP when a
// device is usable, else the CPU).
//
//   polar::decoder_options o;
//   o.decoder = polar::decoder_kind::bp;
//   o.early_stop = true;
//   const polar::sim_family fam(polar::polar_code(1024, 512), o, backend::cpu);
//   const auto result = sim::run_sweep(fam, std::vector<double>{1.0, 2.0}, sim::options{});
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gpufec/common/backend.hpp"
#include "gpufec/polar/decoder.hpp"
#include "gpufec/polar/polar_code.hpp"
#include "gpufec/sim/awgn_chain.hpp"
#include "gpufec/sim/family.hpp"

namespace gpufec::polar {

// The code as the BPSK/AWGN chain takes it: K information bits, N transmitted, float LLRs, the
// encoder of `code` (systematic or not) and a hard-output decoder planned with `options` on
// `decoder_where` (cpu or cuda; automatic is cpu; a CUDA chain always gets a CUDA plan). Throws
// invalid_argument naming the option when the options do not fit the code (the plan's checks,
// e.g. a soft output or an update rule SC does not have, SC on CUDA).
sim::binary_code binary_code(const polar_code& code, const decoder_options& options,
                             gpufec::backend decoder_where = gpufec::backend::cpu);

// FNV-1a 64 of the frozen mask (N bytes, 1 for a frozen position), a content fingerprint for
// reports: two codes with the same N and frozen set have the same one, whatever file or
// construction gave them. Not a cryptographic hash.
std::uint64_t frozen_set_fingerprint(const polar_code& code);

class sim_family final : public sim::family {
 public:
  // Throws invalid_argument for options the decoder does not take on `where` (as binary_code
  // does), backend_unavailable for backend::cuda without CUDA or a device.
  sim_family(polar_code code, const decoder_options& options, gpufec::backend where);
  std::string name() const override { return "polar"; }
  std::string sweep_name() const override { return "Eb/N0"; }
  std::string backend() const override { return std::string(to_string(where_)); }
  // Eb/N0 in [-200, 200] dB: the LLRs 4 R Eb/N0 (linear) stay finite floats with a wide margin
  // (they overflow near +380 dB, where the decoder would refuse them).
  void validate_point(double ebn0_db) const override;
  // N, K, the construction (method, design SNR, file, fingerprint of the frozen set), systematic,
  // the decoder and its update rule, scale, iterations and early stopping; null where a field
  // does not apply (the iterations of SC).
  sim::fields parameters() const override;
  std::unique_ptr<sim::chain> make_chain(double ebn0_db, std::uint64_t seed) const override;

 private:
  polar_code code_;
  decoder_options options_;
  gpufec::backend where_;
  sim::binary_code binary_;
};

}  // namespace gpufec::polar
