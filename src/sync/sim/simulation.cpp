#include "gpufec/sync/simulation.hpp"

#include <omp.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/backend_registry.hpp"
#include "sync/sim/cuda_chain.hpp"

namespace gpufec::sync {

bsid_params channel_at(const sim_setup& s, double p) {
  bsid_params ch{s.Pi.value_or(p), s.Pd.value_or(p), s.Ps, s.code.alphabet()};
  ch.validate();
  return ch;
}

int bits_per_symbol(int q) {
  return std::has_single_bit(static_cast<unsigned>(q)) ? std::countr_zero(static_cast<unsigned>(q))
                                                       : 0;
}

namespace detail {

// Information bits: N log2 q, whole bits when q is a power of two (then BER is defined), else
// rounded down and used for throughput only (no BER: a symbol carries no whole bits).
sim::frame_shape chain_shape(const tvb_code& code) {
  const int bps = bits_per_symbol(code.q());
  const auto N = static_cast<std::uint64_t>(code.N());
  const auto bits = bps ? N * bps
                        : static_cast<std::uint64_t>(std::floor(
                              static_cast<double>(N) * std::log2(static_cast<double>(code.q()))));
  return {bits, N, bps, true};
}

sim::fields plan_details(const decoder_plan& plan) {
  const auto& s = plan.summary();
  return {{"M_tau", s.frame.size()},
          {"M_n", s.codeword.size()},
          {"m_tau", nlohmann::json::array({s.frame.lo, s.frame.hi})},
          {"m_n", nlohmann::json::array({s.codeword.lo, s.codeword.hi})},
          {"storage", to_string(s.storage)},
          {"gamma_MiB_per_frame", static_cast<double>(s.gamma_bytes_per_frame) / (1 << 20)},
          {"plan_MiB", static_cast<double>(s.memory_bytes) / (1 << 20)},
          {"plan_max_batch", s.max_batch}};
}

}  // namespace detail

namespace {

class cpu_chain final : public sim::chain {
 public:
  cpu_chain(const sim_setup& s, const bsid_params& ch, std::uint64_t seed)
      : setup_(s),
        channel_(ch),
        seed_(seed),
        plan_(s.code, ch, s.options, backend::cpu, batch_limit()),
        capacity_(static_cast<std::size_t>(s.code.tau() + plan_.summary().frame.hi + 1)) {}

  sim::frame_shape shape() const override { return detail::chain_shape(setup_.code); }
  std::size_t preferred_batch() const override { return batch_limit(); }
  sim::fields details() const override { return detail::plan_details(plan_); }

  double run(std::uint64_t first, std::vector<sim::frame_outcome>& outcomes,
             const stop_token& stop) override {
    const auto& code = setup_.code;
    const int N = code.N();
    const std::size_t count = outcomes.size();
    for (std::size_t begin = 0; begin < count; begin += batch_limit()) {
      if (begin > 0 && stop.requested()) {
        outcomes.resize(begin);
        break;
      }
      const std::size_t n = std::min(batch_limit(), count - begin);
      messages_.resize(n * N);
      received_.assign(n * capacity_, 0);
      lengths_.assign(n, 0);
      frames_x_.resize(static_cast<std::size_t>(omp_get_max_threads()) * code.tau());
#pragma omp parallel for schedule(dynamic, 1)
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
        std::uint8_t* x =
            frames_x_.data() + static_cast<std::size_t>(omp_get_thread_num()) * code.tau();
        const std::size_t rho =
            draw_frame(code, channel_, seed_, first + begin + k, messages_.data() + k * N, x,
                       received_.data() + k * capacity_, capacity_);
        lengths_[k] = rho <= capacity_ ? rho : 0;  // too long: undecodable (empty frame)
      }
      batch_.clear();
      for (std::size_t k = 0; k < n; ++k)
        batch_.push_back(
            std::span<const std::uint8_t>(received_.data() + k * capacity_, lengths_[k]));
      const auto t0 = std::chrono::steady_clock::now();
      try {
        plan_.decode(batch_.view(), out_, nullptr, stop);  // a long frame checks `stop` inside
      } catch (const stopped&) {
        outcomes.resize(begin);
        break;
      }
      seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      for (std::size_t k = 0; k < n; ++k)
        outcomes[begin + k] = detail::score_frame(out_.frame_decisions(k), messages_.data() + k * N,
                                                  N, bits_per_symbol(code.q()), out_.decoded[k]);
    }
    const double s = seconds_;
    seconds_ = 0;
    return s;
  }

 private:
  std::size_t batch_limit() const {
    return static_cast<std::size_t>(4 * omp_get_max_threads());
  }

  const sim_setup& setup_;
  bsid_params channel_;
  std::uint64_t seed_;
  decoder_plan plan_;
  std::size_t capacity_;
  std::vector<std::uint32_t> messages_;
  std::vector<std::uint8_t> received_;
  std::vector<std::uint8_t> frames_x_;  // one encoded frame per thread
  std::vector<std::size_t> lengths_;
  batch<std::uint8_t> batch_;
  decode_output out_;
  double seconds_ = 0;
};

}  // namespace

sim_family::sim_family(sim_setup setup) : setup_(std::move(setup)) {}

std::string sim_family::backend() const {
  return to_string(
      resolve_backend(choose_backend(setup_.code, setup_.options, setup_.where).where));
}

sim::fields sim_family::parameters() const {
  const auto& c = setup_.code;
  const auto& o = setup_.options;
  const code_source& src = setup_.source;
  auto fixed = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json("p");
  };
  char fingerprint[17];
  std::snprintf(fingerprint, sizeof fingerprint, "%016llx",
                static_cast<unsigned long long>(src.fingerprint));
  const bool seeded = src.codebook == "random" || src.marker == "random";
  return {{"q", c.q()},
          {"n", c.n()},
          {"N", c.N()},
          {"codebook", src.codebook},
          {"codebook_fnv1a64", src.codebook == "random" ? nlohmann::json() : fingerprint},
          {"codebooks", c.codebook_count()},
          {"codebook_seed", seeded ? nlohmann::json(src.seed) : nlohmann::json()},
          {"marker", src.marker},
          {"Pi", fixed(setup_.Pi)},
          {"Pd", fixed(setup_.Pd)},
          {"Ps", setup_.Ps},
          {"Pr", o.Pr},
          // What runs: the CPU keeps one index's gamma at a time, so compact runs as local there
          // (each point's plan details say what automatic chose).
          {"storage",
           resolve_backend(choose_backend(setup_.code, setup_.options, setup_.where).where) ==
                       backend::cpu &&
                   o.storage == storage_mode::compact
               ? to_string(storage_mode::local)
               : to_string(o.storage)},
          {"lattice", to_string(o.lattice)},
          {"lattice_real", to_string(o.lattice_real)},
          {"frame_end", o.end_known ? "known" : "unknown"}};
}

std::unique_ptr<sim::chain> sim_family::make_chain(double point, std::uint64_t seed) const {
  const bsid_params ch = channel_at(setup_, point);
  if (resolve_backend(choose_backend(setup_.code, setup_.options, setup_.where).where) ==
      backend::cuda)
    return cuda_factory<detail::cuda_chain_entry>("the CUDA sync simulation")(setup_, ch, seed);
  return std::make_unique<cpu_chain>(setup_, ch, seed);
}

}  // namespace gpufec::sync
