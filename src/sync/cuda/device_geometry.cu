#include <iterator>

#include "sync/cuda/kernels/device_geometry.cuh"

namespace gpufec::sync::cuda_detail {

device_geometry make_device_geometry(const detail::geometry& g, int rows) {
  device_geometry d{};
  d.q = g.q;
  d.n = g.n;
  d.N = g.N;
  d.tau = g.tau;
  d.m_tau_min = g.frame.lo;
  d.m_tau_max = g.frame.hi;
  d.m_n_min = g.codeword.lo;
  d.m_n_max = g.codeword.hi;
  d.M = g.M_tau;
  d.Mn = g.M_n;
  d.Kg = round_up(g.M_n, 4);
  d.Kp = d.Kg + 2;
  d.gsum_stride = 2 * d.M * d.Kp;
  d.corridor = g.lattice == lattice_mode::corridor;
  d.end_known = g.end_known;
  d.ins = g.ins;
  d.del = g.del;
  d.match = g.match;
  d.mismatch = g.mismatch;
  d.uniform_prior = 1.0 / g.q;
  d.ins_f = static_cast<float>(g.ins);
  d.del_f = static_cast<float>(g.del);
  d.match_f = static_cast<float>(g.match);
  d.mismatch_f = static_cast<float>(g.mismatch);
  for (int k = 0; k < static_cast<int>(std::size(d.row0)); ++k) {
    const int drift = g.codeword.lo + k;
    d.row0[k] = drift < 0 ? 0.0f : drift == 0 ? 1.0f : d.ins_f * d.row0[k - 1];
  }
  d.row_min = d.corridor ? g.codeword.lo : -g.n;
  d.row_len = d.corridor ? g.M_n + 1 : g.n + g.max_mu() + 2;
  d.rows = rows;
  d.index0 = 0;
  return d;
}

}  // namespace gpufec::sync::cuda_detail
