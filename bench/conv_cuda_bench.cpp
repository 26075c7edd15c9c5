// Benchmark program for the CUDA Viterbi decoder: decoded Gb/s of the register and the
// shared-memory kernels with int8 LLRs already in device memory (the device path on a stream,
// CUDA events, median of 5 after a warm-up), end to end from host memory (copies included: from
// pageable memory, from page-locked memory, and the link's floor, the copies alone), and the
// CPU fast decoder on all threads on part of the same frames (the ratio), for K = 7 (171,133) at
// rates 1/2, 2/3 and 3/4, the same code in 802.11's order (133,171) at rates 1/2 and 3/4 (its own
// register-kernel instances), K = 7 rate 1/3, K = 5 and K = 9, long truncated frames, one stream
// of 2^29 bits and a batch of short zero-tail frames, and K = 7 rate 1/2 from float LLRs, 64 frames
// and one stream (from device memory quantized there per frame; from host memory made int8 by the
// host's threads, then copied); then throughput over the tile shape (f, v2, f0; whole cycles of
// K-1 = 6 stages, as the register kernel needs) for K = 7 rate 1/2 (the paper's Tables IV and V;
// docs/conv.md has the BER side). Built only when CUDA is compiled.
//   conv_cuda_bench [--quick] [--only WORKLOAD[,WORKLOAD...]] [--sweep F0[,F0...]]
//                   [--sweep-on WORKLOAD] [--batches FRAMES[,FRAMES...]] [--json FILE]
// --only runs just the named workloads ("K7 r1/2", "K5 r1/2", ... as printed) and no tile sweep:
// for a profiler or an A/B run. The register kernel runs the plan's default tile, which it fits
// to the device and the batch (printed). --sweep runs only the tile sweep, over the subframe
// lengths f0 given (multiples of 6), on K7 r1/2 or the register-kernel workload --sweep-on names
// (its default v1 and v2; K7 r1/2 also v2 = 48). --batches runs only K7 r1/2 (register kernel, the
// plan's default tile, fitted to each batch) on batches of that many frames of 2^20 bits
// (--batch-tile: one tile for all, and for the register kernel's --only rows too): throughput
// over how full the waves of resident tiles are.
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/page_locked.hpp"
#include "gpufec/common/philox.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/encoder.hpp"
#include "program.hpp"

namespace {

using namespace gpufec;
using namespace gpufec::conv;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Median seconds of `repeats` calls after one warm-up, host clock (for host-path calls, which
// return when their bits are in host memory).
template <class Fn>
double median_seconds(int repeats, Fn&& fn) {
  fn();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Median seconds of `repeats` launches on `stream` after one warm-up, CUDA events.
template <class Fn>
double median_gpu_seconds(int repeats, cudaStream_t stream, Fn&& launch) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  launch();
  check(cudaStreamSynchronize(stream), "warm-up");
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    t.push_back(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Frames of random bits, encoded, sent over BPSK/AWGN at `ebn0` and quantized to int8 (x8, |L|
// <= 127), on the host; and a copy in device memory.
struct workload {
  std::string name;
  conv_code code;
  puncture_pattern pattern;
  termination term;
  std::size_t N, frames, coded;
  std::vector<std::uint8_t> info;
  std::vector<std::int8_t> llr;
  std::int8_t* d_llr = nullptr;
  std::uint8_t* d_bits = nullptr;
  float* d_float = nullptr;  // float_llr workloads: the LLRs as floats (int8 / 8) in device memory
  std::vector<float> host_float{};  // and in host memory
};

workload make_host_workload(std::string name, const conv_code& code,
                            const puncture_pattern& pattern, termination term, std::size_t N,
                            std::size_t frames, double ebn0) {
  workload w{std::move(name), code, pattern, term, N, frames, 0, {}, {}};
  const encoder enc(code, pattern, N, term);
  w.coded = enc.shape().coded_bits;
  const double rate = static_cast<double>(N) / static_cast<double>(w.coded);
  const double sigma = channel::sigma_from_ebn0(ebn0, rate);
  w.info.resize(frames * N);
  std::vector<std::uint8_t> coded(frames * w.coded);
  // The bits and the codeword a frame per thread (one encoder pass each), then the channel a
  // sample per iteration, so that one long frame (the stream workload) uses every thread too.
#pragma omp parallel for
  for (std::ptrdiff_t fi = 0; fi < static_cast<std::ptrdiff_t>(frames); ++fi) {
    const auto f = static_cast<std::size_t>(fi);
    philox_stream source(7, rng_source, f);
    for (std::size_t i = 0; i < N; ++i)
      w.info[f * N + i] = static_cast<std::uint8_t>(source.next_bit());
    enc.encode(std::span<const std::uint8_t>(w.info).subspan(f * N, N),
               std::span<std::uint8_t>(coded).subspan(f * w.coded, w.coded));
  }
  w.llr.resize(frames * w.coded);
#pragma omp parallel for
  for (std::ptrdiff_t si = 0; si < static_cast<std::ptrdiff_t>(coded.size()); ++si) {
    const auto s = static_cast<std::size_t>(si);
    const double L = channel::llr_from_sample(
        channel::awgn_received(7, s / w.coded, s % w.coded, coded[s], sigma), sigma);
    w.llr[s] = static_cast<std::int8_t>(std::clamp(std::lround(L * 8.0), -127L, 127L));
  }
  return w;
}

// `replicas` > 1: the frames repeated that many times (a large batch without encoding it all).
// float_llr: the device path decodes float LLRs (quantized on the device, per frame).
workload make_workload(std::string name, const conv_code& code, const puncture_pattern& pattern,
                       termination term, std::size_t N, std::size_t frames, double ebn0,
                       std::size_t replicas = 1, bool float_llr = false) {
  workload w = make_host_workload(std::move(name), code, pattern, term, N, frames, ebn0);
  if (replicas > 1) {
    const std::size_t info = w.info.size(), llr = w.llr.size();
    w.info.resize(info * replicas);
    w.llr.resize(llr * replicas);
    for (std::size_t r = 1; r < replicas; ++r) {
      std::copy_n(w.info.begin(), info, w.info.begin() + static_cast<std::ptrdiff_t>(r * info));
      std::copy_n(w.llr.begin(), llr, w.llr.begin() + static_cast<std::ptrdiff_t>(r * llr));
    }
    w.frames *= replicas;
  }
  check(cudaMalloc(&w.d_llr, w.llr.size()), "cudaMalloc");
  check(cudaMalloc(&w.d_bits, w.info.size()), "cudaMalloc");
  check(cudaMemcpy(w.d_llr, w.llr.data(), w.llr.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  if (float_llr) {
    std::vector<float>& values = w.host_float;
    values.resize(w.llr.size());
#pragma omp parallel for
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(values.size()); ++i)
      values[static_cast<std::size_t>(i)] =
          static_cast<float>(w.llr[static_cast<std::size_t>(i)]) / 8.0f;
    check(cudaMalloc(&w.d_float, values.size() * sizeof(float)), "cudaMalloc");
    check(
        cudaMemcpy(w.d_float, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice),
        "cudaMemcpy");
  }
  return w;
}

void release(workload& w) {
  cudaFree(w.d_llr);
  cudaFree(w.d_bits);
  cudaFree(w.d_float);
}

struct measured {
  double device_gbps = 0, host_gbps = 0, pinned_gbps = 0, link_gbps = 0, ber = 0;
  std::string plan;
  tile_shape tile;  // the plan's (given, or its default fitted to the device and the batch)
};

// The link's floor for a batch from host memory: decoded Gb/s if nothing but the two copies ran,
// the LLRs to the device and the bits back, at once on two streams from and to page-locked memory
// (CUDA events, median).
double link_floor_gbps(const workload& w, const page_locked_vector<std::int8_t>& llr,
                       page_locked_vector<std::uint8_t>& bits, int repeats, cudaStream_t stream) {
  cudaStream_t other;
  cudaEvent_t fork, join;
  check(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming), "cudaEventCreate");
  check(cudaEventCreateWithFlags(&join, cudaEventDisableTiming), "cudaEventCreate");
  const double seconds = median_gpu_seconds(repeats, stream, [&] {
    check(cudaEventRecord(fork, stream), "cudaEventRecord");
    check(cudaStreamWaitEvent(other, fork), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(w.d_llr, llr.data(), w.llr.size(), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync");
    check(cudaMemcpyAsync(bits.data(), w.d_bits, w.info.size(), cudaMemcpyDeviceToHost, other),
          "cudaMemcpyAsync");
    check(cudaEventRecord(join, other), "cudaEventRecord");
    check(cudaStreamWaitEvent(stream, join), "cudaStreamWaitEvent");
  });
  cudaEventDestroy(fork);
  cudaEventDestroy(join);
  cudaStreamDestroy(other);
  return static_cast<double>(w.frames * w.N) / seconds / 1e9;
}

// The pinned path's bits against the pageable path's: the same decoder, so the same bits.
void require_equal_bits(const std::vector<std::uint8_t>& bits, const std::uint8_t* other) {
  if (!std::equal(bits.begin(), bits.end(), other))
    throw std::runtime_error("the batch decoded from page-locked memory differs from pageable");
}

measured measure(workload& w, cuda_kernel kernel, const tile_shape& tile, bool host, int repeats,
                 cudaStream_t stream) {
  decoder_options options;
  options.decoder = decoder_kind::tiled;
  options.tile = tile;
  options.kernel = kernel;
  decoder_plan plan(w.code, w.pattern, w.N, w.term, options, backend::cuda, w.frames);
  const auto in =
      batch_view<std::int8_t>::uniform(w.d_llr, w.frames, w.coded, memory_space::device);
  const auto out = batch_span<std::uint8_t>::uniform(w.d_bits, w.frames, w.N, memory_space::device);
  const double total = static_cast<double>(w.frames * w.N);
  measured m;
  m.plan = plan.describe();
  m.tile = plan.summary().tile;
  const auto in_float =
      batch_view<float>::uniform(w.d_float, w.frames, w.coded, memory_space::device);
  m.device_gbps = total /
                  median_gpu_seconds(repeats, stream,
                                     [&] {
                                       if (w.d_float)
                                         plan.decode(in_float, out, stream);
                                       else
                                         plan.decode(in, out, stream);
                                     }) /
                  1e9;
  std::vector<std::uint8_t> bits(w.info.size());
  check(cudaMemcpy(bits.data(), w.d_bits, bits.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  double errors = 0;
  for (std::size_t i = 0; i < bits.size(); ++i) errors += bits[i] != w.info[i];
  m.ber = errors / total;
  if (host) {
    // From pageable memory (the batch staged through page-locked buffers by host copies), then
    // from page-locked memory (copied straight over the link), and the link's floor. Float
    // workloads: float LLRs in pageable, then page-locked memory, made int8 on the host's threads
    // (per frame, or one frame over all of them), then copied as int8.
    const auto from_host = [&](const auto* from, std::uint8_t* to) {
      using value = std::remove_cv_t<std::remove_pointer_t<decltype(from)>>;
      return total /
             median_seconds(repeats,
                            [&] {
                              plan.decode(batch_view<value>::uniform(from, w.frames, w.coded),
                                          batch_span<std::uint8_t>::uniform(to, w.frames, w.N));
                            }) /
             1e9;
    };
    page_locked_vector<std::int8_t> locked_llr(w.llr.begin(), w.llr.end());
    page_locked_vector<std::uint8_t> locked_bits(w.info.size());
    if (!is_page_locked(locked_llr.data()) || !is_page_locked(locked_bits.data()))
      throw std::runtime_error("the pinned column needs page-locked memory, which was refused");
    if (w.d_float) {
      m.host_gbps = from_host(w.host_float.data(), bits.data());
      page_locked_vector<float> locked_float(w.host_float.begin(), w.host_float.end());
      if (!is_page_locked(locked_float.data()))
        throw std::runtime_error("the pinned column needs page-locked memory, which was refused");
      m.pinned_gbps = from_host(locked_float.data(), locked_bits.data());
    } else {
      m.host_gbps = from_host(w.llr.data(), bits.data());
      m.pinned_gbps = from_host(locked_llr.data(), locked_bits.data());
    }
    require_equal_bits(bits, locked_bits.data());
    m.link_gbps = link_floor_gbps(w, locked_llr, locked_bits, repeats, stream);
  }
  return m;
}

// The register kernel's launch shape for a workload and tile (f = 0: the default).
std::string plan_kernel_line(const workload& w, const tile_shape& tile) {
  decoder_options options;
  options.decoder = decoder_kind::tiled;
  options.tile = tile;
  options.kernel = cuda_kernel::registers;
  const decoder_plan plan(w.code, w.pattern, w.N, w.term, options, backend::cuda, w.frames);
  return plan.summary().kernel;
}

// Whether the register kernel is compiled for the workload's code (it refuses the others).
bool has_register_kernel(const workload& w) {
  try {
    plan_kernel_line(w, {});
    return true;
  } catch (const invalid_argument&) {
    return false;
  }
}

// The CPU fast decoder on all threads: the same code, pattern, termination and Eb/N0 on frames
// of at most 4096 bits, enough of them for every thread (it runs frames in parallel, 16 per task),
// since one thread per long frame would measure the frame count, not the decoder.
double cpu_gbps(const workload& w, double ebn0) {
  const std::size_t N = std::min<std::size_t>(w.N, 4096);
  const std::size_t frames = std::max<std::size_t>(
      32 * static_cast<std::size_t>(omp_get_max_threads()), (std::size_t{1} << 21) / N);
  const workload cpu_work = make_host_workload(w.name, w.code, w.pattern, w.term, N, frames, ebn0);
  decoder_options fast;
  fast.decoder = decoder_kind::fast;
  decoder_plan cpu(w.code, w.pattern, N, w.term, fast, backend::cpu, frames);
  std::vector<std::uint8_t> bits(frames * N);
  const double s = median_seconds(3, [&] {
    cpu.decode(batch_view<std::int8_t>::uniform(cpu_work.llr.data(), frames, cpu_work.coded),
               batch_span<std::uint8_t>::uniform(bits.data(), frames, N));
  });
  return static_cast<double>(frames * N) / s / 1e9;
}

// "a,b,c" as {"a", "b", "c"} (an empty item where two commas meet).
std::vector<std::string> comma_separated(std::string_view value) {
  std::vector<std::string> items;
  for (std::size_t at = 0; at <= value.size();) {
    const std::size_t comma = std::min(value.find(',', at), value.size());
    items.emplace_back(value.substr(at, comma - at));
    at = comma + 1;
  }
  return items;
}

// The workloads' names, as printed and as --only takes them.
constexpr std::string_view workload_names[] = {"K7 r1/2",
                                               "K7 r3/4",
                                               "K7 r1/3",
                                               "K5 r1/2",
                                               "K9 r1/2",
                                               "K7 r1/2 200-bit frames",
                                               "K7 r1/2 long batch",
                                               "K7 r2/3",
                                               "K7 r1/2 float",
                                               "K9 r1/3",
                                               "K7 802.11 r1/2",
                                               "K7 802.11 r3/4",
                                               "K7 r1/2 one stream",
                                               "K7 r1/2 one stream float"};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> only;       // workload names; empty: all, and the tile sweep
  std::vector<std::size_t> sweep_f0s;  // --sweep: only the tile sweep, over these f0
  std::vector<std::size_t> batches;    // --batches: only K7 r1/2 over these batch sizes
  tile_shape batch_tile;  // --batch-tile: the register kernel's tile (f = 0: the plan's default)
  std::string sweep_on{workload_names[0]};  // --sweep-on: the sweep's workload
  // A comma-separated list of positive integers (multiples of `step`).
  const auto numbers = [](std::string_view flag, std::string_view value, unsigned long step,
                          std::vector<std::size_t>& to) {
    for (const std::string& item : comma_separated(value)) {
      std::size_t used = 0;
      unsigned long n = 0;
      try {
        n = std::stoul(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != item.size() || n == 0 || n % step != 0 || n > 4096)
        throw gpufec::bench::bad_option(std::string(flag) + ": '" + item + "' is not " +
                                        (step > 1 ? "a multiple of 6" : "a count of frames") +
                                        " up to 4096");
      to.push_back(n);
    }
  };
  const auto own = [&](std::string_view flag, std::string_view value) {
    if (flag == "--sweep") {
      numbers(flag, value, 6, sweep_f0s);
      return true;
    }
    if (flag == "--sweep-on") {
      if (std::find(std::begin(workload_names), std::end(workload_names), value) ==
          std::end(workload_names))
        throw gpufec::bench::bad_option("--sweep-on: no workload named '" + std::string(value) +
                                        "'");
      sweep_on = value;
      return true;
    }
    if (flag == "--batches") {
      numbers(flag, value, 1, batches);
      return true;
    }
    if (flag == "--batch-tile") {
      try {
        batch_tile = parse_tile_shape(value);
      } catch (const std::exception& e) {
        throw gpufec::bench::bad_option(std::string("--batch-tile: ") + e.what());
      }
      return true;
    }
    if (flag != "--only") return false;
    for (const std::string& name : comma_separated(value)) {
      if (std::find(std::begin(workload_names), std::end(workload_names), name) ==
          std::end(workload_names))
        throw gpufec::bench::bad_option("--only: no workload named '" + name + "'");
      only.push_back(name);
    }
    return true;
  };
  return gpufec::bench::run_program(
      argc, argv, "conv_cuda_bench",
      "[--quick] [--only WORKLOAD[,...]] [--sweep F0[,...] [--sweep-on WORKLOAD]] "
      "[--batches FRAMES[,...] "
      "[--batch-tile f,v1,v2,f0]] [--json FILE]",
      own, [&](const gpufec::bench::program_options& program) {
        if (cuda_device_count() == 0) throw std::runtime_error("no CUDA device");
        const bool quick = program.quick;
        const int repeats = quick ? 3 : 5;
        cudaStream_t stream = nullptr;
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        const std::size_t long_frames = quick ? 8 : 64, long_bits = std::size_t{1} << 20;
        const std::size_t short_frames = quick ? 20000 : 100000;
        const auto none2 = puncture_pattern::none(2);
        struct spec {
          std::string name;
          conv_code code;
          puncture_pattern pattern;
          termination term;
          std::size_t N, frames;
          double ebn0;
          std::size_t replicas = 1;  // the frames repeated (make_workload)
          bool float_llr = false;    // the device path on float LLRs (make_workload)
        };
        const std::vector<spec> all_specs{
            {std::string(workload_names[0]), conv_code(7, {0171, 0133}), none2,
             termination::truncated, long_bits, long_frames, 4.0},
            {std::string(workload_names[1]), conv_code(7, {0171, 0133}),
             puncture_pattern::standard("3/4", 2), termination::truncated, long_bits, long_frames,
             5.0},
            {std::string(workload_names[2]), conv_code(7, {0133, 0171, 0165}),
             puncture_pattern::none(3), termination::truncated, long_bits, long_frames, 3.0},
            {std::string(workload_names[3]), conv_code(5, {023, 035}), none2,
             termination::truncated, long_bits, long_frames, 5.0},
            {std::string(workload_names[4]), conv_code(9, {0561, 0753}), none2,
             termination::truncated, long_bits, long_frames, 3.5},
            {std::string(workload_names[5]), conv_code(7, {0171, 0133}), none2,
             termination::zero_tail, 200, short_frames, 4.0},
            // 8 times the first workload's frames: many waves of tiles, so that the last,
            // partly filled wave weighs little (64 frames of 2^20 bits make 1.7 waves on an H200).
            {std::string(workload_names[6]), conv_code(7, {0171, 0133}), none2,
             termination::truncated, long_bits, long_frames, 4.0, 8},
            {std::string(workload_names[7]), conv_code(7, {0171, 0133}),
             puncture_pattern::standard("2/3", 2), termination::truncated, long_bits, long_frames,
             4.5},
            // The first workload's frames as float LLRs in device memory: quantized on the device
            // (per frame, as the host's float path) and decoded.
            {std::string(workload_names[8]), conv_code(7, {0171, 0133}), none2,
             termination::truncated, long_bits, long_frames, 4.0, 1, true},
            {std::string(workload_names[9]), conv_code(9, {0557, 0663, 0711}),
             puncture_pattern::none(3), termination::truncated, long_bits, long_frames, 2.5},
            // 802.11's order of the same generators (its own register-kernel instances).
            {std::string(workload_names[10]), conv_code(7, {0133, 0171}), none2,
             termination::truncated, long_bits, long_frames, 4.0},
            {std::string(workload_names[11]), conv_code(7, {0133, 0171}),
             puncture_pattern::standard("3/4", 2), termination::truncated, long_bits, long_frames,
             5.0},
            // One frame of 2^29 bits (2^23 with --quick): a single stream, decoded whole from
            // device memory (as many tiles as the long batch).
            {std::string(workload_names[12]), conv_code(7, {0171, 0133}), none2,
             termination::truncated, quick ? std::size_t{1} << 23 : std::size_t{1} << 29, 1, 4.0},
            // The same stream as float LLRs: quantized on the device from device memory, or on
            // the host's threads from host memory.
            {std::string(workload_names[13]), conv_code(7, {0171, 0133}), none2,
             termination::truncated, quick ? std::size_t{1} << 23 : std::size_t{1} << 29, 1, 4.0, 1,
             true},
        };
        // --batches: throughput over the batch size (frames of 2^20 bits, K7 r1/2, the
        // register kernel and its default tile): how full the last wave of tiles is.
        if (!batches.empty()) {
          // The 64 frames repeated up to the largest batch; each batch decodes the first frames.
          const std::size_t most = *std::max_element(batches.begin(), batches.end());
          workload w = make_workload("K7 r1/2", conv_code(7, {0171, 0133}), none2,
                                     termination::truncated, long_bits, 64, 4.0, (most + 63) / 64);
          std::printf(
              "register kernel, K7 r1/2, frames of 2^20 bits: device Gb/s over the batch\n");
          nlohmann::json rows = nlohmann::json::array();
          for (const std::size_t frames : batches) {
            workload part{w.name,  w.code, w.pattern, w.term,  w.N,     frames,
                          w.coded, {},     {},        w.d_llr, w.d_bits};
            part.info.assign(w.info.begin(),
                             w.info.begin() + static_cast<std::ptrdiff_t>(frames * w.N));
            // No --batch-tile: the plan's default, fitted to the batch.
            const measured m =
                measure(part, cuda_kernel::registers, batch_tile, false, repeats, stream);
            const std::size_t tiles = frames * ((w.N + m.tile.f - 1) / m.tile.f);
            std::printf("  %5zu frames %8zu tiles %8.2f Gb/s  %s\n", frames, tiles, m.device_gbps,
                        m.tile.to_string().c_str());
            rows.push_back({{"frames", frames},
                            {"tiles", tiles},
                            {"tile", m.tile.to_string()},
                            {"device_gbps", m.device_gbps}});
          }
          std::printf("%s\n", plan_kernel_line(w, batch_tile).c_str());
          release(w);
          check(cudaStreamDestroy(stream), "cudaStreamDestroy");
          return nlohmann::json{{"device", cuda_devices().at(0).name}, {"batches", rows}};
        }
        std::vector<spec> specs;
        for (const spec& sp : all_specs)
          if (sweep_f0s.empty() &&
              (only.empty() || std::find(only.begin(), only.end(), sp.name) != only.end()))
            specs.push_back(sp);
        std::printf("conv_cuda_bench: int8 LLRs (x8 at the Eb/N0 given), device: %s\n",
                    cuda_devices().at(0).name.c_str());
        std::printf("%-24s | %-10s | %-24s | %9s | %9s | %10s | %9s | %9s | %9s | %10s\n",
                    "workload", "kernel", "tile", "dev Gb/s", "host Gb/s", "pinned Gb/s",
                    "link Gb/s", "CPU Gb/s", "dev/CPU", "BER");
        nlohmann::json rows = nlohmann::json::array();
        for (const spec& sp : specs) {
          workload w = make_workload(sp.name, sp.code, sp.pattern, sp.term, sp.N, sp.frames,
                                     sp.ebn0, sp.replicas, sp.float_llr);
          const double cpu = cpu_gbps(w, sp.ebn0);
          for (const cuda_kernel kernel : {cuda_kernel::registers, cuda_kernel::shared_memory}) {
            if (kernel == cuda_kernel::registers && !has_register_kernel(w)) continue;
            // The register kernel on the plan's default (fitted to the device and the batch) or
            // --batch-tile, the shared kernel on its own best shape: short tiles, no subframes.
            const tile_shape given =
                kernel == cuda_kernel::registers
                    ? batch_tile
                    : tile_shape{256, default_traceback_depth(sp.code, sp.pattern),
                                 default_traceback_depth(sp.code, sp.pattern), 0};
            const measured m = measure(w, kernel, given, true, repeats, stream);
            const tile_shape& tile = m.tile;
            std::printf(
                "%-24s | %-10s | %-24s | %9.2f | %9.2f | %10.2f | %9.2f | %9.3f | %8.0fx | "
                "%10.3e\n",
                sp.name.c_str(), std::string(name_of(kernel)).c_str(), tile.to_string().c_str(),
                m.device_gbps, m.host_gbps, m.pinned_gbps, m.link_gbps, cpu, m.device_gbps / cpu,
                m.ber);
            rows.push_back({{"workload", sp.name},
                            {"code", sp.code.to_string()},
                            {"pattern", sp.pattern.to_string()},
                            {"frame_bits", sp.N},
                            {"frames", sp.frames},
                            {"ebn0_db", sp.ebn0},
                            {"kernel", name_of(kernel)},
                            {"tile", tile.to_string()},
                            {"device_gbps", m.device_gbps},
                            {"host_gbps", m.host_gbps},
                            {"pinned_gbps", m.pinned_gbps},
                            {"link_floor_gbps", m.link_gbps},
                            {"cpu_fast_gbps", cpu},
                            {"ber", m.ber},
                            {"plan", m.plan}});
          }
          release(w);
        }
        // Throughput over the tile shape, register kernel, K = 7 r = 1/2 (Tables IV and V), or
        // --sweep-on's workload; not with --only.
        nlohmann::json sweep = nlohmann::json::array();
        if (only.empty()) {
          const bool sweep_only = !sweep_f0s.empty();
          const spec& sp = *std::find_if(all_specs.begin(), all_specs.end(),
                                         [&](const spec& x) { return x.name == sweep_on; });
          // --sweep: on a long batch (many waves: shapes that change the resident tiles compare
          // without the last wave's fill).
          workload w = make_workload(sp.name, sp.code, sp.pattern, sp.term, sp.N, sp.frames,
                                     sp.ebn0, sweep_only ? 8 * sp.replicas : sp.replicas);
          if (!has_register_kernel(w))
            throw std::runtime_error("--sweep-on: the register kernel does not run " + sp.name);
          std::printf("\nregister kernel, %s: device Gb/s (BER) over the tile shape\n",
                      sp.name.c_str());
          const tile_shape def = default_tile_shape(sp.code, sp.pattern);
          const bool k7 = sp.name == workload_names[0];
          const std::vector<std::size_t> fs = !sweep_only ? std::vector<std::size_t>{264, 528, 1056}
                                              : k7        ? std::vector<std::size_t>{528, 1056}
                                                          : std::vector<std::size_t>{def.f};
          const std::vector<std::size_t> v2s =
              k7 ? std::vector<std::size_t>{36, 48} : std::vector<std::size_t>{def.v2};
          const std::vector<std::size_t> f0s =
              sweep_only ? sweep_f0s : std::vector<std::size_t>{30, 66, 132};
          for (const std::size_t f : fs)
            for (const std::size_t v2 : v2s)
              for (const std::size_t f0 : f0s) {
                const tile_shape tile{f, def.v1, v2, f0};
                const measured m = measure(w, cuda_kernel::registers, tile, false, repeats, stream);
                std::printf("  %-20s %8.2f Gb/s  BER %.3e\n", tile.to_string().c_str(),
                            m.device_gbps, m.ber);
                sweep.push_back({{"workload", sp.name},
                                 {"tile", tile.to_string()},
                                 {"device_gbps", m.device_gbps},
                                 {"ber", m.ber},
                                 {"plan", m.plan}});
              }
          release(w);
        }
        check(cudaStreamDestroy(stream), "cudaStreamDestroy");
        return nlohmann::json{{"device", cuda_devices().at(0).name},
                              {"cpu_threads", omp_get_max_threads()},
                              {"rows", rows},
                              {"tile_sweep", sweep}};
      });
}
