#include "sim/bench.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <utility>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/conv/simulation.hpp"
#include "gpufec/polar/simulation.hpp"
#include "gpufec/sim/simulator.hpp"
#include "gpufec/sync/simulation.hpp"
#include "gpufec/uncoded/uncoded.hpp"
#include "median.hpp"

namespace gpufec::sim_bench {
namespace {

// A workload: its family on a backend (null with a reason where it does not run there), at one
// point of its sweep.
struct workload {
  std::string name, description;
  double point;
  std::function<std::unique_ptr<sim::family>(backend, std::uint64_t seed, std::string& skipped)>
      make;
};

std::unique_ptr<sim::family> make_conv(backend where, llr_kind llr) {
  conv::sim_setup s(conv::conv_code(7, {0171, 0133}), conv::puncture_pattern::none(2));
  s.frame_bits = 8192;
  s.llr = llr;
  s.where = where;
  return std::make_unique<conv::sim_family>(std::move(s));
}

// SC, or BP in `precision` (the CPU's BP is fp32 only: fp16 asks for it where it exists).
std::unique_ptr<sim::family> make_polar(backend where, bool bp,
                                        polar::message_precision precision) {
  polar::decoder_options o;
  o.update = polar::update_rule::min_sum;
  if (bp) {
    o.decoder = polar::decoder_kind::bp;
    o.iterations = 10;
    o.early_stop = true;
    if (where == backend::cuda) o.precision = precision;
  }
  return std::make_unique<polar::sim_family>(polar::polar_code(1024, 512), o, where);
}

const std::vector<workload>& workloads() {
  static const std::vector<workload> all = {
      {"uncoded", "uncoded BPSK, K = 1024, 4 dB", 4.0,
       [](backend b, std::uint64_t, std::string&) {
         return std::make_unique<uncoded::family>(uncoded::params{1024}, b);
       }},
      {"conv-int8", "conv K=7 (171,133) r=1/2, 8192-bit frames, int8 LLRs, 2 dB", 2.0,
       [](backend b, std::uint64_t, std::string&) { return make_conv(b, llr_kind::i8); }},
      {"conv-float", "conv K=7 (171,133) r=1/2, 8192-bit frames, float LLRs, 2 dB", 2.0,
       [](backend b, std::uint64_t, std::string&) { return make_conv(b, llr_kind::f32); }},
      {"polar-sc", "polar N=1024 K=512 5G, fast SC min-sum, 2 dB", 2.0,
       [](backend b, std::uint64_t, std::string& skipped) -> std::unique_ptr<sim::family> {
         if (b == backend::cuda) {
           skipped = "SC runs on the CPU only";
           return nullptr;
         }
         return make_polar(b, false, polar::message_precision::fp32);
       }},
      {"polar-bp", "polar N=1024 K=512 5G, BP min-sum 10 it early stop (CUDA fp16), 4 dB", 4.0,
       [](backend b, std::uint64_t, std::string&) {
         return make_polar(b, true, polar::message_precision::fp16);
       }},
      {"polar-bp-fp32", "polar N=1024 K=512 5G, BP min-sum 10 it early stop, fp32 messages, 4 dB",
       4.0,
       [](backend b, std::uint64_t, std::string& skipped) -> std::unique_ptr<sim::family> {
         if (b == backend::cpu) {
           skipped = "the CPU's BP is fp32: polar-bp";
           return nullptr;
         }
         return make_polar(b, true, polar::message_precision::fp32);
       }},
      {"sync", "sync q=32 n=10 N=210 random codebook, p = 1e-3", 1e-3,
       [](backend b, std::uint64_t seed, std::string&) {
         sync::sim_setup s(sync::tvb_code::random(32, 10, 210, seed));
         s.where = b;
         return std::make_unique<sync::sim_family>(std::move(s));
       }},
  };
  return all;
}

using bench::median;

bench_row run_row(const workload& w, backend where, const bench_config& cfg) {
  bench_row row;
  row.workload = w.name;
  row.description = w.description;
  row.backend = to_string(where);
  const auto fam = w.make(where, cfg.seed, row.skipped);
  if (!fam) return row;
  sim::options opt;
  opt.seed = cfg.seed;
  opt.threads = cfg.threads;
  opt.stop = {0, 0, cfg.seconds};
  const auto check = [&](const sim::point_result& r) {
    require(r.reason != sim::stop_reason::failed, w.name, " on ", row.backend, ": ", r.error);
    require(r.reason != sim::stop_reason::interrupted, "interrupted");
  };
  // A run cut by its time limit drops the step in progress: a budget shorter than one step
  // counts no frame, so a run that counted none is run again with twice the time.
  const auto timed_run = [&](double seconds) {
    for (;; seconds *= 2) {
      opt.stop.max_time_s = seconds;
      sim::point_result r = sim::run_point(*fam, w.point, 0, opt);
      check(r);
      require(r.frames > 0 || seconds < 3600, w.name, " on ", row.backend, ": no frame in an hour");
      if (r.frames > 0) return r;
    }
  };
  timed_run(std::min(0.25, cfg.seconds));  // warm-up: plans, pages, clocks
  std::vector<double> decoder, chain;
  for (int r = 0; r < cfg.repeats; ++r) {
    const sim::point_result p = timed_run(cfg.seconds);
    decoder.push_back(p.decoder_mbps);
    chain.push_back(p.chain_mbps);
    row.frames += p.frames;
    row.frame_errors += p.frame_errors;
    row.info_bits_per_frame = static_cast<double>(p.shape.info_bits);
  }
  row.decoder_mbps = median(decoder);
  row.chain_mbps = median(chain);
  row.ratio = row.decoder_mbps > 0 ? row.chain_mbps / row.decoder_mbps : 0;
  return row;
}

}  // namespace

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const workload& w : workloads()) names.push_back(w.name);
  return names;
}

std::vector<bench_row> run_bench(const bench_config& cfg,
                                 const std::function<void(const bench_row&)>& on_row) {
  require(cfg.seconds > 0 && cfg.repeats >= 1, "bench sim: seconds must be positive (", cfg.seconds,
          ") and repeats at least 1 (", cfg.repeats, ")");
  std::vector<bench_row> rows;
  for (const std::string& name : cfg.workloads) {
    const auto it = std::find_if(workloads().begin(), workloads().end(),
                                 [&](const workload& w) { return w.name == name; });
    require(it != workloads().end(), "bench sim: no workload \"", name, "\"");
    for (const backend where : cfg.backends) {
      rows.push_back(run_row(*it, where, cfg));
      if (on_row) on_row(rows.back());
    }
  }
  return rows;
}

std::string format_header(const bench_config& cfg) {
  std::ostringstream out;
  out << "The simulation chain against its decoder: the median of " << cfg.repeats << " runs of "
      << cfg.seconds << " s (--max-fe 0), information Mb/s\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-11s %-5s %12s %12s %12s %8s %10s\n", "workload", "where",
                "frames", "decoder", "chain", "chain %", "FER");
  out << line;
  return out.str();
}

std::string format_row(const bench_row& r) {
  char line[240];
  if (!r.skipped.empty()) {
    std::snprintf(line, sizeof line, "%-11s %-5s %s\n", r.workload.c_str(), r.backend.c_str(),
                  ("not run: " + r.skipped).c_str());
    return line;
  }
  const double fer = r.frames ? static_cast<double>(r.frame_errors) / r.frames : 0;
  std::snprintf(line, sizeof line, "%-11s %-5s %12llu %12.1f %12.1f %7.1f%% %10.3g\n",
                r.workload.c_str(), r.backend.c_str(), static_cast<unsigned long long>(r.frames),
                r.decoder_mbps, r.chain_mbps, 100 * r.ratio, fer);
  return line;
}

nlohmann::json to_json(const std::vector<bench_row>& rows, const bench_config& cfg) {
  nlohmann::json j;
  j["benchmark"] = "sim";
  j["seconds_per_run"] = cfg.seconds;
  j["repeats"] = cfg.repeats;
  j["threads"] = cfg.threads;
  j["seed"] = cfg.seed;
  j["rows"] = nlohmann::json::array();
  for (const bench_row& r : rows) {
    nlohmann::json row{
        {"workload", r.workload}, {"description", r.description}, {"backend", r.backend}};
    if (!r.skipped.empty()) {
      row["skipped"] = r.skipped;
    } else {
      row["frames"] = r.frames;
      row["frame_errors"] = r.frame_errors;
      row["info_bits_per_frame"] = r.info_bits_per_frame;
      row["decoder_mbps"] = r.decoder_mbps;
      row["chain_mbps"] = r.chain_mbps;
      row["chain_over_decoder"] = r.ratio;
    }
    j["rows"].push_back(std::move(row));
  }
  return j;
}

}  // namespace gpufec::sim_bench
