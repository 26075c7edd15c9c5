// The backend interface behind sync::decoder_plan: an engine executes what the plan chose.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpufec/sync/decoder.hpp"
#include "sync/plan/geometry.hpp"

namespace gpufec::sync::detail {

class decoder_engine {
 public:
  virtual ~decoder_engine() = default;
  // `out` is sized and frames already found undecodable have out.decoded[f] == 0: skip them. The
  // engine may mark more (zero probability under the model), with a message.
  // `stop`, when requested, ends the call early by throwing gpufec::stopped.
  virtual void decode(batch_view<std::uint8_t> received, const double* priors, decode_output& out,
                      const stop_token& stop) = 0;
  // The device path (decoder_plan::decode with a stream); a CPU engine has none.
  virtual void decode_device(batch_view<std::uint8_t> received, const device_outputs& out,
                             cuda_stream stream, const double* priors);
  virtual std::size_t allocated_bytes() const = 0;
  virtual void set_phase_timings(bool) {}
  const decode_timings& timings() const { return timings_; }
  void set_timings(const decode_timings& t) { timings_ = t; }

 protected:
  decode_timings timings_;
};

std::unique_ptr<decoder_engine> make_cpu_engine(const tvb_code& code, const geometry& g,
                                                storage_mode storage, real_kind lattice_real);

}  // namespace gpufec::sync::detail
