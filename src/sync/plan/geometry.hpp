// The facts of a decode that do not depend on the received data (drift limits, state-space
// sizes, lattice weights), computed once by the plan and shared by every backend.
#pragma once

#include <cstdint>
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

// The geometry of a code, channel and options (validates the limits and Pr).
geometry make_geometry(const tvb_code& code, const bsid_params& channel, const decoder_options& o);

// Bytes one frame of a batch takes in `where`'s buffers under `storage` (never automatic): the one
// memory formula, for the plans' choices, their budgets and the tests.
std::size_t bytes_per_frame(const geometry& g, storage_mode storage, real_kind lattice_real,
                            backend where);

// Only the sizes of a geometry (no channel weights): what memory estimates need.
geometry sizes_of(const tvb_code& code, const drift_limits& frame, const drift_limits& codeword);

}  // namespace gpufec::sync::detail
