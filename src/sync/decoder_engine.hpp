// The backend interface behind sync::decoder_plan, and the facts every backend shares.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpufec/sync/decoder.hpp"

namespace gpufec::sync::detail {

// Everything about a decode that does not depend on the received data.
struct geometry {
  int q = 0, n = 0, N = 0, alphabet = 2;
  std::int64_t tau = 0;
  drift_limits frame, codeword;  // [m_tau^-, m_tau^+], [m_n^-, m_n^+]
  int M_tau = 0, M_n = 0;
  lattice_mode lattice = lattice_mode::corridor;
  bool end_known = true;
  // Lattice edge weights (7)-(10): insertion Pi/alphabet, deletion Pd, diagonal Pt(1-Ps) on a
  // match and Pt Ps/(alphabet-1) on a mismatch. Kept in double; each backend rounds them once.
  double ins = 0, del = 0, match = 0, mismatch = 0;
  // beta_N prior over [m_tau^-, m_tau^+] when the frame end is unknown (drift pmf at T = tau).
  std::vector<double> end_prior;
  // The longest received segment any lattice reads: n + m_n^+ symbols.
  int max_mu() const { return n + codeword.hi; }
};

class decoder_engine {
 public:
  virtual ~decoder_engine() = default;
  // `out` is sized and frames already found undecodable have out.decoded[f] == 0: skip them. The
  // engine may mark more (zero probability under the model), with a message.
  virtual void decode(batch_view<std::uint8_t> received, const double* priors,
                      decode_output& out) = 0;
  virtual std::vector<std::string> kernel_shapes() const { return {}; }
  virtual std::size_t allocated_bytes() const = 0;
  virtual void set_phase_timings(bool) {}
  const decode_timings& timings() const { return timings_; }
  void set_timings(const decode_timings& t) { timings_ = t; }

 protected:
  decode_timings timings_;
};

std::unique_ptr<decoder_engine> make_cpu_engine(const tvb_code& code, const geometry& g,
                                                storage_mode storage, real_kind lattice_real);
// Defined in cuda_decoder.cu, or in cuda_decoder.nocuda.cpp (throws: built without CUDA).
std::unique_ptr<decoder_engine> make_cuda_engine(const tvb_code& code, const geometry& g,
                                                 const decoder_options& options,
                                                 std::size_t max_batch, storage_mode& storage);

}  // namespace gpufec::sync::detail
