// `simulate uncoded`, `decode uncoded`, `bench uncoded`: BPSK over AWGN without a code.
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "bit_options.hpp"
#include "family_registry.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/provenance.hpp"
#include "gpufec/common/sample_file.hpp"
#include "gpufec/uncoded/uncoded.hpp"

namespace gpufec::cli {
namespace {

struct uncoded_simulate_options {
  std::string ebn0;
  std::uint64_t info_bits = 1024;
};

action simulate_uncoded(CLI::App& cmd, const simulate_options& common) {
  auto o = std::make_shared<uncoded_simulate_options>();
  cmd.add_option("--ebn0", o->ebn0,
                 "Eb/N0 points in dB: first:last:step ranges and/or a comma list")
      ->required()
      ->check(sweep_validator());
  cmd.add_option("--K", o->info_bits, "information bits per frame")
      ->check(unsigned_integer() & in_range(1, 4294967296.0))
      ->capture_default_str();
  return [o, &common] {
    const uncoded::family fam({o->info_bits}, common.resolved_backend());
    return run_simulation(fam, "--ebn0", o->ebn0, common);
  };
}

struct uncoded_decode_options {
  std::string input, output;
  std::string input_format = "auto";
  std::string output_format = "text";
  std::uint64_t frame_bits = 0;
  std::size_t per_line = 0;
  CLI::Option* per_line_option = nullptr;
};

action decode_uncoded(CLI::App& cmd, const decode_options& common) {
  auto o = std::make_shared<uncoded_decode_options>();
  cmd.add_option("--input,-i", o->input,
                 "received BPSK samples or LLRs (positive means bit 0): the decision is the same; "
                 "- reads stdin")
      ->required();
  cmd.add_option("--output,-o", o->output,
                 "where to write the hard decisions, a frame per line; - writes stdout")
      ->required();
  cmd.add_option(
         "--input-format", o->input_format,
         "auto or text (numbers separated by spaces, commas or newlines, a frame per line; auto "
         "never guesses binary), f32 (raw float32) or i8 (raw int8)")
      ->check(CLI::IsMember(names_of<sample_format>()))
      ->capture_default_str();
  add_bit_output_format(cmd, o->output_format);
  cmd.add_option("--K", o->frame_bits,
                 "frames of K samples (the input must hold whole frames); default: a text "
                 "input's lines, a raw input's samples as one frame")
      ->check(unsigned_integer() & in_range(1, 4294967296.0));
  o->per_line_option =
      cmd.add_option("--per-line", o->per_line, "text output: bits per line instead of a frame")
          ->check(unsigned_integer() & in_range(1, 1e12));
  return [o, &common] {
    // A hard decision is memory-bound and tiny: copying the samples to a GPU would cost more than
    // deciding them, so it runs on the CPU; --backend cuda asks for what this command does not do.
    if (parse_name<gpufec::backend>(common.backend, "--backend") == gpufec::backend::cuda)
      throw usage_error(
          "decode uncoded runs on the CPU (a hard decision costs less than copying the samples "
          "to a GPU); give --backend cpu or auto");
    if (o->output_format != "text" && o->per_line_option->count())
      throw usage_error("--per-line applies to --output-format text");
    use_threads(common.threads);
    distinct_paths({{"--input", o->input}}, {{"--output", o->output}});
    sample_frames in = read_sample_frames(o->input, parse_sample_format(o->input_format));
    if (o->frame_bits) {
      const std::size_t K = o->frame_bits, total = in.samples.size();
      require<format_error>(total % K == 0, o->input, ": ", total,
                            " samples are not whole frames of K = ", K, " (", total / K,
                            " frames and ", total % K, " samples left over)");
      in.lengths.assign(total / K, K);
    }
    const std::vector<std::uint8_t> bits = uncoded::hard_decisions(in.samples);
    const auto format = parse_name<bit_format>(o->output_format, "--output-format");
    if (o->per_line_option->count()) {
      output_file out(o->output);
      bit_writer writer(out, format, o->per_line);
      writer.write(bits);
      writer.finish();
      out.commit();
    } else {
      std::vector<std::size_t> offsets(in.lengths.size() + 1, 0);
      for (std::size_t f = 0; f < in.lengths.size(); ++f)
        offsets[f + 1] = offsets[f] + in.lengths[f];
      write_bit_frames(
          o->output,
          batch_view<std::uint8_t>::ragged(bits.data(), offsets.data(), in.lengths.size()), format);
    }
    common.log() << "gpufec: decoded " << in.lengths.size() << " frames (" << bits.size()
                 << " samples) from '" << o->input << "' into '" << o->output << "'\n";
    return 0;
  };
}

struct uncoded_bench_options {
  double ebn0 = 4.0;
  std::uint64_t info_bits = 1024;
  std::uint64_t frames = 16384;
};

struct bench_row {
  std::string backend;
  std::uint64_t frames = 0;
  double decoder_seconds = 0, chain_seconds = 0;
  double decoder_mbps = 0, chain_mbps = 0;
  std::uint64_t bit_errors = 0;
};

bench_row bench_backend(const uncoded_bench_options& o, gpufec::backend b, std::uint64_t seed) {
  const uncoded::params p{o.info_bits};
  const std::unique_ptr<sim::chain> ch = b == gpufec::backend::cuda
                                             ? uncoded::make_cuda_chain(p, o.ebn0, seed)
                                             : uncoded::make_cpu_chain(p, o.ebn0, seed);
  const std::size_t batch = ch->preferred_batch();
  std::vector<sim::frame_outcome> outcomes(std::min<std::uint64_t>(batch, o.frames));
  (void)ch->run(0, outcomes);  // warm-up: allocations, first launches, thread pool
  bench_row row;
  row.backend = to_string(b);
  for (std::uint64_t done = 0; done < o.frames;) {
    outcomes.assign(std::min<std::uint64_t>(batch, o.frames - done), sim::frame_outcome{});
    const auto t0 = std::chrono::steady_clock::now();
    row.decoder_seconds += ch->run(done, outcomes);
    row.chain_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& out : outcomes) row.bit_errors += out.bit_errors;
    done += outcomes.size();
  }
  row.frames = o.frames;
  const double bits = static_cast<double>(o.frames * o.info_bits);
  row.decoder_mbps = row.decoder_seconds > 0 ? bits / row.decoder_seconds / 1e6 : 0.0;
  row.chain_mbps = row.chain_seconds > 0 ? bits / row.chain_seconds / 1e6 : 0.0;
  return row;
}

action bench_uncoded(CLI::App& cmd, const bench_options& common) {
  auto o = std::make_shared<uncoded_bench_options>();
  cmd.add_option("--K", o->info_bits, "information bits per frame")
      ->check(unsigned_integer() & in_range(1, 4294967296.0))
      ->capture_default_str();
  cmd.add_option("--frames", o->frames, "frames per backend")
      ->check(unsigned_integer() & at_least(1))
      ->capture_default_str();
  cmd.add_option("--ebn0", o->ebn0, "Eb/N0 in dB")->check(snr_db())->capture_default_str();
  return [o, &common] {
    use_threads(common.threads);
    const double started = seconds_since_epoch();
    output_file json;  // opened before any work: a bad path fails at once
    if (!common.json_path.empty()) json = output_file(common.json_path);
    std::vector<bench_row> rows;
    std::ostream& table = common.table();
    char line[256];
    std::snprintf(line, sizeof line,
                  "# gpufec bench uncoded: BPSK/AWGN, K = %llu, Eb/N0 = %g dB, %llu frames, %d "
                  "OpenMP threads\n# %7s | %10s | %12s | %12s | %10s | %10s\n",
                  static_cast<unsigned long long>(o->info_bits), o->ebn0,
                  static_cast<unsigned long long>(o->frames), omp_get_max_threads(), "backend",
                  "frames", "dec Mb/s", "chain Mb/s", "dec s", "chain s");
    table << line << std::flush;
    bool gpu = false;
    for (const gpufec::backend b : common.resolved_backends()) {
      rows.push_back(bench_backend(*o, b, common.seed));
      gpu |= b == gpufec::backend::cuda;
      const bench_row& r = rows.back();
      std::snprintf(line, sizeof line, "  %7s | %10llu | %12.1f | %12.1f | %10.4f | %10.4f\n",
                    r.backend.c_str(), static_cast<unsigned long long>(r.frames), r.decoder_mbps,
                    r.chain_mbps, r.decoder_seconds, r.chain_seconds);
      table << line << std::flush;
    }
    if (json) {
      nlohmann::json j;
      j["family"] = "uncoded";
      j["parameters"] = {{"K", o->info_bits},
                         {"ebn0_db", o->ebn0},
                         {"frames", o->frames},
                         {"seed", common.seed},
                         {"omp_threads", omp_get_max_threads()}};
      for (const bench_row& r : rows)
        j["results"].push_back({{"backend", r.backend},
                                {"frames", r.frames},
                                {"bit_errors", r.bit_errors},
                                {"decoder_seconds", r.decoder_seconds},
                                {"chain_seconds", r.chain_seconds},
                                {"decoder_mbps", r.decoder_mbps},
                                {"chain_mbps", r.chain_mbps}});
      common.write_json(json, j, started, gpu);
    }
    return 0;
  };
}

}  // namespace

constexpr const char* uncoded_examples = R"(
Examples:
  gpufec simulate uncoded --ebn0 0:8:1                 BPSK/AWGN BER curve, 100 frame errors per point
  gpufec simulate uncoded --ebn0 0,2,4 --max-fe 1000 --json ber.json --backend cuda
  gpufec channel awgn --esn0 3 -i bits.txt -o rx.txt && gpufec decode uncoded -i rx.txt -o bits.out
  gpufec bench uncoded --frames 20000                  CPU vs CUDA chain throughput
)";

const register_family uncoded_entry{{.name = "uncoded",
                                     .summary = "BPSK over AWGN without a code (hard decision)",
                                     .examples = uncoded_examples,
                                     .simulate = &simulate_uncoded,
                                     .decode = &decode_uncoded,
                                     .bench = &bench_uncoded}};

}  // namespace gpufec::cli
