// `simulate polar`, `decode polar`, `encode polar`, `info polar` (and `bench polar`,
// bench_command.cpp): polar codes over BPSK/AWGN with the SC and BP decoders on the CPU, and BP on
// CUDA. The code and decoder options are in code_options.*; docs/polar.md ("Command line")
// describes them all.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bit_options.hpp"
#include "family_registry.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/sample_file.hpp"
#include "gpufec/polar/encoder.hpp"
#include "gpufec/polar/simulation.hpp"
#include "polar/code_options.hpp"

namespace gpufec::cli {

action polar_bench_command(CLI::App& cmd, const bench_options& common);

namespace {

// cuda: the CUDA BP plan (SC or a build without CUDA is refused by the plan, exit 1, rather than
// quietly run elsewhere); cpu: the CPU; auto: CUDA when a device is usable and the decoder runs
// there (BP), else the CPU (polar::choose_backend).
gpufec::backend decoder_backend(const std::string& backend_name,
                                const polar::decoder_options& options) {
  return polar::choose_backend(options, parse_name<gpufec::backend>(backend_name, "--backend"))
      .where;
}

// A frozen-set file given as --construct is an input no output may overwrite.
std::string construct_file(const polar_code_options& o) {
  const auto spec = polar::construction_spec::parse(o.construct);
  return spec.method == polar::construction::file ? spec.path : std::string();
}

// The decoder options checked against the code before any file is read, without making a plan:
// what the description cannot be (an update rule SC does not have, a soft output SC cannot give,
// what the CUDA kernels cannot run) is a bad command line (exit 2); SC on --backend cuda and a
// missing device are run-time refusals (exit 1).
void check_decoder(const polar::polar_code& code, const polar::decoder_options& o,
                   gpufec::backend where) {
  const bool cuda_options =
      o.precision != polar::message_precision::fp32 || o.kernel != polar::cuda_kernel::automatic;
  if (where != gpufec::backend::cuda && cuda_options)
    throw usage_error("--precision and --cuda-kernel apply to --backend cuda");
  if (where == gpufec::backend::cuda && o.decoder != polar::decoder_kind::bp) {
    polar::decoder_plan::check(code, o, where);  // throws invalid_argument: exit 1
    return;
  }
  try {
    polar::decoder_plan::check(code, o, where);
  } catch (const backend_unavailable&) {
    throw;  // no device: the command line is valid (exit 1)
  } catch (const invalid_argument& e) {
    throw usage_error(cat("--decoder ", name_of(o.decoder),
                          where == gpufec::backend::cuda ? " on --backend cuda: " : ": ",
                          e.what()));
  }
}

struct polar_simulate_options {
  polar_code_options code;
  polar_decoder_options decoder;
  std::string ebn0;
};

action simulate_polar(CLI::App& cmd, const simulate_options& common) {
  auto o = std::make_shared<polar_simulate_options>();
  cmd.add_option("--ebn0", o->ebn0,
                 "Eb/N0 points in dB at the rate K/N: first:last:step ranges and/or a comma list")
      ->required()
      ->check(sweep_validator());
  add_code_options(cmd, o->code);
  add_decoder_options(cmd, o->decoder);
  return [o, &common] {
    const polar::decoder_options options = o->decoder.options();
    const gpufec::backend where = decoder_backend(common.backend, options);
    polar::polar_code code = o->code.code();
    check_decoder(code, options, where);
    const polar::sim_family fam(std::move(code), options, where);
    return run_simulation(fam, "--ebn0", o->ebn0, common);
  };
}

struct polar_decode_options {
  polar_code_options code;
  polar_decoder_options decoder;
  std::string input, output, input_kind = "llr", input_format = "auto", output_kind = "hard",
                             output_format = "text";
  std::optional<double> p;  // hard input: the BSC crossover its LLR magnitude comes from
  std::size_t batch = 1024;
};

// Output formats by kind: hard bits as a file of bits (text, packed or framed: docs/formats.md),
// LLRs as text lines or raw float32.
void check_output_format(const polar_decode_options& o) {
  const bool hard = o.output_kind == "hard";
  if (hard && o.output_format == "f32")
    throw usage_error(
        "--output-format f32 is for LLR outputs (--output-kind info-llr or "
        "codeword-llr); hard bits are text, packed or framed");
  if (!hard && (o.output_format == "packed" || o.output_format == "framed"))
    throw usage_error(cat("--output-format ", o.output_format, " is for hard bits; --output-kind ",
                          o.output_kind, " writes text or f32"));
}

// The channel LLRs of the input, frames of N: LLRs as they are, or hard bits b as (1 - 2b) L with
// L = ln((1 - p) / p), the LLR of a BSC of crossover p (1 when no p is given: the min-sum rules
// decide alike for every L > 0).
std::vector<float> read_channel_llrs(const polar_decode_options& o, const polar::polar_code& code,
                                     const polar::decoder_options& options) {
  const std::size_t N = code.N();
  if (o.input_kind == "llr") {
    std::vector<float> llr =
        read_samples(o.input, parse_name<sample_format>(o.input_format, "--input-format"));
    require<format_error>(llr.size() % N == 0, o.input, ": ", llr.size(),
                          " LLRs are not whole frames of N = ", N, " (", llr.size() / N,
                          " whole frame", llr.size() / N == 1 ? "" : "s", " and ", llr.size() % N,
                          " LLRs left over)");
    return llr;
  }
  const bool scale_free = options.update == polar::update_rule::min_sum ||
                          options.update == polar::update_rule::scaled_min_sum;
  if (!o.p && !scale_free)
    throw usage_error(cat("--input-kind hard with update rule ", name_of(options.update),
                          " needs --p, the crossover probability the hard bits' LLR magnitude "
                          "comes from (the min-sum rules need none)"));
  const float L = o.p ? static_cast<float>(std::log((1.0 - *o.p) / *o.p)) : 1.0f;
  const batch<std::uint8_t> bits =
      read_bit_frames(o.input, parse_name<bit_format>(o.input_format, "--input-format"), N);
  std::vector<float> llr(bits.data().size());
  for (std::size_t i = 0; i < llr.size(); ++i) llr[i] = bits.data()[i] ? -L : L;
  return llr;
}

// One line of %.9g values per frame (the float exactly), or raw float32 frames back to back.
std::string llr_bytes(const std::vector<float>& soft, std::size_t per_frame, bool f32) {
  if (f32) return {reinterpret_cast<const char*>(soft.data()), soft.size() * sizeof(float)};
  std::string text;
  char buf[32];
  for (std::size_t i = 0; i < soft.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(soft[i]));
    text += buf;
    text += (i + 1) % per_frame == 0 ? '\n' : ' ';
  }
  return text;
}

action decode_polar(CLI::App& cmd, const decode_options& common) {
  auto o = std::make_shared<polar_decode_options>();
  cmd.add_option("--input,-i", o->input,
                 "channel LLRs (positive means bit 0), or hard bits with --input-kind hard; "
                 "frames of N back to back; - reads stdin")
      ->required();
  add_input_kind_options(cmd, o->input_kind, o->input_format);
  cmd.add_option("--p", o->p,
                 "hard input: the crossover probability of the channel the bits came through; "
                 "their LLRs are +-ln((1-p)/p) (needed by the sp and lr rules)")
      ->check(greater_than(0) & in_range(0, 0.5));
  // (p = 0.5 passes the range but carries nothing: refused with the other combinations below.)
  cmd.add_option("--output,-o", o->output, "where to write the decoder's output; - writes stdout")
      ->required();
  cmd.add_option("--output-kind", o->output_kind,
                 "hard (K information bits per frame), info-llr (K LLRs) or codeword-llr (N "
                 "posterior LLRs of x, BP only)")
      ->check(CLI::IsMember(names_of<polar::output_kind>()))
      ->capture_default_str();
  cmd.add_option("--output-format", o->output_format,
                 cat("hard bits: ", bit_formats_help,
                     "; LLRs: text (one frame per line) or f32 (raw float32)"))
      ->check(CLI::IsMember({"text", "packed", "framed", "f32"}))
      ->capture_default_str();
  cmd.add_option("--batch", o->batch, "frames per decoder call")
      ->check(unsigned_integer() & in_range(1, 1e6))
      ->capture_default_str();
  add_code_options(cmd, o->code);
  add_decoder_options(cmd, o->decoder);
  return [o, &common] {
    check_output_format(*o);
    const bool hard_in = hard_input(o->input_kind, o->input_format);
    if (!hard_in && o->p) throw usage_error("--p applies to hard input (--input-kind hard)");
    if (o->p && *o->p >= 0.5)
      throw usage_error(cat("--p ", *o->p,
                            ": a crossover probability of 0.5 or more leaves the "
                            "hard bits no information (give p in (0, 0.5))"));
    distinct_paths({{"--input", o->input}, {"--construct", construct_file(o->code)}},
                   {{"--output", o->output}});
    use_threads(common.threads);
    const polar::polar_code code = o->code.code();
    polar::decoder_options options = o->decoder.options();
    options.output = parse_name<polar::output_kind>(o->output_kind, "--output-kind");
    const gpufec::backend where = decoder_backend(common.backend, options);
    check_decoder(code, options, where);
    output_file out(o->output);  // before any work: a bad path fails at once

    const std::vector<float> llr = read_channel_llrs(*o, code, options);
    const std::size_t N = code.N(), K = code.K();
    const std::size_t frames = llr.size() / N;
    const std::size_t per_call = std::min(o->batch, frames);
    polar::decoder_plan plan(code, options, where, per_call);
    common.log() << plan.describe();

    const bool hard = options.output == polar::output_kind::hard;
    const std::size_t per_frame = options.output == polar::output_kind::codeword_llrs ? N : K;
    batch<std::uint8_t> bits(hard ? frames : 0, K);
    std::vector<float> soft(hard ? 0 : frames * per_frame);
    std::vector<std::uint32_t> iterations(frames);
    for (std::size_t first = 0; first < frames; first += per_call) {
      const std::size_t n = std::min(per_call, frames - first);
      const auto in = batch_view<float>::uniform(llr.data() + first * N, n, N);
      const std::span<std::uint32_t> used(iterations.data() + first, n);
      if (hard)
        plan.decode(in, batch_span<std::uint8_t>::uniform(bits.data().data() + first * K, n, K),
                    used);
      else
        plan.decode_soft(
            in, batch_span<float>::uniform(soft.data() + first * per_frame, n, per_frame), used);
    }
    out.write(hard ? bit_frames_bytes(bits.view(),
                                      parse_name<bit_format>(o->output_format, "--output-format"))
                   : llr_bytes(soft, per_frame, o->output_format == "f32"));
    out.commit();
    std::ostream& log = common.log();
    log << "gpufec: decoded " << frames << " frames from '" << o->input << "' into '" << o->output
        << "'";
    if (options.decoder == polar::decoder_kind::bp) {
      double sum = 0;
      for (const std::uint32_t it : iterations) sum += it;
      log << ", mean BP iterations " << sum / static_cast<double>(frames);
    }
    log << "\n";
    return 0;
  };
}

struct polar_encode_options {
  polar_code_options code;
  std::string input, output, input_format = "auto", output_format = "text";
};

action encode_polar(CLI::App& cmd, const encode_options& common) {
  auto o = std::make_shared<polar_encode_options>();
  cmd.add_option("--input,-i", o->input,
                 "information bits, frames of K (docs/formats.md); - reads stdin")
      ->required();
  add_bit_input_format(cmd, o->input_format);
  cmd.add_option("--output,-o", o->output, "codewords, frames of N bits; - writes stdout")
      ->required();
  add_bit_output_format(cmd, o->output_format);
  add_code_options(cmd, o->code);
  return [o, &common] {
    distinct_paths({{"--input", o->input}, {"--construct", construct_file(o->code)}},
                   {{"--output", o->output}});
    use_threads(common.threads);
    const polar::polar_code code = o->code.code();
    output_file out(o->output);  // before any work: a bad path fails at once
    const std::size_t K = code.K(), N = code.N();
    const batch<std::uint8_t> info =
        read_bit_frames(o->input, parse_name<bit_format>(o->input_format, "--input-format"), K);
    batch<std::uint8_t> codewords(info.frames(), N);
    polar::encode(code, batch_view<std::uint8_t>::uniform(info.data().data(), info.frames(), K),
                  batch_span<std::uint8_t>::uniform(codewords.data().data(), info.frames(), N));
    out.write(bit_frames_bytes(codewords.view(),
                               parse_name<bit_format>(o->output_format, "--output-format")));
    out.commit();
    std::cerr << "gpufec: encoded " << info.frames() << " frames of K = " << K << " bits into "
              << "codewords of N = " << N << " (" << code.describe() << ")\n";
    return 0;
  };
}

struct polar_info_options {
  polar_code_options code;
  std::string output = "-";
};

action info_polar(CLI::App& cmd, const info_options&) {
  auto o = std::make_shared<polar_info_options>();
  add_code_options(cmd, o->code, false);
  cmd.add_option("--output,-o", o->output,
                 "where to write the frozen set (readable back by --construct FILE); - stdout")
      ->capture_default_str();
  return [o] {
    distinct_paths({{"--construct", construct_file(o->code)}}, {{"--output", o->output}});
    const polar::polar_code code = o->code.code();
    output_file out(o->output);
    std::ostringstream text;
    code.write_frozen_set(text);
    out.write(text.str());
    out.commit();
    if (o->output != "-")
      std::cerr << "gpufec: wrote the " << code.frozen_positions().size() << " frozen indices of "
                << code.describe() << " to '" << o->output << "'\n";
    return 0;
  };
}

constexpr const char* polar_examples = R"(
Examples:
  gpufec simulate polar --N 1024 --K 512 --ebn0 1:3:0.5              SC, 5G construction
  gpufec simulate polar --N 1024 --K 512 --decoder bp --bp-update scaled:0.9375 --iters 35 \
      --early-stop --ebn0 1:4:0.5 --json bp.json                     mean BP iterations per point
  gpufec simulate polar --N 4096 --K 2048 --construct ga:2.5 --systematic --ebn0 2
  gpufec info polar --N 1024 --K 512 --construct 5g -o frozen.txt    the frozen set, to check
  gpufec encode polar --N 8 --K 4 -i bits.txt -o - | gpufec channel awgn --ebn0 3 --rate 0.5 \
      -i - -o - | gpufec decode polar --N 8 --K 4 -i - -o decoded.txt
  gpufec decode polar --N 1024 --K 512 --construct frozen.txt --decoder bp -i llr.f32 \
      --input-format f32 --output-kind info-llr --output-format f32 -o soft.f32
  gpufec bench polar --N 1024 --json bench.json                      SC and BP, Mb/s
)";

}  // namespace

const register_family polar_entry{
    {.name = "polar",
     .summary = "polar codes over BPSK/AWGN: SC (CPU) and BP (CPU and CUDA) decoders, "
                "5G/GA/Bhattacharyya/file frozen sets",
     .examples = polar_examples,
     .simulate = &simulate_polar,
     .decode = &decode_polar,
     .encode = &encode_polar,
     .bench = &polar_bench_command,
     .info = &info_polar}};

}  // namespace gpufec::cli
