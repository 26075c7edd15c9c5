// The BPSK/AWGN chain on CUDA: source bits, the channel and the LLRs in kernels from the same
// Philox streams as the CPU chain (so both report the same outcomes), the family's decoder on
// device views, and the errors counted per frame on the GPU; only the counts come back.
#include <algorithm>
#include <vector>

#include "common/cuda/bit_bytes.cuh"
#include "common/cuda/device_buffer.cuh"
#include "common/cuda/occupancy.cuh"
#include "common/cuda/stream.cuh"
#include "gpufec/channel/awgn.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/page_locked.hpp"
#include "sim/awgn_chain_entry.hpp"

namespace gpufec::sim {
namespace {

// source_kernel. Index map: frame f = blockIdx.y * blockDim.y + threadIdx.y (+ gridDim.y *
// blockDim.y per round), word w = blockIdx.x * blockDim.x + threadIdx.x (+ gridDim.x * blockDim.x
// per round) of its K bits: the thread draws the frame's 32-bit source word w (one Philox output)
// for bits 32w .. 32w + 31 (< K) of info[f * K ..]. Where a warp's 32 words are whole and K is a
// multiple of 16, the warp writes their 1 KiB in two 512-byte sweeps: lane l writes the 16 bytes
// of half l % 2 of word (l + 32 j) / 2, taken from its lane by a shuffle, so each store
// instruction covers whole sectors. Elsewhere each thread writes its own bits (four-byte stores
// when K is a multiple of 4). Short frames share a block (blockDim.y > 1).
__global__ void source_kernel(std::uint64_t seed, std::uint64_t first, std::uint64_t K,
                              std::uint64_t frames, std::uint8_t* __restrict__ info) {
  const std::uint64_t words = (K + 31) / 32, whole = K / 32;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const bool aligned = K % 4 == 0;
  const bool warp_rows = blockDim.x % 32 == 0 && K % 16 == 0;  // a warp within one frame
  const unsigned lane = threadIdx.x % 32;
  for (std::uint64_t f = static_cast<std::uint64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
       f < frames; f += static_cast<std::uint64_t>(gridDim.y) * blockDim.y) {
    const philox_stream source(seed, rng_source, first + f);
    std::uint8_t* out = info + f * K;
    for (std::uint64_t w = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         w < words; w += stride) {
      const std::uint32_t v = u32_at(source, w);
      if (warp_rows && w - lane + 32 <= whole) {  // the same for the whole warp
        cuda::store_warp_bit_bytes(v, 0, 64, out + 32 * (w - lane));
        continue;
      }
      const std::uint64_t begin = 32 * w, n = K - begin < 32 ? K - begin : 32;
      if (aligned && n == 32) {
        auto* four = reinterpret_cast<std::uint32_t*>(out + begin);
        for (unsigned q = 0; q < 8; ++q) four[q] = cuda::nibble_bytes(v, q);
      } else {
        for (std::uint64_t i = 0; i < n; ++i) out[begin + i] = (v >> i) & 1u;
      }
    }
  }
}

// Four adjacent outputs in one store (`to` aligned to four times their size).
template <class Out>
__device__ inline void store_quad(Out* to, const Out (&v)[4]) {
  if constexpr (sizeof(Out) == 4) {
    *reinterpret_cast<float4*>(to) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    std::uint32_t word = 0;
    for (int h = 0; h < 4; ++h)
      word |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(v[h])) << 8 * h;
    *reinterpret_cast<std::uint32_t*>(to) = word;
  }
}

// channel_kernel<Out>. Index map: frame f = blockIdx.y * blockDim.y + threadIdx.y (+ gridDim.y *
// blockDim.y per round), quad q = blockIdx.x * blockDim.x + threadIdx.x (+ gridDim.x * blockDim.x
// per round) of its N transmitted bits: the thread draws the four Gaussians of Philox block q of
// the frame's noise stream (what awgn_received reads at positions 4q .. 4q + 3) and writes the
// decoder's input for those bits (float LLR, int8 LLR or hard decision) to out[f * N + 4q ..], in
// one store when N is a multiple of 4.
template <class Out>
__global__ void channel_kernel(std::uint64_t seed, std::uint64_t first, std::uint64_t N,
                               std::uint64_t frames, float sigma, float factor, float scale,
                               const std::uint8_t* __restrict__ coded, Out* __restrict__ out) {
  const std::uint64_t quads = (N + 3) / 4;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const bool whole = N % 4 == 0;  // every quad whole and aligned for one store
  for (std::uint64_t f = static_cast<std::uint64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
       f < frames; f += static_cast<std::uint64_t>(gridDim.y) * blockDim.y) {
    const philox_stream noise(seed, rng_channel, first + f);
    const std::uint8_t* x = coded + f * N;
    Out* y = out + f * N;
    for (std::uint64_t q = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         q < quads; q += stride) {
      float g[4];
      gaussian_quad(noise, static_cast<std::uint32_t>(q), g);
      std::uint8_t sent[4] = {};
      if (whole) {
        const std::uint32_t four = *reinterpret_cast<const std::uint32_t*>(x + 4 * q);
        for (int h = 0; h < 4; ++h) sent[h] = (four >> 8 * h) & 0xFFu;
      } else {
        for (int h = 0; h < 4 && 4 * q + h < N; ++h) sent[h] = x[4 * q + h];
      }
      Out v[4] = {};
      for (int h = 0; h < 4; ++h)
        v[h] = channel::decoder_input<Out>(
            channel::llr_of(channel::awgn_sample(sent[h], sigma, g[h]), factor), scale);
      if (whole)
        store_quad(y + 4 * q, v);
      else
        for (int h = 0; h < 4 && 4 * q + h < N; ++h) y[4 * q + h] = v[h];
    }
  }
}

// count_kernel. Index map: frame f = blockIdx.y * blockDim.y + threadIdx.y (+ gridDim.y *
// blockDim.y per round; gridDim.x = 1), chunk c = threadIdx.x (+ blockDim.x per round) of its K
// bits, 16 bytes a chunk: a thread counts its chunks' decided bytes that differ from the sent ones
// (16 bytes a load when K is a multiple of 16, compared four at a time); a block row
// (blockDim.x a power of two) adds them by shuffles within a warp, across warps in shared memory
// (rows of 64 threads and more: one row per warp at most 32 rows), and its thread 0 writes
// errors[f]. Every thread runs every round (rows past the last frame count nothing), so the
// shuffles and barriers see whole warps and blocks.
__global__ void count_kernel(std::uint64_t frames, std::uint64_t K,
                             const std::uint8_t* __restrict__ decoded,
                             const std::uint8_t* __restrict__ info,
                             unsigned long long* __restrict__ errors) {
  __shared__ unsigned long long row_errors[32];
  const std::uint64_t chunks = (K + 15) / 16;
  const bool vectors = K % 16 == 0;
  const unsigned width = blockDim.x < 32 ? blockDim.x : 32;
  for (std::uint64_t base = static_cast<std::uint64_t>(blockIdx.y) * blockDim.y; base < frames;
       base += static_cast<std::uint64_t>(gridDim.y) * blockDim.y) {
    const std::uint64_t f = base + threadIdx.y;
    unsigned long long mine = 0;  // a frame may hold 2^32 errors
    if (f < frames) {
      const std::uint8_t* d = decoded + f * K;
      const std::uint8_t* x = info + f * K;
      for (std::uint64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
        if (vectors) {
          const uint4 a = reinterpret_cast<const uint4*>(d)[c];
          const uint4 b = reinterpret_cast<const uint4*>(x)[c];
          // __vcmpne4: 0xFF in each byte that differs, so 8 set bits per differing byte.
          mine += (__popc(__vcmpne4(a.x, b.x)) + __popc(__vcmpne4(a.y, b.y)) +
                   __popc(__vcmpne4(a.z, b.z)) + __popc(__vcmpne4(a.w, b.w))) >>
                  3;
        } else {
          for (std::uint64_t i = 16 * c; i < 16 * c + 16 && i < K; ++i) mine += d[i] != x[i];
        }
      }
    }
    for (unsigned offset = width / 2; offset > 0; offset /= 2)
      mine += __shfl_down_sync(0xffffffffu, mine, offset, width);
    if (blockDim.x <= 32) {
      if (threadIdx.x == 0 && f < frames) errors[f] = mine;
      continue;
    }
    if (threadIdx.x == 0) row_errors[threadIdx.y] = 0;
    __syncthreads();
    if (threadIdx.x % 32 == 0 && mine) atomicAdd(&row_errors[threadIdx.y], mine);
    __syncthreads();
    if (threadIdx.x == 0 && f < frames) errors[f] = row_errors[threadIdx.y];
    __syncthreads();
  }
}

class cuda_awgn_chain final : public detail::stepped_chain {
 public:
  // The decoder planned for about 2^28 values a call; a step is as many of its preferred batches
  // (the frames that fill the device for it) as that plan and half the free device memory hold,
  // so that a step's launches and its wait cost little beside its work.
  cuda_awgn_chain(const binary_code& code, double ebn0_db, std::uint64_t seed)
      : stepped_chain(detail::frames_for(code, backend::cuda)),
        code_(code),
        seed_(seed),
        sigma_(channel::sigma_from_ebn0(ebn0_db, code.rate())),
        decoder_(code.decoder(backend::cuda, detail::frames_for(code, backend::cuda))),
        limits_(cuda::current_device_limits()),
        source_shape_(cuda::suggested_shape(source_kernel)),
        channel_shape_(code.llr == llr_kind::f32 ? cuda::suggested_shape(channel_kernel<float>)
                       : code.llr == llr_kind::i8
                           ? cuda::suggested_shape(channel_kernel<std::int8_t>)
                           : cuda::suggested_shape(channel_kernel<std::uint8_t>)),
        count_shape_(cuda::suggested_shape(count_kernel)),
        stream_(0) {
    detail::require_one_frame_fits(code, limits_.free_memory, "device");
    const std::size_t fits = std::max<std::size_t>(
        1, limits_.free_memory / 2 /
               (detail::chain_bytes_per_frame(code) + sizeof(unsigned long long)));
    const std::size_t most = std::min(decoder_->max_batch(), fits);
    const std::size_t fill = std::clamp<std::size_t>(decoder_->preferred_batch(), 1, most);
    set_step(most / fill * fill);
  }
  // A step queued ahead may still be running: its buffers are freed only once it has ended.
  ~cuda_awgn_chain() override { (void)cudaStreamSynchronize(stream_); }
  cuda_awgn_chain(const cuda_awgn_chain&) = delete;
  cuda_awgn_chain& operator=(const cuda_awgn_chain&) = delete;

  frame_shape shape() const override { return {code_.info_bits, code_.info_bits, 1, false}; }
  std::size_t preferred_batch() const override { return step(); }
  fields details() const override {
    auto d = detail::chain_details(code_, sigma_, *decoder_);
    d.emplace_back("step_frames", step());
    d.emplace_back("source_block", source_shape_.threads);
    d.emplace_back("channel_block", channel_shape_.threads);
    d.emplace_back("steps_queued_ahead", steps_ahead_);
    // Where the device's time went, beside the decoder's (CUDA events around each stage).
    d.emplace_back("source_seconds", stage_seconds_[0]);
    d.emplace_back("encoder_seconds", stage_seconds_[1]);
    d.emplace_back("channel_seconds", stage_seconds_[2]);
    d.emplace_back("count_seconds", stage_seconds_[3]);
    return d;
  }

 private:
  // A step's frames on the device: where their counts land on the host, and the marks around its
  // stages (before the source, the encoder, the channel and the decoder; after the decoder and
  // the count), then `landed` once the counts are on the host.
  struct step_slot {
    std::uint64_t first = 0;
    std::size_t n = 0;
    bool queued = false;
    cuda::event marks[6] = {cuda::event(true), cuda::event(true), cuda::event(true),
                            cuda::event(true), cuda::event(true), cuda::event(true)};
    cuda::event landed{false};
    page_locked_vector<unsigned long long> errors;  // per frame (K may be 2^32)
  };

  // A step is milliseconds of device work, whatever its frames' length: stops come between steps.
  // While the host reads a step's counts the device runs the next step, queued before the wait
  // (frames are functions of their index alone, so a step queued ahead is the frames the next
  // call asks for; one that is not asked for is dropped). Only short steps are queued ahead, so
  // that the work a point's last step may waste stays small.
  std::optional<double> run_step(std::uint64_t first, std::size_t n, frame_outcome* outcomes,
                                 const stop_token& stop) override {
    step_slot* now = nullptr;
    for (step_slot& s : slots_)
      if (s.queued && s.first == first && n <= s.n) now = &s;
    if (!now) {
      drop_queued();
      now = &slots_[0];
      if (!queue_step(*now, first, n, stop)) return std::nullopt;
    }
    step_slot& next = now == &slots_[0] ? slots_[1] : slots_[0];
    if (ahead_ && !next.queued && !stop.requested() &&
        queue_step(next, first + now->n, now->n, stop))
      ++steps_ahead_;
    now->landed.synchronize();
    now->queued = false;
    for (std::size_t f = 0; f < n; ++f) outcomes[f] = {now->errors[f], now->errors[f], false};
    const cuda::event* m = now->marks;
    stage_seconds_[0] += cuda::seconds_between(m[0], m[1]);
    stage_seconds_[1] += cuda::seconds_between(m[1], m[2]);
    stage_seconds_[2] += cuda::seconds_between(m[2], m[3]);
    stage_seconds_[3] += cuda::seconds_between(m[4], m[5]);
    ahead_ = cuda::seconds_between(m[0], m[5]) < kShortStepSeconds;
    return cuda::seconds_between(m[3], m[4]);
  }

  // Queues frames [first, first + n) on the stream into `slot`; false when a stop ended the
  // decoder's launch (the stream is then drained and the slot left empty).
  bool queue_step(step_slot& slot, std::uint64_t first, std::size_t n, const stop_token& stop) {
    const std::size_t K = code_.info_bits, N = code_.coded_bits;
    const int sms = limits_.sm_count;
    info_.resize(std::max(info_.size(), n * K));
    decoded_.resize(std::max(decoded_.size(), n * K));
    errors_.resize(std::max(errors_.size(), n));
    slot.errors.resize(n);
    slot.marks[0].record(stream_);
    const auto source_grid = source_shape_.packed_frame_blocks(sms, (K + 31) / 32, n);
    source_kernel<<<dim3(source_grid.x, source_grid.y), dim3(source_grid.tx, source_grid.ty), 0,
                    stream_>>>(seed_, first, K, n, info_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("source_kernel");
    slot.marks[1].record(stream_);
    const std::uint8_t* coded = info_.get();
    if (code_.encode) {
      coded_.resize(std::max(coded_.size(), n * N));
      encode(n);
      coded = coded_.get();
    }
    slot.marks[2].record(stream_);
    llr_.resize(std::max(llr_.size(), n * N * llr_bytes(code_.llr)));
    launch_channel(first, n, coded);
    slot.marks[3].record(stream_);
    // A decoder that waits on the stream may end a long launch on a stop: the step is undone.
    try {
      detail::decode_as(
          *decoder_, code_.llr, llr_.get(), n, N,
          batch_span<std::uint8_t>::uniform(decoded_.get(), n, K, memory_space::device), stream_,
          stop);
    } catch (const stopped&) {
      stream_.synchronize();
      return false;
    }
    slot.marks[4].record(stream_);
    // A block row per frame (gridDim.x = 1), as many rows as the packed grid's blocks hold.
    const auto count_grid = count_shape_.packed_frame_blocks(sms, (K + 15) / 16, n);
    const unsigned long long rows = (n + count_grid.ty - 1) / count_grid.ty;
    const auto count_blocks = static_cast<unsigned>(
        std::clamp<unsigned long long>(static_cast<unsigned long long>(count_grid.x) * count_grid.y,
                                       1, std::min<unsigned long long>(rows, 65535)));
    count_kernel<<<dim3(1, count_blocks), dim3(count_grid.tx, count_grid.ty), 0, stream_>>>(
        n, K, decoded_.get(), info_.get(), errors_.get());
    GPUFEC_CUDA_CHECK_LAUNCH("count_kernel");
    slot.marks[5].record(stream_);
    GPUFEC_CUDA_CHECK(cudaMemcpyAsync(slot.errors.data(), errors_.get(),
                                      n * sizeof(errors_.get()[0]), cudaMemcpyDeviceToHost,
                                      stream_));
    slot.landed.record(stream_);
    slot.first = first;
    slot.n = n;
    slot.queued = true;
    return true;
  }

  // Waits for what is queued and forgets it (a call asked for other frames).
  void drop_queued() {
    stream_.synchronize();
    for (step_slot& s : slots_) s.queued = false;
  }

  // The decoder's input of the chain's kind, for n frames from `first`.
  void launch_channel(std::uint64_t first, std::size_t n, const std::uint8_t* coded) {
    const std::size_t N = code_.coded_bits;
    const auto sigma = static_cast<float>(sigma_);
    const float factor = channel::llr_factor(sigma_);
    const auto scale = static_cast<float>(channel::int8_llr_scale(sigma_));
    const auto grid = channel_shape_.packed_frame_blocks(limits_.sm_count, (N + 3) / 4, n);
    const dim3 blocks(grid.x, grid.y), threads(grid.tx, grid.ty);
    void* out = llr_.get();
    if (code_.llr == llr_kind::f32)
      channel_kernel<<<blocks, threads, 0, stream_>>>(seed_, first, N, n, sigma, factor, scale,
                                                      coded, static_cast<float*>(out));
    else if (code_.llr == llr_kind::i8)
      channel_kernel<<<blocks, threads, 0, stream_>>>(seed_, first, N, n, sigma, factor, scale,
                                                      coded, static_cast<std::int8_t*>(out));
    else
      channel_kernel<<<blocks, threads, 0, stream_>>>(seed_, first, N, n, sigma, factor, scale,
                                                      coded, static_cast<std::uint8_t*>(out));
    GPUFEC_CUDA_CHECK_LAUNCH("channel_kernel");
  }

  // The family's device encoder, or its host encoder with the bits copied both ways.
  void encode(std::size_t n) {
    const std::size_t K = code_.info_bits, N = code_.coded_bits;
    if (code_.encode_device) {
      code_.encode_device(
          batch_view<std::uint8_t>::uniform(info_.get(), n, K, memory_space::device),
          batch_span<std::uint8_t>::uniform(coded_.get(), n, N, memory_space::device), stream_);
      return;
    }
    host_info_.resize(n * K);
    host_coded_.resize(n * N);
    GPUFEC_CUDA_CHECK(
        cudaMemcpyAsync(host_info_.data(), info_.get(), n * K, cudaMemcpyDeviceToHost, stream_));
    stream_.synchronize();
    code_.encode(batch_view<std::uint8_t>::uniform(host_info_.data(), n, K),
                 batch_span<std::uint8_t>::uniform(host_coded_.data(), n, N));
    GPUFEC_CUDA_CHECK(
        cudaMemcpyAsync(coded_.get(), host_coded_.data(), n * N, cudaMemcpyHostToDevice, stream_));
  }

  // Steps of at most this much device time are queued ahead.
  static constexpr double kShortStepSeconds = 0.05;

  binary_code code_;
  std::uint64_t seed_;
  double sigma_;
  std::unique_ptr<binary_decoder> decoder_;
  cuda::device_limits limits_;
  cuda::launch_shape source_shape_, channel_shape_, count_shape_;
  cuda::stream stream_;
  step_slot slots_[2];
  bool ahead_ = false;             // the last step was short: queue the next one ahead
  std::uint64_t steps_ahead_ = 0;  // steps queued ahead so far
  double stage_seconds_[4] = {};   // source, encoder, channel, count, summed over the steps
  cuda::device_buffer<std::uint8_t> info_, coded_, decoded_;
  cuda::device_buffer<unsigned char> llr_;          // the decoder's input, of code_.llr's kind
  cuda::device_buffer<unsigned long long> errors_;  // per frame, of the step counted last
  std::vector<std::uint8_t> host_info_, host_coded_;
};

std::unique_ptr<chain> make_cuda_awgn_chain(const binary_code& code, double ebn0_db,
                                            std::uint64_t seed) {
  return std::make_unique<cuda_awgn_chain>(code, ebn0_db, seed);
}

const register_cuda_backend<detail::cuda_awgn_chain_entry> registered{&make_cuda_awgn_chain};

}  // namespace
}  // namespace gpufec::sim
