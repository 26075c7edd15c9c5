// Polar code construction: how reliable each of the N synthetic channels u_0 .. u_(N-1) is, so that
// the N - K least reliable are frozen (to 0) and the K most reliable carry information.
//
// Index convention (natural order, docs/polar.md): x = u F^(x)m with F = [[1,0],[1,1]] and no bit
// reversal, the convention of 3GPP TS 38.212. Successive cancellation splits x into halves first,
// so the most significant bit of a channel's index j says whether its first polarizing step is the
// worse channel W- (bit 0, check node) or the better W+ (bit 1, variable node), the next bit the
// second step, and so on. Every construction here walks the bits of j from the most significant.
//
// Design SNR: Eb/N0 in dB at the code's rate R = K / N over BPSK/AWGN, the same axis as
// `gpufec simulate`, so `ga:2.5` designs for the 2.5 dB point. Es/N0 = R Eb/N0, sigma^2 =
// 1 / (2 Es/N0) and the channel LLR has mean 2 / sigma^2 = 4 Es/N0 (gpufec's BPSK,
// channel/awgn.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpufec::polar {

// TS 38.212 Table 5.3.1.2-1: 1024 sub-channel indices in ascending reliability (Q_0 = 0 worst).
std::span<const std::uint16_t> nr5g_reliability_sequence();

// The standard's Q_0^(N-1): the entries below N, ascending reliability. N a power of two <= 1024.
std::vector<std::uint32_t> nr5g_sequence_for(std::uint32_t N);

// Design Eb/N0 (dB) at rate K/N -> Es/N0 as a ratio. Throws invalid_argument for a design SNR that
// is not finite or lies outside [-100, 100] dB (beyond that every channel is either useless or
// perfect in double precision and the ordering is meaningless).
double design_esn0(double design_ebn0_db, std::uint32_t N, std::uint32_t K);

// ln Z_j of the Bhattacharyya parameter of every channel (larger = less reliable), from the AWGN
// channel's Z = exp(-Es/N0) and the recursion Z(W-) <= 2Z - Z^2, Z(W+) = Z^2 (exact on the BEC,
// an upper bound otherwise). Kept as logarithms: at high SNR Z underflows double long before the
// ordering stops mattering, and at low SNR 2Z - Z^2 = 1 - (1 - Z)^2 is formed without
// cancellation as ln Z + log1p(-expm1(ln Z)).
std::vector<double> bhattacharyya_log_z(std::uint32_t N, double esn0);

// Gaussian approximation (Trifonov / Chung): the LLR of channel j is N(m_j, 2 m_j) with
// m(W+) = 2m and m(W-) = phi^-1(1 - (1 - phi(m))^2), starting from m = 4 Es/N0. Returns m_j
// (larger = more reliable). phi is the piecewise approximation below; 1 - (1 - phi)^2 is formed as
// ln phi + ln(2 - phi), and on the chord as (1 - phi)^2, so nothing cancels at any SNR.
std::vector<double> gaussian_approximation_means(std::uint32_t N, double esn0);

// phi(x) = 1 - E[tanh(L/2)] for L ~ N(x, 2x), from the standard fit (Chung, Richardson, Urbanke
// 2001), made continuous and strictly decreasing:
//   1 - c x                                   for 0 <= x < 0.2 (c = 0.4377: the fit exceeds 1
//                                              near 0; the exact slope at 0 is 1/2),
//   exp(-0.4527 x^0.86 + 0.0218)              for 0.2 <= x <= x*,
//   sqrt(pi / x) exp(-x / 4) (1 - 10 / (7x))  for x > x*,
// x* = 14.394 where the two fitted pieces cross (the textbook split at 10 leaves a 2.5% upward
// jump). Returned as ln phi, so the last piece never underflows (x up to ~1e300).
double gaussian_log_phi(double x);
// Its inverse, x >= 0 with ln phi(x) = log_phi (0 for log_phi >= 0): closed forms on the first
// two pieces, Newton's method kept inside the bracket [x*, -4 log_phi] on the last, to 1e-14.
double gaussian_log_phi_inverse(double log_phi);

// The frozen positions for a reliability per channel: the N - K channels with the smallest
// `reliability` (ties: the lower index is frozen first), returned in ascending index order.
std::vector<std::uint32_t> least_reliable(std::span<const double> reliability, std::uint32_t count);

}  // namespace gpufec::polar
