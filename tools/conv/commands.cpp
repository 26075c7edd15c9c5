// `simulate conv` and `encode conv`, and the conv family's entry in the CLI table; `decode conv` is
// in decode_command.cpp, `bench conv` in bench_command.cpp, the code options in code_options.*.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bit_options.hpp"
#include "conv/code_options.hpp"
#include "family_registry.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/sample_file.hpp"
#include "gpufec/conv/encoder.hpp"
#include "gpufec/conv/simulation.hpp"

namespace gpufec::cli {

action conv_decode_command(CLI::App& cmd, const decode_options& common);
action conv_bench_command(CLI::App& cmd, const bench_options& common);

namespace {

const std::vector<std::string> frame_terms = names_of<conv::termination>();

struct conv_simulate_options {
  conv_code_options code;
  conv_decoder_cli_options decoder;
  std::string ebn0, llr = "float";
  std::uint64_t frame_bits = 1000;
};

action simulate_conv(CLI::App& cmd, const simulate_options& common) {
  auto o = std::make_shared<conv_simulate_options>();
  cmd.add_option("--ebn0", o->ebn0,
                 "Eb/N0 points in dB (Eb per information bit): first:last:step ranges and/or a "
                 "comma list")
      ->required()
      ->check(sweep_validator());
  add_code_options(cmd, o->code, frame_terms);
  cmd.add_option("--frame-bits", o->frame_bits, "information bits per frame")
      ->check(unsigned_integer() & in_range(1, 1 << 26))
      ->capture_default_str();
  cmd.add_option("--llr", o->llr,
                 "decoder input: float (2y/sigma^2), int8 (quantized at 127 / LLR(1 + 3 sigma)) "
                 "or hard (the sign); on CUDA, every kind is made on the GPU and quantized there "
                 "to the decoder's int8 metrics where it is not int8 already")
      ->check(CLI::IsMember(names_of<llr_kind>()))
      ->capture_default_str();
  add_decoder_options(cmd, o->decoder);
  return [o, &common] {
    const backend where = conv_backend(common.backend, o->decoder);
    const conv::sim_family fam = from_options([&] {
      const conv::conv_code code = o->code.code();
      conv::sim_setup s(code, o->code.pattern(code));
      s.frame_bits = o->frame_bits;
      s.term = parse_name<conv::termination>(o->code.term, "--term");
      s.llr = parse_name<llr_kind>(o->llr, "--llr");
      s.options = o->decoder.options(s.term, where);
      s.where = where;
      return conv::sim_family(std::move(s));
    });
    return run_simulation(fam, "--ebn0", o->ebn0, common);
  };
}

// Information bits to encode, as conv reads every input: a stream of values that runs on across
// lines (text), cut into frames of `frame_bits`, or one frame of every bit without it. A framed
// file gives its own frames (each of frame_bits when given, all of one length); a packed one
// needs frame_bits (it holds no frame boundaries; the last byte's padding is dropped).
batch<std::uint8_t> read_information_bits(const std::string& path, bit_format format,
                                          std::size_t frame_bits) {
  const std::string name = path == "-" ? "standard input" : path;
  const std::string bytes = read_input(path);
  if (format == bit_format::automatic)
    format = bytes.starts_with(framed_magic) ? bit_format::framed : bit_format::text;
  if (format == bit_format::packed && !frame_bits)
    throw usage_error(
        "--input-format packed needs --frame-bits: packed bits hold no frame boundaries");
  if (format != bit_format::text) {
    batch<std::uint8_t> frames = parse_bit_frames(bytes, name, format, frame_bits);
    for (std::size_t f = 1; f < frames.frames(); ++f)
      require<format_error>(frames.length(f) == frames.length(0), name, ": frame ", f, " holds ",
                            frames.length(f), " bits, frame 0 ", frames.length(0),
                            " (every frame is encoded alike)");
    return frames;
  }
  const batch<std::uint8_t> lines = parse_bit_frames(bytes, name, bit_format::text);
  const std::vector<std::uint8_t>& bits = lines.data();
  const std::size_t N = frame_bits ? frame_bits : bits.size();
  require<format_error>(bits.size() % N == 0, name, ": ", bits.size(),
                        " bits is not a whole number of frames of --frame-bits ", N, " (",
                        bits.size() / N, " frames and ", bits.size() % N, " bits)");
  batch<std::uint8_t> frames(bits.size() / N, N);
  std::copy(bits.begin(), bits.end(), frames.data().begin());
  return frames;
}

struct conv_encode_options {
  conv_code_options code;
  std::string input, output, input_format = "auto", output_format = "text";
  std::uint64_t frame_bits = 0;
};

action encode_conv(CLI::App& cmd, const encode_options& common) {
  auto o = std::make_shared<conv_encode_options>();
  cmd.add_option("--input,-i", o->input,
                 "information bits (docs/formats.md): text runs on across lines, cut into frames "
                 "of --frame-bits (one frame without it); framed files give their frames; packed "
                 "needs --frame-bits; - reads stdin")
      ->required();
  cmd.add_option("--output,-o", o->output,
                 "coded bits, a frame per encoded frame, as gpufec channel reads them; - writes "
                 "stdout")
      ->required();
  add_bit_input_format(cmd, o->input_format);
  add_bit_output_format(cmd, o->output_format);
  add_code_options(cmd, o->code, frame_terms);
  cmd.add_option("--frame-bits", o->frame_bits,
                 "information bits per frame (0: the whole input is one frame)")
      ->check(unsigned_integer() & in_range(0, 1 << 30))
      ->capture_default_str();
  return [o, &common] {
    distinct_paths({{"--input", o->input}}, {{"--output", o->output}});
    use_threads(common.threads);
    const conv::conv_code code = o->code.code();
    const conv::puncture_pattern pattern = o->code.pattern(code);
    const auto term = parse_name<conv::termination>(o->code.term, "--term");
    if (o->frame_bits)  // a frame length the code cannot take is a bad command line
      (void)from_options([&] { return conv::encoder(code, pattern, o->frame_bits, term); });
    const batch<std::uint8_t> frames_in = read_information_bits(
        o->input, parse_name<bit_format>(o->input_format, "--input-format"), o->frame_bits);
    const std::size_t N = frames_in.length(0);
    if (!o->frame_bits)  // the length the file gives must suit the code as --frame-bits would
      (void)from_options([&] { return conv::encoder(code, pattern, N, term); });

    const conv::encoder enc(code, pattern, N, term);
    const std::vector<std::uint8_t>& bits = frames_in.data();
    const std::size_t frames = bits.size() / N, n = enc.shape().coded_bits;
    batch<std::uint8_t> coded;
    for (std::size_t f = 0; f < frames; ++f) coded.append(n);
    enc.encode(batch_view<std::uint8_t>::uniform(bits.data(), frames, N),
               batch_span<std::uint8_t>::uniform(coded.data().data(), frames, n));
    write_bit_frames(o->output, coded.view(),
                     parse_name<bit_format>(o->output_format, "--output-format"));
    std::cerr << "gpufec: encoded " << frames << " frames of " << N << " bits into " << n
              << " coded bits each (" << code.to_string() << ", pattern " << pattern.to_string()
              << ", " << name_of(term) << ")\n";
    return 0;
  };
}

constexpr const char* conv_examples = R"(
Examples:
  gpufec simulate conv --K 7 --polys 171,133 --ebn0 0:6:0.5 --frame-bits 1000
  gpufec simulate conv --rate 3/4 --term tailbiting --llr int8 --ebn0 3:6:1 --json ber.json
  gpufec simulate conv --K 4 --polys 13,15 --rsc --ebn0 1,2,3 --decoder reference
  gpufec simulate conv --backend cuda --llr int8 --ebn0 2:5:0.5 --frame-bits 8192 --json gpu.json
  gpufec simulate conv --backend cpu --decoder tiled --llr int8 --ebn0 2:5:0.5 --frame-bits 8192
  gpufec encode conv --frame-bits 100 --rate 3/4 -i bits.txt -o coded.txt
  gpufec channel awgn --ebn0 5 --rate 0.7 -i coded.txt -o llr.txt --seed 1
  gpufec decode conv --frame-bits 100 --rate 3/4 -i llr.txt -o decided.txt
  gpufec decode conv --frame-bits 8192 --backend cuda --input-format i8 -i llr.i8 -o bits.bin
  gpufec decode conv --term stream --input-format f32 -i capture.f32 -o bits.bin --output-format packed
  gpufec decode conv --frame-bits 1000 --input-kind hard -i received.txt -o bits.txt
  gpufec bench conv --K 7 --rates 1/2 --json bench.json
  gpufec bench conv --backend cuda --K 7 --rates 1/2 3/4 --json bench.json
LLRs: positive means bit 0 (L = 2y/sigma^2); --llr-sign positive-is-1 takes the other convention.
--backend cuda runs the CUDA tiled decoder (the same decisions as --backend cpu --decoder tiled
with the same --tile; without --tile, codes the register kernel is not compiled for run the
shared kernel on 256,D,D,0, frames and streams alike, and simulate and bench fit the register
kernel's default to the device and the batch: the tile is printed, and --tile default runs the
default as it is); auto picks it when a GPU exists and --decoder is auto or tiled.
)";

}  // namespace

const register_family conv_entry{
    {.name = "conv",
     .summary = "convolutional codes (K 3..9, punctured, RSC), Viterbi decoders",
     .examples = conv_examples,
     .simulate = &simulate_conv,
     .decode = &conv_decode_command,
     .encode = &encode_conv,
     .bench = &conv_bench_command}};

}  // namespace gpufec::cli
