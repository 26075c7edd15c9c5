// `simulate sync`, `decode sync`, `encode sync`, `bench sync`: TVB codes over the BSID channel,
// MAP decoder. The code, decoder and channel options are in code_options.*, the bench in
// bench_command.cpp.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bit_options.hpp"
#include "family_registry.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/sync/decoder_output_files.hpp"
#include "gpufec/sync/simulation.hpp"
#include "sync/code_options.hpp"

namespace gpufec::cli {

action sync_bench_command(CLI::App& cmd, const bench_options& common);

namespace {

struct sync_simulate_options {
  sync_code_options code;
  sync_channel_options channel;
  std::string p;
};

action simulate_sync(CLI::App& cmd, const simulate_options& common) {
  auto o = std::make_shared<sync_simulate_options>();
  cmd.add_option("--p", o->p,
                 "swept channel probability: Pi = Pd = p unless --pi/--pd fix them "
                 "(ranges first:last:step and/or comma lists)")
      ->required()
      ->check(sweep_validator());
  add_code_options(cmd, o->code);
  add_channel_options(cmd, o->channel, true);
  return [o, &common] {
    check_channel(o->channel);
    sync::code_source source;
    sync::sim_setup s(o->code.code(&source));
    s.source = source;
    s.Pi = o->channel.pi;
    s.Pd = o->channel.pd;
    s.Ps = o->channel.ps;
    s.options = o->code.decoder();
    s.where = common.resolved_backend();
    const sync::sim_family fam(std::move(s));
    return run_simulation(fam, "--p", o->p, common);
  };
}

struct sync_decode_options {
  sync_code_options code;
  sync_channel_options channel;
  std::string input, input_format = "auto";
  std::string app, app_format = "text", decisions, drift;
  std::size_t batch = 256;
  CLI::Option* app_format_option = nullptr;
};

action decode_sync(CLI::App& cmd, const decode_options& common) {
  auto o = std::make_shared<sync_decode_options>();
  cmd.add_option("--input,-i", o->input, "received frames (docs/formats.md); - reads stdin")
      ->required();
  add_bit_input_format(cmd, o->input_format);
  add_code_options(cmd, o->code);
  add_channel_options(cmd, o->channel, false);
  cmd.add_option("--app", o->app, "write the APPs L_i(D) here");
  o->app_format_option =
      cmd.add_option("--app-format", o->app_format,
                     "text (%.17g, one symbol per line), csv or f64 (raw doubles)")
          ->check(CLI::IsMember(names_of<sync::app_format>()))
          ->capture_default_str();
  cmd.add_option("--decisions", o->decisions, "write hard decisions here (one frame per line)");
  cmd.add_option("--drift", o->drift,
                 "write the drift posterior at codeword boundaries here (csv)");
  cmd.add_option("--batch", o->batch, "frames per decode call")
      ->check(in_range(1, 1 << 20))
      ->capture_default_str();
  return [o, &common] {
    if (o->app.empty() && o->decisions.empty() && o->drift.empty())
      throw usage_error("decode sync writes nothing: give --decisions, --app or --drift");
    if (o->app.empty() && o->app_format_option->count())
      throw usage_error("--app-format applies to --app, which is not given");
    const auto input_format = parse_name<bit_format>(o->input_format, "--input-format");
    require_framing(input_format, "--input-format",
                    "received frames (insertions and deletions change their lengths)");
    distinct_paths({{"--input", o->input}, {"--codebook", o->code.codebook}},
                   {{"--app", o->app}, {"--decisions", o->decisions}, {"--drift", o->drift}});
    check_channel(o->channel);
    use_threads(common.threads);
    const sync::tvb_code code = o->code.code();
    const sync::bsid_params ch{*o->channel.pi, *o->channel.pd, o->channel.ps, code.alphabet()};
    sync::decoder_options options = o->code.decoder();
    options.drift_posterior = !o->drift.empty();
    // The outputs exist before any work: a bad path fails at once.
    sync::decoder_output_files files(o->app, sync::parse_app_format(o->app_format), o->decisions,
                                     o->drift);
    const auto received = read_bit_frames(o->input, input_format);
    sync::decoder_plan plan(code, ch, options, common.resolved_backend(),
                            std::min(o->batch, received.frames()));
    common.log() << plan.describe();
    std::size_t undecodable = 0;
    sync::decode_output out;
    for (std::size_t first = 0; first < received.frames(); first += o->batch) {
      batch<std::uint8_t> part;
      const std::size_t end = std::min(received.frames(), first + o->batch);
      for (std::size_t f = first; f < end; ++f) part.push_back(received.frame(f));
      plan.decode(part.view(), out);
      files.write(out, first);
      for (std::size_t f = 0; f < out.frames; ++f)
        if (!out.decoded[f]) {
          ++undecodable;
          std::cerr << "gpufec: frame " << first + f << " undecodable: " << out.messages[f] << "\n";
        }
    }
    files.commit();
    common.log() << "gpufec: decoded " << received.frames() - undecodable << " of "
                 << received.frames() << " frames from '" << o->input << "'\n";
    return undecodable ? 1 : 0;
  };
}

// Messages: one frame per line of N symbols in [0, q), decimal, separated by spaces or commas,
// '#' starts a comment; blank lines are skipped.
std::vector<std::vector<std::uint32_t>> read_messages(const std::string& path, int q, int N) {
  const std::string bytes = read_input(path);
  std::istringstream lines{std::string(as_text(bytes, path))};
  std::vector<std::vector<std::uint32_t>> messages;
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    line = line.substr(0, line.find('#'));
    for (char& c : line)
      if (c == ',') c = ' ';
    std::istringstream words(line);
    std::vector<std::uint32_t> message;
    for (std::string w; words >> w;) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(w.c_str(), &end, 10);
      require<format_error>(*end == '\0' && w[0] != '-' && v < static_cast<unsigned long>(q), path,
                            ":", number, ": '", w, "' is not a message symbol in [0, ", q, ")");
      message.push_back(static_cast<std::uint32_t>(v));
    }
    if (message.empty()) continue;
    require<format_error>(message.size() == static_cast<std::size_t>(N), path, ":", number, ": ",
                          message.size(), " symbols, but the code has N = ", N);
    messages.push_back(std::move(message));
  }
  require<format_error>(!messages.empty(), path, ": no messages (empty file or only comments)");
  return messages;
}

struct sync_encode_options {
  sync_code_options code;
  std::string input, output, output_format = "text", write_code;
};

action encode_sync(CLI::App& cmd, const encode_options& common) {
  auto o = std::make_shared<sync_encode_options>();
  cmd.add_option("--input,-i", o->input,
                 "messages: one frame per line of N symbols in [0, q); - reads stdin")
      ->required();
  cmd.add_option("--output,-o", o->output, "codewords: frames of 0/1 (docs/formats.md); - stdout")
      ->required();
  add_bit_output_format(cmd, o->output_format);
  cmd.add_option("--write-code", o->write_code,
                 "also write the code (codebooks and marker) to this file, for decode --codebook");
  add_code_options(cmd, o->code);
  return [o, &common] {
    distinct_paths({{"--input", o->input}, {"--codebook", o->code.codebook}},
                   {{"--output", o->output}, {"--write-code", o->write_code}});
    use_threads(common.threads);
    const sync::tvb_code code = o->code.code();
    const auto messages = read_messages(o->input, code.q(), code.N());
    batch<std::uint8_t> frames;
    for (const auto& m : messages)
      code.encode(m, frames.append(static_cast<std::size_t>(code.tau())));
    if (!o->write_code.empty()) {
      // One codebook per position as the code uses them, or the code's own (cycled) codebooks.
      sync::write_code_file(o->write_code, code.codebooks(), code.marker(), code.N());
    }
    write_bit_frames(o->output, frames.view(),
                     parse_name<bit_format>(o->output_format, "--output-format"));
    std::cerr << "gpufec: encoded " << messages.size() << " messages into frames of " << code.tau()
              << " symbols\n";
    return 0;
  };
}

constexpr const char* sync_examples = R"(
Examples:
  gpufec simulate sync --q 32 --n 10 --N 210 --p 1e-3,1e-2 --backend cuda
  gpufec simulate sync --q 8 --n 5 --N 100 --p 0.001:0.02:0.001 --json curve.json --max-fe 200
  gpufec encode sync --q 8 --n 5 --N 12 -i messages.txt -o frames.txt --write-code code.txt
  gpufec channel bsid --pi 0.01 --pd 0.01 -i frames.txt -o received.txt --seed 1
  gpufec decode sync --codebook code.txt --pi 0.01 --pd 0.01 -i received.txt --decisions d.txt
  gpufec bench sync --p 1e-3,1e-2 --batches 1,1000 --json bench.json
)";

}  // namespace

const register_family sync_entry{
    {.name = "sync",
     .summary = "TVB codes over the insertion/deletion (BSID) channel, MAP decoder",
     .examples = sync_examples,
     .simulate = &simulate_sync,
     .decode = &decode_sync,
     .encode = &encode_sync,
     .bench = &sync_bench_command}};

}  // namespace gpufec::cli
