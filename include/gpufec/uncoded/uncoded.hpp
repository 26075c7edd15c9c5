// The uncoded family: BPSK over AWGN with no code, hard decision on the LLR sign. It is the
// simulator's reference (BER = Q(sqrt(2 Eb/N0))) and the smallest example of a family.
//
// Frame f of a chain with seed s: information bit i is bit (i mod 32) of u32_at(philox_stream(s,
// rng_source, f), i / 32); its sample is channel::awgn_received(s, f, i, bit, sigma). The CPU and
// CUDA chains compute exactly this, so they report the same outcomes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpufec/common/backend.hpp"
#include "gpufec/common/hd.hpp"
#include "gpufec/common/random.hpp"
#include "gpufec/sim/family.hpp"

namespace gpufec::uncoded {

struct params {
  std::uint64_t info_bits = 1024;  // K, bits per frame
};
void validate(const params& p);  // throws invalid_argument naming the bad field

GPUFEC_HD_INLINE std::uint8_t source_bit(const philox_stream& source, std::uint64_t i) {
  return static_cast<std::uint8_t>((u32_at(source, i >> 5) >> (i & 31)) & 1u);
}

// Chains for one Eb/N0 point. The CUDA one throws gpufec::error when built without CUDA or when no
// device is usable.
std::unique_ptr<sim::chain> make_cpu_chain(const params& p, double ebn0_db, std::uint64_t seed);
std::unique_ptr<sim::chain> make_cuda_chain(const params& p, double ebn0_db, std::uint64_t seed);

class family final : public sim::family {
 public:
  family(params p, gpufec::backend b);
  std::string name() const override { return "uncoded"; }
  std::string sweep_name() const override { return "Eb/N0"; }
  std::string backend() const override { return to_string(backend_); }
  std::vector<std::pair<std::string, std::string>> parameters() const override;
  std::unique_ptr<sim::chain> make_chain(double ebn0_db, std::uint64_t seed) const override;

 private:
  params params_;
  gpufec::backend backend_;
};

// Hard decisions on LLRs or BPSK samples (1 where negative), the `decode uncoded` operation.
std::vector<std::uint8_t> hard_decisions(std::span<const float> llr);

}  // namespace gpufec::uncoded
