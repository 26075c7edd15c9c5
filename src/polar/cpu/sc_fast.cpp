// The fast SC decoder: the reference's recursion (sc_reference.cpp) run on W codewords at once, one
// per lane of a Highway vector, replayed from a list of node operations fixed at plan time, with
// two shortcuts over the decoding tree:
// - a rate-0 node (every u frozen) writes beta = 0 without descending: the reference decides every
//   frozen leaf 0 whatever its LLR and never uses those LLRs, so this is exact; a rate-0 left child
//   also skips its f stage and its parent's g becomes a plain add (beta_L = 0);
// - a rate-1 node (no u frozen) writes beta = hard(alpha). The reference reaches the same beta
//   except at ties: by induction on the node size, SC's re-encoded decisions on a rate-1 node are
//   the hard decisions of its LLRs whenever no f or g result is exactly 0 (g = b -+ a keeps the
//   sign of b when |a| < |b| and takes that of -+a otherwise, which f's sign predicts). A zero
//   needs |a| = |b| or an LLR 0 on some path: the tests exclude such inputs and check agreement.
// u^ is then beta_root G_N (G_N is its own inverse), so info bits come from one final transform.
//
// Arithmetic per lane is the reference's (simd_rules-inl.hpp): min-sum decisions are bit-exact;
// the exact f differs from libm's by ulps (Highway's Exp/Log1p), so decisions agree away from ties.
//
// Layout: alpha of depth d (n = N >> d values) at [(2N - 2n) W, (2N - n) W), value i of lane l at
// i W + l; beta: N W floats, sign bit = bit, node (d, o) owns [o W, (o + n) W).

#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "polar/cpu/sc_fast.cpp"
#include "common/simd_target.hpp"
#include "hwy/aligned_allocator.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "polar/cpu/grouped_engine.hpp"
#include "polar/cpu/simd_rules-inl.hpp"

#ifndef GPUFEC_POLAR_SC_FAST_TYPES
#define GPUFEC_POLAR_SC_FAST_TYPES
namespace gpufec::polar::detail {
enum class sc_op_kind : std::uint8_t { f, g, g_after_rate0, rate0, rate1, combine };
struct sc_op {
  sc_op_kind kind;
  std::uint32_t n;       // node size
  std::uint32_t offset;  // first u of the node
};
struct sc_group_args {
  const sc_op* ops;
  std::size_t op_count;
  std::uint32_t N;
  bool min_sum;
  float* alpha;  // alpha[0, N W) holds the channel LLRs on entry
  float* beta;   // on return: u^ (non-systematic) or x^ (systematic) as sign bits
  bool systematic;
};
}  // namespace gpufec::polar::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace gpufec::polar::detail::HWY_NAMESPACE {

std::size_t simd_lanes() {
  return hn::Lanes(float_tag());
}
const char* simd_name() {
  return hwy::TargetName(HWY_TARGET);
}

template <class Rule>
void run_sc_ops(const sc_group_args& a, const Rule& rule) {
  const float_tag d;
  const std::size_t W = hn::Lanes(d), N = a.N;
  auto alpha_of = [&](std::uint32_t n) { return a.alpha + (2 * N - 2 * n) * W; };
  for (std::size_t k = 0; k < a.op_count; ++k) {
    const sc_op op = a.ops[k];
    const std::uint32_t n = op.n, half = n / 2;
    const float* in = alpha_of(n);
    float* child = alpha_of(half);
    float* beta = a.beta + static_cast<std::size_t>(op.offset) * W;
    switch (op.kind) {
      case sc_op_kind::f:
        for (std::uint32_t i = 0; i < half; ++i)
          hn::Store(rule.check(hn::Load(d, in + i * W), hn::Load(d, in + (i + half) * W)), d,
                    child + i * W);
        break;
      case sc_op_kind::g:
        for (std::uint32_t i = 0; i < half; ++i) {
          const float_vec signed_a = hn::Xor(hn::Load(d, in + i * W), hn::Load(d, beta + i * W));
          hn::Store(hn::Add(hn::Load(d, in + (i + half) * W), signed_a), d, child + i * W);
        }
        break;
      case sc_op_kind::g_after_rate0:
        for (std::uint32_t i = 0; i < half; ++i)
          hn::Store(hn::Add(hn::Load(d, in + (i + half) * W), hn::Load(d, in + i * W)), d,
                    child + i * W);
        break;
      case sc_op_kind::rate0:
        for (std::uint32_t i = 0; i < n; ++i) hn::Store(hn::Zero(d), d, beta + i * W);
        break;
      case sc_op_kind::rate1:
        for (std::uint32_t i = 0; i < n; ++i)
          hn::Store(decision_bits(d, rule.hard(hn::Load(d, in + i * W))), d, beta + i * W);
        break;
      case sc_op_kind::combine:
        for (std::uint32_t i = 0; i < half; ++i)
          hn::Store(hn::Xor(hn::Load(d, beta + i * W), hn::Load(d, beta + (i + half) * W)), d,
                    beta + i * W);
        break;
    }
  }
  if (a.systematic) return;
  // u^ = x^ G_N: the butterflies of polar_transform on sign bits.
  for (std::size_t h = 1; h < N; h <<= 1)
    for (std::size_t block = 0; block < N; block += 2 * h)
      for (std::size_t j = block; j < block + h; ++j) {
        float* top = a.beta + j * W;
        hn::Store(hn::Xor(hn::Load(d, top), hn::Load(d, top + h * W)), d, top);
      }
}

void sc_group(const sc_group_args& a) {
  if (a.min_sum)
    run_sc_ops(a, simd_min_sum(1.0f));
  else
    run_sc_ops(a, simd_sum_product(1.0f));
}

}  // namespace gpufec::polar::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gpufec::polar::detail {

HWY_EXPORT(simd_lanes);
HWY_EXPORT(simd_name);
HWY_EXPORT(sc_group);

simd_target fast_simd_target() {
  ::gpufec::detail::apply_simd_cap();  // GPUFEC_SIMD, before the first dispatch
  return {HWY_DYNAMIC_DISPATCH(simd_name)(), HWY_DYNAMIC_DISPATCH(simd_lanes)()};
}

namespace {

// The operation list of the tree below node (n, offset), counting the merged nodes.
void build_ops(const polar_code& code, const std::vector<std::uint32_t>& frozen_before,
               std::uint32_t n, std::uint32_t offset, std::vector<sc_op>& ops,
               plan_summary& summary) {
  auto frozen_in = [&](std::uint32_t o, std::uint32_t size) {
    return frozen_before[o + size] - frozen_before[o];
  };
  const std::uint32_t frozen = frozen_in(offset, n);
  if (frozen == n) {
    ops.push_back({sc_op_kind::rate0, n, offset});
    ++summary.sc_rate0_nodes;
    return;
  }
  if (frozen == 0 || n == 1) {
    ops.push_back({sc_op_kind::rate1, n, offset});
    ++(n == 1 ? summary.sc_leaves : summary.sc_rate1_nodes);
    return;
  }
  const std::uint32_t half = n / 2;
  const bool left_rate0 = frozen_in(offset, half) == half;
  if (left_rate0) {
    ops.push_back({sc_op_kind::rate0, half, offset});
    ++summary.sc_rate0_nodes;
  } else {
    ops.push_back({sc_op_kind::f, n, offset});
    build_ops(code, frozen_before, half, offset, ops, summary);
  }
  ops.push_back({left_rate0 ? sc_op_kind::g_after_rate0 : sc_op_kind::g, n, offset});
  build_ops(code, frozen_before, half, offset + half, ops, summary);
  ops.push_back({sc_op_kind::combine, n, offset});
}

using aligned_floats = hwy::AlignedFreeUniquePtr<float[]>;

class sc_fast final : public grouped_engine<aligned_floats> {
 public:
  sc_fast(const polar_code& code, const decoder_options& options, int threads,
          plan_summary& summary)
      : grouped_engine(code, options, threads, fast_simd_target().lanes,
                       fast_scratch_per_thread(code, options, fast_simd_target().lanes)) {
    std::vector<std::uint32_t> frozen_before(code.N() + 1, 0);
    for (std::uint32_t j = 0; j < code.N(); ++j)
      frozen_before[j + 1] = frozen_before[j] + code.frozen_mask()[j];
    build_ops(code, frozen_before, code.N(), 0, ops_, summary);
    for (int t = 0; t < threads; ++t)
      scratch_.push_back(hwy::AllocateAligned<float>(bytes_per_thread_ / sizeof(float)));
  }

 private:
  bool decode_group(const decode_request& r, std::size_t first, std::size_t active,
                    aligned_floats& scratch) const override {
    const std::size_t W = group_, N = code_.N(), K = code_.K();
    float* alpha = scratch.get();
    float* beta = alpha + 2 * N * W;
    interleave_frames(r, first, active, W, N, alpha, clamp_input);
    sc_group_args args{ops_.data(),
                       ops_.size(),
                       static_cast<std::uint32_t>(N),
                       options_.update == update_rule::min_sum,
                       alpha,
                       beta,
                       code_.systematic()};
    HWY_DYNAMIC_DISPATCH(sc_group)(args);
    const auto& A = code_.info_positions();
    for (std::size_t l = 0; l < active; ++l) {
      std::uint8_t* out = r.info_bits + (first + l) * K;
      for (std::size_t k = 0; k < K; ++k) out[k] = bits_of(beta[A[k] * W + l]) >> 31;
    }
    return true;
  }

  std::vector<sc_op> ops_;
};

}  // namespace

std::unique_ptr<polar_engine> make_sc_fast(const polar_code& code, const decoder_options& options,
                                           int threads, plan_summary& summary) {
  return std::make_unique<sc_fast>(code, options, threads, summary);
}

}  // namespace gpufec::polar::detail
#endif  // HWY_ONCE
