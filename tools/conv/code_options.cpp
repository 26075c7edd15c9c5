// The conv code and decoder options of the command lines, and their conversion to library values.
#include "conv/code_options.hpp"

#include "gpufec/common/error.hpp"

namespace gpufec::cli {

conv::conv_code conv_code_options::code() const {
  conv::conv_code c = from_options([&] {
    try {
      return conv::conv_code::parse(K, polys, recursive());
    } catch (const invalid_argument& e) {
      throw invalid_argument(
          cat("--K ", K, " --polys ", polys, recursive() ? " --rsc" : "", ": ", e.what()));
    }
  });
  if (recursive() && !rsc.empty()) {
    const std::uint32_t feedback = from_options([&] { return conv::parse_octal(rsc, "--rsc"); });
    if (feedback != *c.feedback())
      throw usage_error(cat("--rsc ", rsc, ": the recursive systematic form takes its feedback ",
                            "from the first polynomial (--polys ", polys, " gives feedback ",
                            conv::octal(*c.feedback()), "); put ", rsc,
                            " first in --polys, or give --rsc alone"));
  }
  return c;
}

conv::puncture_pattern conv_code_options::pattern(const conv::conv_code& c) const {
  if (rate.empty()) return conv::puncture_pattern::none(c.beta());
  return from_options([&] {
    try {
      return conv::puncture_pattern::parse(rate, c.beta());
    } catch (const invalid_argument& e) {
      throw invalid_argument(cat("--rate ", rate, ": ", e.what()));
    }
  });
}

void add_code_options(CLI::App& cmd, conv_code_options& o, std::vector<std::string> terms) {
  cmd.add_option("--K", o.K, "constraint length (memory K-1, 2^(K-1) states)")
      ->check(in_range(conv::conv_code::min_K, conv::conv_code::max_K))
      ->capture_default_str();
  cmd.add_option("--polys", o.polys,
                 "generator polynomials in octal, comma separated, one per output stream (2 to 4; "
                 "MSB = current input, as MATLAB poly2trellis and libfec)")
      ->capture_default_str();
  o.rsc_option = cmd.add_option("--rsc", o.rsc,
                                "recursive systematic form (Sionna rsc=True): the first polynomial "
                                "is the feedback and stream 0 the input itself; a value, if "
                                "given, must be that feedback polynomial (octal)")
                     ->expected(0, 1);
  cmd.add_option("--rate", o.rate,
                 "puncturing: a DVB-S rate (2/3, 3/4, 5/6, 7/8; 1/2 = none) or the pattern's rows, "
                 "comma separated (101,110); default none");
  const std::string term_help =
      "termination: zero (K-1 tail bits), trunc (no tail), tailbiting (start state = end "
      "state)" +
      std::string(terms.size() > 3 ? ", or stream (a continuous stream, like vitdec 'cont')" : "");
  cmd.add_option("--term", o.term, term_help)
      ->check(CLI::IsMember(std::move(terms)))
      ->capture_default_str();
}

conv::decoder_options conv_decoder_cli_options::options(conv::termination term,
                                                        backend where) const {
  if (wrap_option->count() && term != conv::termination::tail_biting)
    throw usage_error(
        cat("--wrap-stages applies to --term tailbiting only (--term ", name_of(term), ")"));
  conv::decoder_options d;
  d.decoder = parse_name<conv::decoder_kind>(decoder, "--decoder");
  d.reference_metric = parse_name<conv::metric_type>(metric, "--metric");
  d.llr_scale = llr_scale;
  d.wrap_stages = wrap_stages;
  d.kernel = parse_name<conv::cuda_kernel>(cuda_kernel, "--cuda-kernel");
  if (kernel_option && kernel_option->count() && where != backend::cuda)
    throw usage_error(cat("--cuda-kernel ", cuda_kernel,
                          " applies to the CUDA decoder (this run is on the CPU: --backend cuda, "
                          "or auto with a GPU and --decoder auto or tiled)"));
  if (d.decoder == conv::decoder_kind::tiled && wrap_option->count())
    throw usage_error(
        "--wrap-stages: the tiled decoder wraps its tiles around a tail-biting "
        "frame; set the overlaps with --tile f,v1,v2 instead");
  if (!tile.empty() && d.decoder != conv::decoder_kind::tiled)
    throw usage_error(cat("--tile applies to --decoder tiled (--decoder ", decoder, ")"));
  if (tile == "default") {
    d.fit_tile = false;  // default_tile_shape exactly, not fitted to the device and batch
  } else if (!tile.empty()) {
    d.tile = from_options([&] {
      try {
        return conv::parse_tile_shape(tile);
      } catch (const invalid_argument& e) {
        throw invalid_argument(cat("--", e.what()));
      }
    });
  }
  return d;
}

void add_decoder_options(CLI::App& cmd, conv_decoder_cli_options& o) {
  cmd.add_option("--decoder", o.decoder,
                 "auto (CUDA: tiled; CPU: fast where the CPU has SIMD), reference (exact ML "
                 "Viterbi, CPU), fast (Highway SIMD, int16 metrics, CPU) or tiled (tiles with "
                 "overlaps, see --tile: the CUDA kernel, or its algorithm on the CPU with "
                 "--backend cpu, deciding alike)")
      ->check(CLI::IsMember(names_of<conv::decoder_kind>()))
      ->capture_default_str();
  o.metric_option = cmd.add_option("--metric", o.metric, "the reference decoder's path metrics")
                        ->check(CLI::IsMember(names_of<conv::metric_type>()))
                        ->capture_default_str();
  cmd.add_option("--llr-scale", o.llr_scale,
                 "fast decoder, float LLRs: q = round(L x scale) clamped to +-127; 0 = per frame, "
                 "mean |L| -> 31.75")
      ->check(at_least(0))
      ->capture_default_str();
  o.wrap_option = cmd.add_option("--wrap-stages", o.wrap_stages,
                                 "tail-biting: wrap-around stages on each side (0 = the traceback "
                                 "depth 2.5 K / (1 - R))")
                      ->check(unsigned_integer() & in_range(0, 1 << 20))
                      ->capture_default_str();
  o.kernel_option =
      cmd.add_option("--cuda-kernel", o.cuda_kernel,
                     "CUDA: the tiled decoder's kernel, auto (registers where they apply, else "
                     "shared), registers (a thread per tile, four at K = 9; the common codes; "
                     "tiles in whole cycles of K-1 stages, 6 at K = 9) or shared (a warp per "
                     "tile, every code); the bits are the same")
          ->check(CLI::IsMember(names_of<conv::cuda_kernel>()))
          ->capture_default_str();
  cmd.add_option("--tile", o.tile,
                 "tiled decoder: f,v1,v2[,f0]: f decoded stages per tile, v1 and v2 overlap "
                 "stages on the left and right, f0 stages per parallel-traceback subframe (0 = "
                 "one traceback per tile); default for K <= 7: 16 f0, v, v, f0 with f0 = 64 and "
                 "v = D = 2.5 K / (1 - R) rounded up to multiples of K-1 (1056,36,36,66 for "
                 "K = 7 at rate 1/2), for K = 9: 1056,D,4D/3,66 in whole 6-stage cycles "
                 "(1056,48,60,66 at rate 1/2), for K = 8: 256,D,D,0; on CUDA, codes the shared "
                 "kernel decodes default to 256,D,D,0, and the register kernel's default is fitted "
                 "to the device and the batch (f0 and f; printed) unless --tile default asks for "
                 "the shape above exactly (decode conv always runs it: the same bits on every "
                 "device and --chunk)");
}

backend conv_backend(const std::string& backend_name, const conv_decoder_cli_options& d) {
  const auto where = parse_name<backend>(backend_name, "--backend");
  conv::decoder_options options;
  options.decoder = parse_name<conv::decoder_kind>(d.decoder, "--decoder");
  // The wrap-around's length does not matter here, only that one was asked for.
  if (d.wrap_option && d.wrap_option->count() > 0) options.wrap_stages = 1;
  return from_options([&] {
    try {
      return conv::choose_backend(options, where).where;
    } catch (const backend_unavailable&) {
      throw;
    } catch (const invalid_argument& e) {
      throw invalid_argument(
          cat("--backend ", backend_name, " --decoder ", d.decoder, ": ", e.what()));
    }
  });
}

}  // namespace gpufec::cli
