// decoder_plan's device path (frames and outputs in device memory, the caller's stream) against
// decode() from host memory: the same digits, frame by frame, for ragged and padded views, with
// priors, over several chunks, with frames rejected for their length or a foreign symbol.
#include <cuda_runtime.h>

#include "common/cuda/device_buffer.cuh"
#include "common/cuda/stream.cuh"
#include "sync/cuda/cuda_test_util.hpp"

namespace gpufec::sync {
namespace {

using namespace testing;

struct device_result {
  std::vector<std::uint32_t> decisions;
  std::vector<std::int32_t> status;
  std::vector<double> app, drift;
};

template <class T>
std::vector<T> download(const cuda::device_buffer<T>& b) {
  std::vector<T> out(b.size());
  GPUFEC_CUDA_CHECK(cudaMemcpy(out.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

// The frames as a device view: ragged (offsets) or padded (a stride and lengths).
device_result decode_on_device(decoder_plan& plan, const batch<std::uint8_t>& frames, bool padded,
                               const std::vector<double>* priors) {
  const std::size_t n = frames.frames(), N = plan.code().N(), q = plan.code().q();
  const std::size_t M = plan.summary().frame.size();
  cuda::device_buffer<std::uint8_t> y;
  cuda::device_buffer<std::size_t> index;  // offsets or lengths
  batch_view<std::uint8_t> view;
  if (padded) {
    std::size_t stride = 0;
    for (std::size_t f = 0; f < n; ++f) stride = std::max(stride, frames.length(f));
    std::vector<std::uint8_t> host(n * stride, 7);  // junk past each frame's end
    std::vector<std::size_t> lengths(n);
    for (std::size_t f = 0; f < n; ++f) {
      std::copy(frames.frame(f).begin(), frames.frame(f).end(), host.begin() + f * stride);
      lengths[f] = frames.length(f);
    }
    y.resize(host.size());
    y.upload(host.data(), host.size());
    index.resize(n);
    index.upload(lengths.data(), n);
    view = batch_view<std::uint8_t>::padded(y.get(), index.get(), n, stride, memory_space::device);
  } else {
    y.resize(frames.size());
    y.upload(frames.data().data(), frames.size());
    index.resize(n + 1);
    index.upload(frames.offsets().data(), n + 1);
    view = batch_view<std::uint8_t>::ragged(y.get(), index.get(), n, memory_space::device);
  }
  cuda::device_buffer<std::uint32_t> decisions(n * N);
  cuda::device_buffer<std::int32_t> status(n);
  cuda::device_buffer<double> app(n * N * q), drift(n * (N + 1) * M), device_priors;
  if (priors) {
    device_priors.resize(priors->size());
    device_priors.upload(priors->data(), priors->size());
  }
  cuda::stream stream(0);
  plan.decode(view, device_outputs{decisions.get(), status.get(), app.get(), drift.get()}, stream,
              priors ? device_priors.get() : nullptr);
  stream.synchronize();
  return {download(decisions), download(status), download(app), download(drift)};
}

TEST(SyncCudaDevicePath, SameDigitsAsTheHostPath) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.01, 0.01, 0.002};
  const tvb_code code = tvb_code::random(32, 10, 40, 21);
  const auto data = testing::make_frames(code, ch, 3, 70);
  const batch<std::uint8_t> in = with_bad_frames(data.received, 9, std::nullopt);
  const std::vector<double> priors = random_priors(code, in.frames(), 5);
  for (const bool chunks : {false, true}) {
    decoder_options o;
    if (chunks) {  // chunks of about 16 frames: the device path loops over them
      const plan_summary limits = decoder_plan(code, ch, o).summary();
      o.storage = storage_mode::global;
      o.memory_budget =
          decoder_plan::memory_estimate(code, limits.frame, limits.codeword, storage_mode::global,
                                        real_kind::f32, 16, backend::cuda);
    }
    decoder_plan plan(code, ch, o, backend::cuda, in.frames());
    for (const bool padded : {false, true})
      for (const std::vector<double>* pr :
           {static_cast<const std::vector<double>*>(nullptr), &priors}) {
        const std::string what =
            cat(chunks ? "chunks" : "one chunk", padded ? ", padded" : ", ragged",
                pr ? ", priors" : "", "\n", plan.describe());
        decode_output host;
        plan.decode(in.view(), host, pr ? pr->data() : nullptr);
        const device_result dev = decode_on_device(plan, in, padded, pr);
        EXPECT_EQ(dev.decisions, host.decisions) << what;
        EXPECT_EQ(dev.app, host.app) << what;
        ASSERT_EQ(dev.status.size(), host.decoded.size());
        for (std::size_t f = 0; f < host.decoded.size(); ++f) {
          EXPECT_EQ(dev.status[f] == 0, host.decoded[f] == 1) << what << " frame " << f;
          if (!host.decoded[f]) continue;
          const std::size_t per = host.drift_posterior.size() / host.frames;
          EXPECT_TRUE(std::equal(host.drift_posterior.begin() + f * per,
                                 host.drift_posterior.begin() + (f + 1) * per,
                                 dev.drift.begin() + f * per))
              << what << " frame " << f;
        }
        EXPECT_EQ(dev.status[9], static_cast<std::int32_t>(frame_status::rejected)) << what;
      }
  }
}

TEST(SyncCudaDevicePath, AForeignSymbolRejectsItsFrameOnly) {
  SKIP_WITHOUT_GPU();
  const bsid_params ch{0.01, 0.01, 0};
  const tvb_code code = tvb_code::random(32, 10, 20, 4);
  auto data = testing::make_frames(code, ch, 8, 4);
  batch<std::uint8_t> bad;
  for (std::size_t f = 0; f < 4; ++f) {
    std::vector<std::uint8_t> frame(data.received.frame(f).begin(), data.received.frame(f).end());
    if (f == 2) frame[5] = 2;  // not a binary symbol
    bad.push_back(frame);
  }
  decoder_plan plan(code, ch, {}, backend::cuda, 4);
  const device_result dev = decode_on_device(plan, bad, false, nullptr);
  decode_output host;
  plan.decode(data.received.view(), host);
  EXPECT_EQ(dev.status[2], static_cast<std::int32_t>(frame_status::rejected));
  for (std::size_t f : {0, 1, 3}) {
    EXPECT_EQ(dev.status[f], 0) << f;
    EXPECT_TRUE(std::equal(dev.decisions.begin() + f * 20, dev.decisions.begin() + (f + 1) * 20,
                           host.decisions.begin() + f * 20))
        << f;
  }
  // A CPU plan has no device path; the views must be device views.
  decoder_plan cpu(code, ch, {}, backend::cpu, 4);
  EXPECT_THROW(cpu.decode(bad.view(), device_outputs{}, nullptr), invalid_argument);
  EXPECT_THROW(plan.decode(bad.view(), device_outputs{}, nullptr), invalid_argument);
}

}  // namespace
}  // namespace gpufec::sync
