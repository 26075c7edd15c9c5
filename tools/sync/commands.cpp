// `simulate sync`, `decode sync`, `bench sync`: TVB codes over the BSID channel, MAP decoder.
#include <omp.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "family_registry.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/sync/received_file.hpp"
#include "gpufec/sync/simulation.hpp"
#include "sync/bench.hpp"

namespace gpufec::cli {
// Two choices of the sync command line that are flags of the library's types.
enum class sync_marker { none, random };
enum class sync_frame_end { known, unknown };
}  // namespace gpufec::cli

template <>
struct gpufec::enum_names<gpufec::cli::sync_marker> {
  using E = cli::sync_marker;
  static constexpr std::array entries{enum_entry{E::none, "none"}, enum_entry{E::random, "random"}};
};
template <>
struct gpufec::enum_names<gpufec::cli::sync_frame_end> {
  using E = cli::sync_frame_end;
  static constexpr std::array entries{enum_entry{E::known, "known"},
                                      enum_entry{E::unknown, "unknown"}};
};

namespace gpufec::cli {
namespace {

// What describes the code and the decoder, shared by simulate and decode.
struct sync_code_options {
  int q = 32, n = 10, N = 210;
  std::string codebook = "random";
  std::uint64_t codebook_seed = 1;
  std::string marker = "none";
  std::string storage = "auto", lattice = "corridor", lattice_real = "float", end = "known";
  double Pr = 1e-10;
  double memory_budget_mib = 0;

  sync::tvb_code code() const {
    const bool with_marker = parse_name<sync_marker>(marker, "--marker") == sync_marker::random;
    if (codebook == "random") return sync::tvb_code::random(q, n, N, codebook_seed, with_marker);
    auto books = sync::read_codebook_file(codebook);
    std::vector<std::uint8_t> mark;
    if (with_marker) mark = sync::tvb_code::random(q, n, N, codebook_seed, true).marker();
    return sync::tvb_code(q, n, N, std::move(books), std::move(mark));
  }
  sync::decoder_options decoder() const {
    sync::decoder_options o;
    o.Pr = Pr;
    o.storage = parse_name<sync::storage_mode>(storage, "--storage");
    o.lattice = parse_name<sync::lattice_mode>(lattice, "--lattice");
    o.lattice_real = parse_name<sync::real_kind>(lattice_real, "--lattice-real");
    o.end_known = parse_name<sync_frame_end>(end, "--end") == sync_frame_end::known;
    o.memory_budget = static_cast<std::size_t>(memory_budget_mib * 1024 * 1024);
    return o;
  }
};

void add_code_options(CLI::App& cmd, sync_code_options& o) {
  cmd.add_option("--q", o.q, "message alphabet size (q >= 2, q <= 2^n)")
      ->check(CLI::Range(2, 1 << 20))
      ->capture_default_str();
  cmd.add_option("--n", o.n, "codeword length in bits (1..32)")
      ->check(CLI::Range(1, 32))
      ->capture_default_str();
  cmd.add_option("--N", o.N, "message length in q-ary symbols")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd.add_option(
         "--codebook", o.codebook,
         "'random' (a fresh injective codebook per position) or a codebook file (docs/formats.md)")
      ->capture_default_str();
  cmd.add_option("--codebook-seed", o.codebook_seed, "seed of random codebooks and markers")
      ->capture_default_str();
  cmd.add_option("--marker", o.marker,
                 "none, or random: a pseudo-random watermark added onto the frame")
      ->check(CLI::IsMember(names_of<sync_marker>()))
      ->capture_default_str();
  cmd.add_option("--storage", o.storage,
                 "gamma storage: auto, global, compact (CUDA: sums over D kept) or local (a ring "
                 "of indices, the paper's)")
      ->check(CLI::IsMember(names_of<sync::storage_mode>()))
      ->capture_default_str();
  cmd.add_option("--lattice", o.lattice,
                 "receiver metric: corridor (within the drift limits) or full")
      ->check(CLI::IsMember(names_of<sync::lattice_mode>()))
      ->capture_default_str();
  cmd.add_option("--lattice-real", o.lattice_real, "lattice precision: float or double")
      ->check(CLI::IsMember(names_of<sync::real_kind>()))
      ->capture_default_str();
  cmd.add_option("--end", o.end, "frame end: known (drift rho - tau) or unknown (drift pmf prior)")
      ->check(CLI::IsMember(names_of<sync_frame_end>()))
      ->capture_default_str();
  cmd.add_option("--Pr", o.Pr, "probability of drift outside the limits")
      ->check(CLI::Range(1e-300, 0.5))
      ->capture_default_str();
  cmd.add_option(
         "--memory-budget", o.memory_budget_mib,
         "MiB the gamma storage may take before auto picks local (0: 1 GiB CPU, 80% free GPU)")
      ->check(CLI::NonNegativeNumber);
}

struct sync_channel_options {
  std::optional<double> pi, pd;
  double ps = 0;
};

void add_channel_options(CLI::App& cmd, sync_channel_options& o, bool sweep) {
  const char* suffix = sweep ? " (default: the swept p)" : "";
  cmd.add_option("--pi", o.pi, std::string("insertion probability Pi") + suffix)
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--pd", o.pd, std::string("deletion probability Pd") + suffix)
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--ps", o.ps, "substitution probability Ps")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

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
    sync::sim_setup s(o->code.code());
    s.Pi = o->channel.pi;
    s.Pd = o->channel.pd;
    s.Ps = o->channel.ps;
    s.options = o->code.decoder();
    s.where = common.resolved_backend();
    const sync::sim_family fam(std::move(s));
    return run_simulation(fam, sim::parse_sweep(o->p), common);
  };
}

struct sync_decode_options {
  sync_code_options code;
  sync_channel_options channel;
  std::string input, input_format = "auto";
  std::string app, app_format = "text", decisions, drift;
  std::size_t batch = 256;
};

action decode_sync(CLI::App& cmd, const decode_options& common) {
  auto o = std::make_shared<sync_decode_options>();
  cmd.add_option("--input,-i", o->input, "received frames (docs/formats.md)")->required();
  cmd.add_option("--input-format", o->input_format,
                 "auto, text (one frame of 0/1 per line) or packed")
      ->check(CLI::IsMember(names_of<sync::received_format>()))
      ->capture_default_str();
  add_code_options(cmd, o->code);
  add_channel_options(cmd, o->channel, false);
  cmd.add_option("--app", o->app, "write the APPs L_i(D) here");
  cmd.add_option("--app-format", o->app_format,
                 "text (%.17g, one symbol per line), csv or f64 (raw doubles)")
      ->check(CLI::IsMember(names_of<sync::app_format>()))
      ->capture_default_str();
  cmd.add_option("--decisions", o->decisions, "write hard decisions here (one frame per line)");
  cmd.add_option("--drift", o->drift,
                 "write the drift posterior at codeword boundaries here (csv)");
  cmd.add_option("--batch", o->batch, "frames per decode call")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  return [o, &common] {
    require(o->channel.pi && o->channel.pd,
            "decode sync needs the channel: give --pi and --pd (and --ps)");
    if (common.threads > 0) omp_set_num_threads(common.threads);
    const sync::tvb_code code = o->code.code();
    const sync::bsid_params ch{*o->channel.pi, *o->channel.pd, o->channel.ps, code.alphabet()};
    const auto received =
        sync::read_received_file(o->input, sync::parse_received_format(o->input_format));
    sync::decoder_plan plan(code, ch, o->code.decoder(), common.resolved_backend(),
                            std::min(o->batch, received.frames()));
    std::cerr << plan.describe();
    sync::decoder_output_files files(o->app, sync::parse_app_format(o->app_format), o->decisions,
                                     o->drift);
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
    std::cerr << "gpufec: decoded " << received.frames() - undecodable << " of "
              << received.frames() << " frames from '" << o->input << "'\n";
    return undecodable ? 1 : 0;
  };
}

struct sync_bench_options {
  int q = 32, n = 10, N = 210;
  std::vector<double> p{1e-3, 1e-2};
  std::vector<std::size_t> batches{1, 1000};
  std::size_t cpu_frames = 3;
  int repeats = 5;
  std::string storage = "auto";
  bool drift = false;
  std::size_t fold_min_frames = 0;
  std::string fold = "auto";
};

action bench_sync(CLI::App& cmd, const bench_options& common) {
  auto o = std::make_shared<sync_bench_options>();
  cmd.add_option("--q", o->q, "message alphabet size")
      ->check(CLI::Range(2, 1 << 20))
      ->capture_default_str();
  cmd.add_option("--n", o->n, "codeword length")->check(CLI::Range(1, 32))->capture_default_str();
  cmd.add_option("--N", o->N, "message length")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  cmd.add_option("--p", o->p, "Pi = Pd values")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  cmd.add_option("--batches", o->batches, "GPU frames per decode call")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  cmd.add_option("--cpu-frames", o->cpu_frames, "frames the CPU reference decodes (median)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  cmd.add_option("--repeats", o->repeats, "timed repetitions after a warm-up")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd.add_option("--storage", o->storage, "auto, global, compact or local")
      ->check(CLI::IsMember(names_of<sync::storage_mode>()))
      ->capture_default_str();
  cmd.add_flag("--drift", o->drift, "also compute and copy back the drift posterior");
  cmd.add_option("--fold-min-frames", o->fold_min_frames,
                 "CUDA: fold gamma and beta for chunks of this many frames or more (0: from the "
                 "device; a large number: never), for A/B runs")
      ->capture_default_str();
  cmd.add_option("--fold", o->fold,
                 "CUDA: the kernel of a folded chunk, items (a warp per states of one frame and "
                 "index) or frames (a block per frame); auto: by the geometry")
      ->check(CLI::IsMember(names_of<sync::fold_kernel>()))
      ->capture_default_str();
  return [o, &common] {
    sync::bench_config cfg;
    cfg.drift_posterior = o->drift;
    cfg.fold_min_frames = o->fold_min_frames;
    cfg.fold = parse_name<sync::fold_kernel>(o->fold, "--fold");
    for (double p : o->p) cfg.points.push_back({o->q, o->n, o->N, p});
    cfg.gpu_batches = o->batches;
    cfg.cpu_frames = o->cpu_frames;
    cfg.cpu_threads = common.threads > 0 ? common.threads : 1;
    cfg.repeats = o->repeats;
    cfg.seed = common.seed ? common.seed : 1;
    cfg.storage = parse_name<sync::storage_mode>(o->storage, "--storage");
    bool cuda = false;
    for (auto b : common.resolved_backends()) cuda |= b == backend::cuda;
    cfg.cuda = cuda;
    const auto rows = sync::run_bench(cfg);
    std::cout << sync::format_table(rows);
    if (!common.json_path.empty()) {
      std::ofstream out(common.json_path);
      require<error>(out.good(), "cannot open output file '", common.json_path, "' for writing");
      out << sync::to_json(rows, cfg).dump(2) << "\n";
    }
    return 0;
  };
}

}  // namespace

const register_family sync_entry{
    {"sync", "TVB codes over the insertion/deletion (BSID) channel, MAP decoder", &simulate_sync,
     &decode_sync, &bench_sync}};

}  // namespace gpufec::cli
