// The conv decoder benchmark (bench/conv/bench.hpp): the workloads, the timed jobs (plan decoders,
// the fast decoder's ACS alone, VOLK's K = 7 kernel when built with it), the table and the JSON.
//
// VOLK's kernel runs the add-compare-select only (its users trace back separately), on 8-bit soft
// symbols 128 - 8 L clamped to 0..255, one frame after another on one thread; its row is timed
// the same way and its decisions are traced back outside the timing for the BER column. For a
// like-for-like figure the "fast, ACS only" row times our kernel alone on the same frames (branch
// tables made beforehand, no traceback).
#include "conv/bench.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "conv/cpu/fast_decoder.hpp"
#include "conv/cpu/fast_kernel.hpp"
#include "conv/jobs.hpp"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/philox.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"

#ifdef GPUFEC_HAVE_VOLK
#include <volk/volk.h>
#endif

namespace gpufec::conv {
namespace {

using clock_type = std::chrono::steady_clock;

struct workload {
  conv_code code;
  puncture_pattern pattern;
  std::size_t N;
  std::vector<std::uint8_t> info;
  std::vector<float> llr;
  std::vector<std::int8_t> q;
  std::size_t frames, coded_bits;
};

workload make_workload(const conv_code& code, const puncture_pattern& pattern, std::size_t N,
                       std::size_t frames, double ebn0_db, std::uint64_t seed) {
  const encoder enc(code, pattern, N, termination::zero_tail);
  workload w{code, pattern, N, {}, {}, {}, frames, enc.shape().coded_bits};
  w.info.resize(frames * N);
  w.llr.resize(frames * w.coded_bits);
  w.q.resize(w.llr.size());
  const double sigma = channel::sigma_from_ebn0(ebn0_db, pattern.rate());
  std::vector<std::uint8_t> coded(w.coded_bits);
  for (std::size_t f = 0; f < frames; ++f) {
    philox_stream source(seed, rng_source, f);
    for (std::size_t i = 0; i < N; ++i)
      w.info[f * N + i] = static_cast<std::uint8_t>(source.next_bit());
    enc.encode(std::span<const std::uint8_t>(w.info).subspan(f * N, N), coded);
    for (std::size_t i = 0; i < w.coded_bits; ++i)
      w.llr[f * w.coded_bits + i] = static_cast<float>(
          channel::llr_from_sample(channel::awgn_received(seed, f, i, coded[i], sigma), sigma));
  }
  quantize_llrs(w.llr, channel::int8_llr_scale(sigma), w.q);
  return w;
}

double bit_error_rate(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::size_t errors = 0;
  for (std::size_t i = 0; i < a.size(); ++i) errors += a[i] != b[i];
  return static_cast<double>(errors) / static_cast<double>(a.size());
}

using bench_detail::job;

// Times the jobs of one workload round-robin: a warm-up call each, then `reps` rounds of one
// call each, and the median per job. Interleaving keeps a clock that drifts during the run from
// favouring one decoder over another in the same group.
void measure(std::vector<job>& jobs, int reps, std::vector<bench_row>& rows) {
  // A job's seconds: its own (CUDA events), or the wall clock around its call.
  auto run = [](job& j) {
    if (j.timed) return j.timed();
    const auto start = clock_type::now();
    j.call();
    return std::chrono::duration<double>(clock_type::now() - start).count();
  };
  for (auto& j : jobs) (void)run(j);
  std::vector<std::vector<double>> t(jobs.size());
  for (int round = 0; round < reps; ++round)
    for (std::size_t k = 0; k < jobs.size(); ++k) t[k].push_back(run(jobs[k]));
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    std::sort(t[k].begin(), t[k].end());
    bench_row r = jobs[k].r;
    r.seconds = t[k][t[k].size() / 2];
    r.mbps = static_cast<double>(r.bits_per_call) / r.seconds / 1e6;
    r.ber = jobs[k].ber ? jobs[k].ber() : -1;
    rows.push_back(r);
  }
}

job plan_job(const workload& w, decoder_kind kind, const char* input, int threads,
             std::size_t frames) {
  struct state {
    decoder_plan plan;
    std::vector<std::uint8_t> bits;
  };
  decoder_options options;
  options.decoder = kind;
  options.threads = threads;
  auto st = std::make_shared<state>(state{
      decoder_plan(w.code, w.pattern, w.N, termination::zero_tail, options, backend::cpu, frames),
      std::vector<std::uint8_t>(frames * w.N)});
  job j;
  j.r.K = w.code.K();
  j.r.rate = w.pattern.rate_string();
  j.r.decoder = std::string(name_of(kind));
  j.r.input = input;
  j.r.threads = threads;
  j.r.frames = frames;
  j.r.bits_per_call = frames * w.N;
  const bool int8 = std::strcmp(input, "int8") == 0;
  j.call = [&w, st, frames, int8] {
    const auto out = batch_span<std::uint8_t>::uniform(st->bits.data(), frames, w.N);
    if (int8)
      st->plan.decode(batch_view<std::int8_t>::uniform(w.q.data(), frames, w.coded_bits), out);
    else
      st->plan.decode(batch_view<float>::uniform(w.llr.data(), frames, w.coded_bits), out);
  };
  j.ber = [&w, st] {
    return bit_error_rate(
        st->bits, std::vector<std::uint8_t>(w.info.begin(), w.info.begin() + st->bits.size()));
  };
  j.state = st;
  return j;
}

// The fast decoder's add-compare-select alone, over tables made beforehand (two frames at a time
// where the kernel does that): the part of the work the VOLK kernel does, for a like-for-like row.
job fast_acs_only_job(const workload& w) {
  struct state {
    detail::fast_trellis trellis;
    std::vector<std::int16_t> tables, metric0, metric1;
    std::vector<std::uint8_t> rows0, rows1;
  };
  auto st = std::make_shared<state>(state{detail::fast_trellis(w.code), {}, {}, {}, {}, {}});
  const detail::fast_trellis& trellis = st->trellis;
  const std::size_t stages = w.N + static_cast<std::size_t>(w.code.memory());
  const std::size_t paired = detail::two_frame_row(trellis.layout());
  const std::size_t entries = trellis.table_entries(), frames = w.frames - w.frames % 2;
  st->tables.resize(frames / 2 * stages * paired);
  std::vector<std::int8_t> pairs(2 * stages);
  for (std::size_t f = 0; f < frames; ++f) {
    std::copy_n(w.q.begin() + static_cast<std::ptrdiff_t>(f * w.coded_bits), 2 * stages,
                pairs.begin());
    if (trellis.two_frames())
      trellis.branch_tables(pairs.data(), stages,
                            st->tables.data() + f / 2 * stages * paired + (f % 2) * entries,
                            paired);
    else
      trellis.branch_tables(pairs.data(), stages, st->tables.data() + f * stages * entries,
                            entries);
  }
  st->rows0.resize(stages * trellis.row_bytes() + 8);
  st->rows1.resize(st->rows0.size());
  st->metric0.resize(w.code.states());
  st->metric1.resize(w.code.states());
  job j;
  j.r.K = w.code.K();
  j.r.rate = w.pattern.rate_string();
  j.r.decoder = "fast, ACS only";
  j.r.input = "int8";
  j.r.frames = frames;
  j.r.bits_per_call = frames * w.N;
  j.call = [st, frames, stages, paired, entries] {
    const detail::fast_trellis& tr = st->trellis;
    for (std::size_t p = 0; p < frames / 2; ++p) {
      tr.start_metrics(false, st->metric0.data());
      tr.start_metrics(false, st->metric1.data());
      if (tr.two_frames()) {
        std::int16_t* const metric[2] = {st->metric0.data(), st->metric1.data()};
        std::uint8_t* const rows[2] = {st->rows0.data(), st->rows1.data()};
        tr.forward_two(metric, st->tables.data() + p * stages * paired, stages, rows);
      } else {
        tr.forward(st->metric0.data(), st->tables.data() + 2 * p * stages * entries, stages,
                   st->rows0.data());
        tr.forward(st->metric1.data(), st->tables.data() + (2 * p + 1) * stages * entries, stages,
                   st->rows1.data());
      }
    }
  };
  j.state = st;
  return j;
}

#ifdef GPUFEC_HAVE_VOLK
// VOLK's K = 7, rate 1/2 ACS kernel over the frames, one after another. Branchtab holds, per
// butterfly i and stream j, 255 when the branch from state i with input 0 sends a 1 (libfec's
// table, with our polynomials bit-reversed as libfec writes them); soft symbols are 0 for a sure 0
// and 255 for a sure 1. Decisions land as bit j of a 64-bit word per stage (state j), which our
// traceback rule reads the same way.
job volk_job(const workload& w) {
  constexpr unsigned S = 64;
  const std::size_t stages = w.N + 6, frames = w.frames;
  struct state {
    unsigned char *branchtab = nullptr, *X = nullptr, *Y = nullptr, *dec = nullptr;
    std::vector<unsigned char> syms;
    std::vector<std::vector<std::uint64_t>> decisions;
    ~state() {
      volk_free(branchtab);
      volk_free(X);
      volk_free(Y);
      volk_free(dec);
    }
  };
  auto st = std::make_shared<state>();
  const std::size_t alignment = volk_get_alignment();
  st->branchtab = static_cast<unsigned char*>(volk_malloc(S, alignment));
  for (unsigned i = 0; i < S / 2; ++i)
    for (unsigned b = 0; b < 2; ++b)
      st->branchtab[b * S / 2 + i] =
          static_cast<unsigned char>((w.code.label(i, 0) >> b) & 1u ? 255 : 0);
  st->X = static_cast<unsigned char*>(volk_malloc(S, alignment));
  st->Y = static_cast<unsigned char*>(volk_malloc(S, alignment));
  st->dec = static_cast<unsigned char*>(volk_malloc(stages * 8 + 64, alignment));
  st->syms.resize(frames * 2 * stages);
  for (std::size_t i = 0; i < st->syms.size(); ++i)
    st->syms[i] =
        static_cast<unsigned char>(std::clamp(std::lround(128.0 - 8.0 * w.llr[i]), 0L, 255L));
  st->decisions.assign(frames, std::vector<std::uint64_t>(stages));
  job j;
  j.r.K = 7;
  j.r.rate = "1/2";
  j.r.decoder = "volk_8u_x4_conv_k7_r2_8u (ACS only)";
  j.r.input = "uint8 soft";
  j.r.frames = frames;
  j.r.bits_per_call = frames * w.N;
  j.call = [st, frames, stages] {
    for (std::size_t f = 0; f < frames; ++f) {
      std::memset(st->X, 63, S);
      st->X[0] = 0;
      std::memset(st->dec, 0, stages * 8);
      volk_8u_x4_conv_k7_r2_8u(st->Y, st->X, st->syms.data() + f * 2 * stages, st->dec,
                               static_cast<unsigned>(stages), 0, st->branchtab);
      std::memcpy(st->decisions[f].data(), st->dec, stages * 8);
    }
  };
  // Traceback (untimed) from state 0 for the BER column.
  j.ber = [&w, st, frames, stages] {
    std::vector<std::uint8_t> bits(frames * w.N);
    for (std::size_t f = 0; f < frames; ++f) {
      unsigned state = 0;
      for (std::size_t t = stages; t-- > 0;) {
        const unsigned d = static_cast<unsigned>(st->decisions[f][t] >> state) & 1u;
        if (t < w.N) bits[f * w.N + t] = static_cast<std::uint8_t>(state & 1u);
        state = (state >> 1) | (d << 5);
      }
    }
    return bit_error_rate(bits, w.info);
  };
  j.state = st;
  return j;
}
#endif

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

std::string polynomials(const conv_code& code) {
  std::string out;
  for (const std::uint32_t p : code.polynomials()) {
    if (!out.empty()) out += ',';
    out += octal(p);
  }
  return out;
}

// The fast decoder's one-thread int8 rows and the VOLK row of K = 7, rate 1/2: their ratio.
struct peer_ratio {
  double whole = 0, acs = 0;  // fast (int8, 1 thread) / VOLK; fast ACS only / VOLK
};
peer_ratio volk_ratio(const bench_result& result) {
  double fast = 0, acs = 0, volk = 0;
  for (const bench_row& r : result.rows) {
    if (r.K != 7 || r.rate != "1/2") continue;
    if (r.decoder == "fast" && r.input == "int8" && r.threads == 1) fast = r.mbps;
    if (r.decoder == "fast, ACS only") acs = r.mbps;
    if (r.decoder.rfind("volk", 0) == 0) volk = r.mbps;
  }
  if (volk <= 0) return {};
  return {fast / volk, acs / volk};
}

}  // namespace

conv_code bench_code(int K) {
  switch (K) {
    case 3:
      return conv_code(3, {07, 05});
    case 4:
      return conv_code(4, {017, 015});
    case 5:
      return conv_code(5, {023, 035});
    case 6:
      return conv_code(6, {053, 075});
    case 7:
      return conv_code(7, {0171, 0133});
    case 8:
      return conv_code(8, {0247, 0371});
    case 9:
      return conv_code(9, {0561, 0753});
    default:
      break;
  }
  throw invalid_argument(cat("no benchmark code for K = ", K, " (K must lie in [3, 9])"));
}

bench_result run_bench(const bench_config& config) {
  require(config.frame_bits >= 8, "bench: frame_bits = ", config.frame_bits, " must be at least 8");
  require(config.frames >= 2 && config.reference_frames >= 1 && config.repeats >= 1,
          "bench: frames (", config.frames, ") must be at least 2, reference frames (",
          config.reference_frames, ") and repeats (", config.repeats, ") at least 1");
  bench_result result;
  result.cpu = cpu_model();
  result.threads = config.threads > 0 ? config.threads : omp_get_max_threads();
  result.simd_target = detail::acs_shape(7).target;
#ifdef GPUFEC_HAVE_VOLK
  result.volk = true;
#endif
  std::vector<std::pair<conv_code, puncture_pattern>> workloads;
  for (const int K : config.K)
    for (const std::string& rate : config.rates) {
      const conv_code code = bench_code(K);
      workloads.emplace_back(code, puncture_pattern::parse(rate, code.beta()));
    }
  for (const auto& [code, pattern] : workloads) {
    const workload w =
        make_workload(code, pattern, config.frame_bits, config.frames, config.ebn0_db, config.seed);
    std::vector<job> jobs;
    for (const int threads : {1, result.threads}) {
      jobs.push_back(plan_job(
          w, decoder_kind::reference, "float", threads,
          std::min<std::size_t>(config.reference_frames * static_cast<std::size_t>(threads),
                                config.frames)));
      jobs.push_back(plan_job(w, decoder_kind::fast, "float", threads, config.frames));
      jobs.push_back(plan_job(w, decoder_kind::fast, "int8", threads, config.frames));
      if (result.threads == 1) break;
    }
    if (code.K() == 7 && code.polynomials() == std::vector<std::uint32_t>{0171, 0133} &&
        !pattern.punctures()) {
      jobs.push_back(fast_acs_only_job(w));
#ifdef GPUFEC_HAVE_VOLK
      jobs.push_back(volk_job(w));
#endif
    }
    if (config.cuda)
      for (job& j :
           bench_detail::cuda_jobs(code, pattern, config, w.q, w.info, w.frames, result.device))
        jobs.push_back(std::move(j));
    const std::size_t first = result.rows.size();
    measure(jobs, config.repeats, result.rows);
    double fast = 0;  // the fast decoder, int8 LLRs, all threads: what a CUDA row is compared to
    for (std::size_t k = first; k < result.rows.size(); ++k) {
      bench_row& r = result.rows[k];
      r.code = polynomials(code);
      if (r.backend == "cpu" && r.decoder == "fast" && r.input == "int8" &&
          r.threads == result.threads)
        fast = r.mbps;
    }
    for (std::size_t k = first; k < result.rows.size(); ++k)
      if (result.rows[k].backend == "cuda" && fast > 0)
        result.rows[k].vs_cpu = result.rows[k].mbps / fast;
  }
  return result;
}

std::string format_table(const bench_result& result, const bench_config& config) {
  std::ostringstream out;
  out << "# gpufec bench conv: " << result.cpu << ", " << result.threads << " threads, SIMD target "
      << result.simd_target << ", frames of " << config.frame_bits << " bits, zero tail, Eb/N0 "
      << config.ebn0_db << " dB, medians of " << config.repeats << " calls after a warm-up\n";
  out << std::left << std::setw(3) << "K" << std::setw(10) << "code" << std::setw(5) << "rate"
      << std::setw(38) << "decoder" << std::setw(11) << "input" << std::setw(8) << "threads"
      << std::right << std::setw(10) << "Mb/s" << std::setw(12) << "BER"
      << "\n";
  for (const auto& r : result.rows) {
    std::ostringstream mbps, ber;
    mbps << std::fixed << std::setprecision(r.mbps < 10 ? 2 : 1) << r.mbps;
    if (r.ber >= 0)
      ber << std::scientific << std::setprecision(2) << r.ber;
    else
      ber << "-";
    out << std::left << std::setw(3) << r.K << std::setw(10) << r.code << std::setw(5) << r.rate
        << std::setw(38) << r.decoder << std::setw(11) << r.input << std::setw(8)
        << (r.backend == "cuda" ? std::string("gpu") : std::to_string(r.threads)) << std::right
        << std::setw(10) << mbps.str() << std::setw(12) << ber.str() << "\n";
  }
  if (const peer_ratio ratio = volk_ratio(result); ratio.whole > 0)
    out << std::fixed << std::setprecision(2)
        << "# K = 7, rate 1/2, one thread: fast decoder (int8, whole) / VOLK kernel = "
        << ratio.whole << "x; fast ACS only / VOLK kernel = " << ratio.acs << "x\n";
  if (!result.volk) out << "# (VOLK column skipped: gpufec was built without libvolk2-dev)\n";
  if (!result.device.empty()) {
    out << "# CUDA rows on " << result.device
        << ": host = a host batch of int8 LLRs end to end (copies in and out included; "
           "page-locked host: from and to page-locked memory, copied straight over the link), "
           "device = int8 LLRs in device memory (the decoder alone, CUDA events); ratios to the "
           "fast decoder (int8, "
        << result.threads << " threads):\n";
    for (const auto& r : result.rows)
      if (r.backend == "cuda")
        out << std::fixed << std::setprecision(2) << "#   K " << r.K << " " << r.code << " rate "
            << r.rate << ", " << r.decoder << ", tile " << r.tile << ": " << r.vs_cpu << "x ("
            << r.kernel << ")\n";
  }
  return out.str();
}

nlohmann::json to_json(const bench_result& result, const bench_config& config) {
  nlohmann::json j;
  j["family"] = "conv";
  j["cpu"] = result.cpu;
  j["threads"] = result.threads;
  j["simd_target"] = result.simd_target;
  j["volk"] = result.volk;
  j["cuda_device"] = result.device.empty() ? nlohmann::json() : nlohmann::json(result.device);
  j["frame_bits"] = config.frame_bits;
  j["frames"] = config.frames;
  j["reference_frames"] = config.reference_frames;
  j["repeats"] = config.repeats;
  j["ebn0_db"] = config.ebn0_db;
  j["seed"] = config.seed;
  j["termination"] = "zero";
  if (const peer_ratio ratio = volk_ratio(result); ratio.whole > 0)
    j["k7_r12_fast_over_volk"] = {{"whole_decoder", ratio.whole}, {"acs_only", ratio.acs}};
  j["rows"] = nlohmann::json::array();
  for (const auto& r : result.rows) {
    nlohmann::json row = {{"K", r.K},
                          {"backend", r.backend},
                          {"code", r.code},
                          {"rate", r.rate},
                          {"decoder", r.decoder},
                          {"input", r.input},
                          {"threads", r.threads},
                          {"frames", r.frames},
                          {"bits_per_call", r.bits_per_call},
                          {"median_seconds", r.seconds},
                          {"mbps", r.mbps},
                          {"ber", r.ber >= 0 ? nlohmann::json(r.ber) : nlohmann::json()}};
    if (!r.tile.empty()) row["tile"] = r.tile;
    if (r.backend == "cuda") {
      row["kernel"] = r.kernel;
      row["vs_cpu_fast_int8_all_threads"] = r.vs_cpu;
    }
    j["rows"].push_back(row);
  }
  return j;
}

}  // namespace gpufec::conv
