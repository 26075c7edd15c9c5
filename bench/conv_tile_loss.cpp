// What tiling costs (the paper's Tables II and III): the BER of the tiled decoder (the
// GPU algorithm, tiling.hpp) against full maximum-likelihood decoding of the same int8 frames, as
// a BER ratio and as an Eb/N0 loss in dB, over tile shapes (f, v1, v2, f0). Both decoders see the
// same quantized LLRs, so the difference is tiling alone; the comparison is paired (frame by
// frame), which makes small losses measurable with few errors.
//
// The loss in dB converts the BER ratio through the local slope of the ML curve, measured in the
// same run at Eb/N0 and Eb/N0 - 0.5 dB: loss = log10(BER_tiled / BER_ML) / slope (decades per dB).
// The interval is the ratio's 95% interval from the per-frame paired differences (errors come in
// bursts, so frames, not bits, are the independent units).
//
// --K 9 measures K = 9 (561,753) at rate 1/2 instead, over the shapes around today's default for
// K >= 8 and the planned four-lane register kernel's (whole cycles of 6 stages: docs/conv.md).
//
//   conv_tile_loss [--quick] [--K 7|9] [--defaults-only yes] [--json FILE]
// --defaults-only yes: only the default shapes (add_default_shapes), for a quick check.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/philox.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/reference.hpp"
#include "gpufec/conv/tiling.hpp"
#include "program.hpp"

namespace {

using namespace gpufec;
using namespace gpufec::conv;

struct point_setup {
  conv_code code;
  std::string rate;  // puncture_pattern::standard's name, beta = the code's
  double ebn0 = 0;   // where the losses are measured
  std::size_t frames = 0;
};

// One noisy frame as the decoders see it: int8 LLRs by the fast decoder's per-frame rule.
std::vector<std::int8_t> noisy_frame(const encoder& enc, double sigma, std::uint64_t seed,
                                     std::uint64_t f, std::vector<std::uint8_t>& info) {
  philox_stream source(seed, rng_source, f);
  for (auto& b : info) b = static_cast<std::uint8_t>(source.next_bit());
  std::vector<std::uint8_t> coded(enc.shape().coded_bits);
  enc.encode(info, coded);
  std::vector<float> llr(coded.size());
  for (std::size_t i = 0; i < coded.size(); ++i)
    llr[i] = static_cast<float>(
        channel::llr_from_sample(channel::awgn_received(seed, f, i, coded[i], sigma), sigma));
  std::vector<std::int8_t> q(llr.size());
  quantize_llrs(llr, auto_llr_scale(llr), q);
  return q;
}

// Per-frame bit errors of ML decoding and of each tile shape at one Eb/N0.
struct errors {
  std::vector<double> ml;                  // [frame]
  std::vector<std::vector<double>> tiled;  // [shape][frame]
};

errors count_errors(const conv_code& code, const puncture_pattern& pattern, std::size_t N,
                    double ebn0, std::size_t frames, const std::vector<tile_shape>& shapes) {
  const encoder enc(code, pattern, N, termination::zero_tail);
  const double sigma = channel::sigma_from_ebn0(
      ebn0, static_cast<double>(N) / static_cast<double>(enc.shape().coded_bits));
  errors e;
  e.ml.assign(frames, 0);
  e.tiled.assign(shapes.size(), std::vector<double>(frames, 0));
#pragma omp parallel
  {
    reference_decoder ml(code, pattern, N, termination::zero_tail);
    std::vector<tiled_decoder> tiled;
    for (const auto& s : shapes) tiled.emplace_back(code, pattern, N, termination::zero_tail, s);
    std::vector<std::uint8_t> info(N), bits(N);
#pragma omp for schedule(dynamic)
    for (std::ptrdiff_t fi = 0; fi < static_cast<std::ptrdiff_t>(frames); ++fi) {
      const auto f = static_cast<std::size_t>(fi);
      const auto q = noisy_frame(enc, sigma, 2311, f, info);
      const auto count = [&] {
        double n = 0;
        for (std::size_t i = 0; i < N; ++i) n += bits[i] != info[i];
        return n;
      };
      ml.decode(std::span<const std::int8_t>(q), bits);
      e.ml[f] = count();
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        tiled[s].decode(q, bits);
        e.tiled[s][f] = count();
      }
    }
  }
  return e;
}

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

// K = 7: Table II: f x v2 (v1 = v2); Table III: v2 x f0 (f = 256, v1 = D); a v1 sweep; defaults.
std::vector<tile_shape> k7_shapes(const puncture_pattern& pattern, std::size_t D,
                                  std::vector<std::string>& table) {
  std::vector<tile_shape> shapes;
  for (std::size_t v : {10, 20, 30, 40, 50})
    for (std::size_t f : {32, 64, 128, 256, 512}) {
      const std::size_t v2 = pattern.punctures() ? 2 * v : v;
      shapes.push_back({f, v2, v2, 0});
      table.push_back("f x v2");
    }
  for (std::size_t v : {25, 35, 45})
    for (std::size_t f0 : {8, 16, 32, 64}) {
      const std::size_t v2 = pattern.punctures() ? 2 * v : v;
      shapes.push_back({256, D, v2, f0});
      table.push_back("v2 x f0");
    }
  for (std::size_t v1 : {std::size_t{0}, D / 4, D / 2, D}) {
    shapes.push_back({256, v1, D, 0});
    table.push_back("v1");
  }
  return shapes;
}

// The shape a plan takes by default (the CUDA register kernel's), the same with the shortest
// subframe a CUDA plan fits to its device (f0 = 36; the fit only lengthens f, which only removes
// tile edges, so this row bounds the loss of every fitted shape), and the fastest of
// conv_cuda_bench's old tile sweep (f = 264, f0 = 30) with the same overlaps.
void add_default_shapes(const conv_code& code, const puncture_pattern& pattern,
                        std::vector<tile_shape>& shapes, std::vector<std::string>& table) {
  const tile_shape standard = default_tile_shape(code, pattern);
  for (const tile_shape& t : {standard, tile_shape{standard.f, standard.v1, standard.v2, 36},
                              tile_shape{264, standard.v1, standard.v2, 30}}) {
    shapes.push_back(t);
    table.push_back("default");
  }
}

// K = 9 rate 1/2: the default tile for K >= 8 and shapes of whole 6-stage cycles around the planned
// four-lane register kernel's default (f = 16 f0, v = D rounded up to whole cycles).
std::vector<tile_shape> k9_shapes(std::size_t D, std::vector<std::string>& table) {
  std::vector<tile_shape> shapes;
  const std::size_t v = (D + 5) / 6 * 6;
  shapes.push_back({256, D, D, 0});
  table.push_back("K>=8 default");
  for (const std::size_t f0 : {30, 66}) {
    shapes.push_back({16 * f0, v, v, f0});
    table.push_back("lanes");
  }
  for (const std::size_t v2 : {v - 12, v - 6, v + 6, v + 12}) {
    shapes.push_back({1056, v, v2, 66});
    table.push_back("lanes, v2");
  }
  return shapes;
}

}  // namespace

int main(int argc, char** argv) {
  int K = 7;
  bool defaults_only = false;
  const auto own = [&](std::string_view flag, std::string_view value) {
    if (flag == "--defaults-only") {
      if (value != "yes" && value != "no")
        throw gpufec::bench::bad_option("--defaults-only: yes or no");
      defaults_only = value == "yes";
      return true;
    }
    if (flag != "--K") return false;
    if (value != "7" && value != "9") throw gpufec::bench::bad_option("--K: 7 or 9");
    K = value == "9" ? 9 : 7;
    return true;
  };
  return gpufec::bench::run_program(
      argc, argv, "conv_tile_loss", "[--quick] [--K 7|9] [--defaults-only yes] [--json FILE]", own,
      [&](const gpufec::bench::program_options& program) {
        const bool quick = program.quick;
        const std::size_t N = 4096;
        const std::size_t frames = quick ? 150 : 1800;
        // Eb/N0 where ML decoding of int8 LLRs makes a BER of a few 1e-4 (docs/conv.md).
        const conv_code k7(7, {0171, 0133}), k9(9, {0561, 0753}), k9_third(9, {0557, 0663, 0711});
        std::vector<point_setup> points;
        if (K == 9) {
          points.push_back({k9, "1/2", 2.5, frames});
          points.push_back({k9_third, "1/3", 2.25, frames});
        } else {
          points.push_back({k7, "1/2", 3.0, frames});
          points.push_back({k7, "3/4", 4.0, frames});
        }
        nlohmann::json out = {{"frame_bits", N},
                              {"termination", "zero"},
                              {"llr", "int8, per frame: mean |L| -> 31.75"},
                              {"threads", omp_get_max_threads()},
                              {"points", nlohmann::json::array()}};
        for (const auto& point : points) {
          const conv_code& code = point.code;
          const auto pattern = puncture_pattern::standard(point.rate, code.beta());
          const std::size_t D = default_traceback_depth(code, pattern);
          // Table II: f x v2 (v1 = v2); Table III: v2 x f0 (f = 256, v1 = D); a v1 sweep; defaults.
          std::vector<std::string> table;
          std::vector<tile_shape> shapes;
          if (!defaults_only) shapes = K == 9 ? k9_shapes(D, table) : k7_shapes(pattern, D, table);
          add_default_shapes(code, pattern, shapes, table);
          const errors low = count_errors(code, pattern, N, point.ebn0 - 0.5, point.frames, {});
          const errors e = count_errors(code, pattern, N, point.ebn0, point.frames, shapes);
          const double bits = static_cast<double>(N * point.frames);
          const double ber_low = sum(low.ml) / bits, ber_ml = sum(e.ml) / bits;
          const double slope = std::log10(ber_low / ber_ml) / 0.5;  // decades per dB
          std::printf(
              "\n%s rate %s, zero-tail frames of %zu bits, %zu frames; ML BER %.3e "
              "at %g dB, %.3e at %g dB: slope %.2f decades/dB\n",
              code.to_string().c_str(), point.rate.c_str(), N, point.frames, ber_ml, point.ebn0,
              ber_low, point.ebn0 - 0.5, slope);
          std::printf("%12s | %22s | %9s | %10s | %13s | %8s | %8s\n", "table", "tile", "BER",
                      "BER / ML", "95% interval", "loss dB", "overhead");
          nlohmann::json rows = nlohmann::json::array();
          for (std::size_t s = 0; s < shapes.size(); ++s) {
            const auto& t = e.tiled[s];
            const double n = static_cast<double>(point.frames);
            double mean = 0, var = 0;
            for (std::size_t f = 0; f < point.frames; ++f) mean += (t[f] - e.ml[f]) / n;
            for (std::size_t f = 0; f < point.frames; ++f)
              var += (t[f] - e.ml[f] - mean) * (t[f] - e.ml[f] - mean) / (n - 1);
            const double ml_mean = sum(e.ml) / n, se = std::sqrt(var / n);
            const double ratio = 1 + mean / ml_mean;
            const double lo = 1 + (mean - 1.96 * se) / ml_mean,
                         hi = 1 + (mean + 1.96 * se) / ml_mean;
            const double loss = std::log10(ratio) / slope;
            const tile_shape& sh = shapes[s];
            const double overhead = static_cast<double>(sh.stages()) / static_cast<double>(sh.f);
            std::printf("%12s | %22s | %9.3e | %10.3f | %6.3f-%6.3f | %8.4f | %8.2f\n",
                        table[s].c_str(), sh.to_string().c_str(), sum(t) / bits, ratio, lo, hi,
                        loss, overhead);
            std::fflush(stdout);
            rows.push_back({{"table", table[s]},
                            {"f", sh.f},
                            {"v1", sh.v1},
                            {"v2", sh.v2},
                            {"f0", sh.f0},
                            {"ber", sum(t) / bits},
                            {"ber_ratio", ratio},
                            {"ber_ratio_95", {lo, hi}},
                            {"loss_db", loss},
                            {"stages_per_decoded_stage", overhead}});
          }
          out["points"].push_back({{"code", code.to_string()},
                                   {"rate", point.rate},
                                   {"ebn0_db", point.ebn0},
                                   {"frames", point.frames},
                                   {"ml_ber", ber_ml},
                                   {"ml_ber_minus_half_db", ber_low},
                                   {"slope_decades_per_db", slope},
                                   {"traceback_depth", D},
                                   {"shapes", rows}});
        }
        return out;
      });
}
