// `gpufec channel bsid|awgn|bsc`. Frames in are files of bits (text, packed with --frame-bits, or
// framed: docs/formats.md); frame f (counted from 0 in the file) draws its channel events from
// philox_stream(seed, rng_channel, f), exactly as the simulators do, so a frame sent here and in a
// simulation with the same seed and index meets the same channel.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "bit_options.hpp"
#include "channel_commands.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/channel/bsc.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/sync/bsid_channel.hpp"

namespace gpufec::cli {
namespace {

struct frames_io {
  std::string input, output;
  std::string input_format = "auto", output_format = "text";
  std::uint64_t seed = 0, frame_bits = 0;
};

void add_io(CLI::App& cmd, frames_io& o, bool bits_out) {
  cmd.add_option("--input,-i", o.input, "frames of bits (docs/formats.md); - stdin")->required();
  cmd.add_option("--output,-o", o.output, "where to write the channel's output; - stdout")
      ->required();
  add_bit_input_format(cmd, o.input_format);
  cmd.add_option("--frame-bits", o.frame_bits,
                 "bits per frame: needed for a packed input (it has no frame boundaries); text "
                 "and framed inputs are then checked to hold frames of this length")
      ->check(unsigned_integer() & in_range(1, 1e12));
  if (bits_out) add_bit_output_format(cmd, o.output_format);
  cmd.add_option("--seed", o.seed, "seed of the channel's draws (frame f: stream (seed, f))")
      ->check(unsigned_integer())
      ->capture_default_str();
}

batch<std::uint8_t> read_frames(const frames_io& o) {
  distinct_paths({{"--input", o.input}}, {{"--output", o.output}});
  const auto format = parse_name<bit_format>(o.input_format, "--input-format");
  if (format == bit_format::packed && o.frame_bits == 0)
    throw usage_error(
        "--input-format packed needs --frame-bits: packed bits hold no frame boundaries");
  return read_bit_frames(o.input, format, o.frame_bits);
}

bit_format output_format(const frames_io& o) {
  return parse_name<bit_format>(o.output_format, "--output-format");
}

struct bsid_options {
  frames_io io;
  double pi = 0, pd = 0, ps = 0;
};

action channel_bsid(CLI::App& cmd) {
  auto o = std::make_shared<bsid_options>();
  add_io(cmd, o->io, true);
  cmd.add_option("--pi", o->pi, "insertion probability Pi")->check(in_range(0, 1))->required();
  cmd.add_option("--pd", o->pd, "deletion probability Pd")->check(in_range(0, 1))->required();
  cmd.add_option("--ps", o->ps, "substitution probability Ps")
      ->check(in_range(0, 1))
      ->capture_default_str();
  return [o] {
    const sync::bsid_params ch{o->pi, o->pd, o->ps};
    require_framing(output_format(o->io), "--output-format",
                    "the frames the BSID channel gives (insertions and deletions)");
    from_options([&] {
      try {
        ch.validate();
      } catch (const invalid_argument&) {
        throw invalid_argument(cat("--pi ", o->pi, " and --pd ", o->pd,
                                   ": Pi + Pd must be below 1 (a symbol must get through)"));
      }
    });
    const batch<std::uint8_t> in = read_frames(o->io);
    batch<std::uint8_t> out;
    for (std::size_t f = 0; f < in.frames(); ++f) {
      philox_stream events(o->io.seed, rng_channel, f);
      const std::vector<std::uint8_t> x(in.frame(f).begin(), in.frame(f).end());
      out.push_back(sync::bsid_transmit(ch, x, events));
    }
    write_bit_frames(o->io.output, out.view(), output_format(o->io));
    std::cerr << "gpufec: sent " << in.frames() << " frames through the BSID channel\n";
    return 0;
  };
}

struct bsc_options {
  frames_io io;
  double p = 0;
};

action channel_bsc(CLI::App& cmd) {
  auto o = std::make_shared<bsc_options>();
  add_io(cmd, o->io, true);
  cmd.add_option("--p", o->p, "crossover probability")->check(in_range(0, 1))->required();
  return [o] {
    const channel::bsc ch(o->p);
    const batch<std::uint8_t> in = read_frames(o->io);
    batch<std::uint8_t> out;
    for (std::size_t f = 0; f < in.frames(); ++f)
      ch.transmit(o->io.seed, f, in.frame(f), out.append(in.length(f)));
    write_bit_frames(o->io.output, out.view(), output_format(o->io));
    std::cerr << "gpufec: sent " << in.frames() << " frames through the BSC\n";
    return 0;
  };
}

struct awgn_options {
  frames_io io;
  std::optional<double> ebn0, esn0;
  double rate = 1.0;
  std::string values = "llr", format = "text";
};

action channel_awgn(CLI::App& cmd) {
  auto o = std::make_shared<awgn_options>();
  add_io(cmd, o->io, false);
  auto* ebn0 = cmd.add_option("--ebn0", o->ebn0, "Eb/N0 in dB (with --rate)")->check(snr_db());
  auto* esn0 = cmd.add_option("--esn0", o->esn0, "Es/N0 in dB")->check(snr_db());
  ebn0->excludes(esn0);
  cmd.add_option("--rate", o->rate, "code rate R of the bits sent, for Eb/N0")
      ->check(in_range(1e-6, 1))
      ->capture_default_str();
  cmd.add_option("--values", o->values,
                 "llr (2y/sigma^2, positive means bit 0) or samples (y = 1 - 2b + noise)")
      ->check(CLI::IsMember({"llr", "samples"}))
      ->capture_default_str();
  cmd.add_option("--output-format", o->format,
                 "text (one line per frame) or f32 (raw float32, frames back to back)")
      ->check(CLI::IsMember({"text", "f32"}))
      ->capture_default_str();
  cmd.parse_complete_callback([o] {
    if (!o->ebn0 && !o->esn0) throw CLI::ValidationError("--ebn0", "give --ebn0 or --esn0");
  });
  return [o] {
    const channel::bpsk_awgn ch = o->ebn0 ? channel::bpsk_awgn::from_ebn0(*o->ebn0, o->rate)
                                          : channel::bpsk_awgn::from_esn0(*o->esn0);
    const batch<std::uint8_t> in = read_frames(o->io);
    output_file out(o->io.output);
    std::vector<float> y;
    std::string text;
    for (std::size_t f = 0; f < in.frames(); ++f) {
      y.resize(in.length(f));
      ch.transmit(o->io.seed, f, in.frame(f), y);
      if (o->values == "llr") ch.llr(y, y);
      if (o->format == "f32") {
        out.write(std::string_view(reinterpret_cast<const char*>(y.data()), y.size() * 4));
        continue;
      }
      text.clear();
      char buf[32];
      for (std::size_t j = 0; j < y.size(); ++j) {
        std::snprintf(buf, sizeof buf, "%s%.9g", j ? " " : "", y[j]);
        text += buf;
      }
      out.write(text + "\n");
    }
    out.commit();
    std::cerr << "gpufec: sent " << in.frames() << " frames through BPSK/AWGN, sigma " << ch.sigma()
              << "\n";
    return 0;
  };
}

}  // namespace

void add_channel_commands(CLI::App& channel, std::vector<std::pair<CLI::App*, action>>& actions) {
  const std::string footer = R"(
Examples:
  gpufec channel bsid --pi 0.01 --pd 0.01 --ps 0.001 -i frames.txt -o received.txt --seed 7
  gpufec channel awgn --ebn0 3 --rate 0.5 -i codewords.txt -o llr.txt
  gpufec channel bsc --p 0.05 -i frames.txt -o - --seed 2
Frame f of the file meets the channel draws of Philox stream (seed, f), as in the simulators.
)";
  auto add = [&](const char* name, const char* summary, action (*build)(CLI::App&)) {
    CLI::App* cmd = channel.add_subcommand(name, summary);
    cmd->footer(footer);
    actions.emplace_back(cmd, build(*cmd));
  };
  add("bsid", "binary substitution-insertion-deletion channel", &channel_bsid);
  add("awgn", "BPSK over AWGN: received samples or LLRs", &channel_awgn);
  add("bsc", "binary symmetric channel", &channel_bsc);
}

}  // namespace gpufec::cli
