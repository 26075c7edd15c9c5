// The uncoded family: BPSK over AWGN with no code, hard decision on the LLR sign. It is the
// simulator's reference (BER = Q(sqrt(2 Eb/N0))) and the identity case of the BPSK/AWGN chain
// (gpufec/sim/awgn_chain.hpp): no encoder, and a hard decision as its decoder, on the CPU or CUDA.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/backend.hpp"
#include "gpufec/sim/awgn_chain.hpp"
#include "gpufec/sim/family.hpp"

namespace gpufec::uncoded {

struct params {
  std::uint64_t info_bits = 1024;  // K, bits per frame
};
void validate(const params& p);  // throws invalid_argument naming the bad field

// The family as the BPSK/AWGN chain takes it: K bits sent as they are, decided by their sign.
sim::binary_code code(const params& p);

// Chains for one Eb/N0 point. The CUDA one throws backend_unavailable when built without CUDA or
// when no device is usable.
std::unique_ptr<sim::chain> make_cpu_chain(const params& p, double ebn0_db, std::uint64_t seed);
std::unique_ptr<sim::chain> make_cuda_chain(const params& p, double ebn0_db, std::uint64_t seed);

class family final : public sim::family {
 public:
  family(params p, gpufec::backend b);
  std::string name() const override { return "uncoded"; }
  std::string sweep_name() const override { return "Eb/N0"; }
  std::string backend() const override { return to_string(backend_); }
  sim::fields parameters() const override;
  void validate_point(double ebn0_db) const override { channel::check_ebn0(ebn0_db); }
  std::unique_ptr<sim::chain> make_chain(double ebn0_db, std::uint64_t seed) const override;

 private:
  params params_;
  gpufec::backend backend_;
};

// Hard decisions on LLRs or BPSK samples (1 where negative), the `decode uncoded` operation.
std::vector<std::uint8_t> hard_decisions(std::span<const float> llr);

}  // namespace gpufec::uncoded
