// The device path's own kernels (decoder_plan::decode with a stream). Staging: a caller's device
// batch of received frames into a chunk's inputs, as decode() stages host frames (one frame every
// `capacity` symbols, zero-padded, its true length in rho and its length check in status), so that
// everything after runs as for host frames. Clearing: the outputs of frames that were not decoded
// are zero, as decode() leaves them.
#pragma once

#include "sync/cuda/kernels/device_geometry.cuh"

namespace gpufec::sync::cuda_detail {

// A device batch view as the kernels read it (ragged: offsets; padded: lengths; else uniform).
struct device_batch {
  const std::uint8_t* data;
  const std::size_t* offsets;
  const std::size_t* lengths;
  std::size_t stride;
  __device__ std::size_t begin_of(long long f) const { return offsets ? offsets[f] : f * stride; }
  __device__ std::size_t length(long long f) const {
    return offsets ? offsets[f + 1] - offsets[f] : lengths ? lengths[f] : stride;
  }
};

// stage_lengths_kernel: a thread per frame f of the chunk (frames first .. first + count of the
// batch): offsets[f] = f * capacity, rho[f] = its length, status[f] = status_ok if the length is
// decodable (decoder_plan::check_received_length's rule), else status_skip.
__global__ void stage_lengths_kernel(device_geometry g, device_batch in, long long first, int count,
                                     long long capacity, long long* offsets, long long* rho,
                                     int* status);

// stage_symbols_kernel: a grid-stride loop over the chunk's count * capacity positions p (frame
// p / capacity, symbol p % capacity): y[p] = the symbol, or 0 past the frame's end; a symbol
// outside the binary alphabet marks its frame status_skip (after stage_lengths_kernel).
__global__ void stage_symbols_kernel(device_batch in, long long first, int count,
                                     long long capacity, std::uint8_t* y, int* status);

// clear_undecodable_kernel: block f per frame of the chunk; a frame whose status is not status_ok
// gets its decisions, APPs (when `app`) and drift posterior (when `lambda`) zeroed by the block.
__global__ void clear_undecodable_kernel(device_geometry g, const int* status,
                                         std::uint32_t* decisions, double* app, double* lambda);

}  // namespace gpufec::sync::cuda_detail
