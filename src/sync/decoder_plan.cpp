// decoder_plan: validates the description, fixes the drift limits and storage, builds the engine.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "gpufec/common/device.hpp"
#include "sync/decoder_engine.hpp"

namespace gpufec::sync {

std::string to_string(storage_mode s) {
  switch (s) {
    case storage_mode::automatic:
      return "auto";
    case storage_mode::global:
      return "global";
    case storage_mode::compact:
      return "compact";
    case storage_mode::local:
      return "local";
  }
  return "?";
}

std::string to_string(fold_kernel k) {
  switch (k) {
    case fold_kernel::automatic:
      return "auto";
    case fold_kernel::items:
      return "items";
    case fold_kernel::frames:
      return "frames";
  }
  return "?";
}
std::string to_string(lattice_mode l) {
  return l == lattice_mode::corridor ? "corridor" : "full";
}
std::string to_string(real_kind r) {
  return r == real_kind::f32 ? "float" : "double";
}

namespace {

void validate_limits(const drift_limits& l, std::int64_t T, const char* what) {
  require(l.lo <= 0 && l.hi >= 0, what, " drift limits [", l.lo, ", ", l.hi, "] must contain 0");
  require(l.lo >= -T, what, " lower drift limit ", l.lo, " is below -T = ", -T,
          " (more deletions than symbols)");
}

detail::geometry make_geometry(const tvb_code& code, const bsid_params& ch,
                               const decoder_options& o) {
  require(std::isfinite(o.Pr) && o.Pr > 0 && o.Pr < 1, "Pr = ", o.Pr, " must lie in (0, 1)");
  detail::geometry g;
  g.q = code.q();
  g.n = code.n();
  g.N = code.N();
  g.alphabet = code.alphabet();
  require(g.alphabet == ch.alphabet, "the code's alphabet (", g.alphabet,
          ") differs from the channel's (", ch.alphabet, ")");
  g.tau = code.tau();
  g.codeword = o.codeword_limits
                   ? *o.codeword_limits
                   : compute_drift_limits(ch, g.n, per_codeword_probability(o.Pr, g.N));
  g.frame = o.frame_limits ? *o.frame_limits : compute_drift_limits(ch, g.tau, o.Pr);
  validate_limits(g.codeword, g.n, "codeword");
  validate_limits(g.frame, g.tau, "frame");
  if (o.frame_limits)
    require(g.frame.lo <= g.codeword.lo && g.frame.hi >= g.codeword.hi, "frame drift limits [",
            g.frame.lo, ", ", g.frame.hi, "] must contain the codeword limits [", g.codeword.lo,
            ", ", g.codeword.hi, "]");
  // The seed paper's condition (III-B e): the frame state space contains every codeword change.
  g.frame.lo = std::min(g.frame.lo, g.codeword.lo);
  g.frame.hi = std::max(g.frame.hi, g.codeword.hi);
  g.M_tau = g.frame.size();
  g.M_n = g.codeword.size();
  g.lattice = o.lattice;
  g.end_known = o.end_known;
  g.ins = ch.Pi / ch.alphabet;
  g.del = ch.Pd;
  g.match = ch.Pt() * (1 - ch.Ps);
  g.mismatch = ch.Pt() * ch.Ps / (ch.alphabet - 1);
  if (!g.end_known) g.end_prior = drift_pmf(ch, g.tau, g.frame.lo, g.frame.hi);
  return g;
}

}  // namespace

std::size_t decoder_plan::memory_estimate(const tvb_code& code, const drift_limits& frame,
                                          const drift_limits& codeword, storage_mode storage,
                                          real_kind lattice_real, std::size_t frames) {
  require(storage != storage_mode::automatic, "memory_estimate needs a storage mode, not auto");
  const std::size_t M = frame.size(), Mn = codeword.size(), N = code.N(), q = code.q();
  const std::size_t rows = storage == storage_mode::global ? N : 1;
  const std::size_t real_bytes = lattice_real == real_kind::f32 ? 4 : 8;
  const std::size_t per_frame = rows * M * Mn * (q * real_bytes + 8)  // gamma and gsum
                                + 2 * (N + 1) * M * 8;                // alpha and beta
  return per_frame * frames;
}

decoder_plan::decoder_plan(const tvb_code& code, const bsid_params& channel,
                           const decoder_options& options, backend where, std::size_t max_batch)
    : code_(code), channel_(channel), options_(options) {
  channel_.validate();
  require(max_batch >= 1, "max_batch = ", max_batch, " must be at least 1");
  const detail::geometry g = make_geometry(code_, channel_, options_);
  summary_.where = resolve_backend(where);
  summary_.frame = g.frame;
  summary_.codeword = g.codeword;
  summary_.max_batch = max_batch;
  summary_.gamma_bytes_per_frame =
      memory_estimate(code_, g.frame, g.codeword, storage_mode::global, options_.lattice_real, 1);

  if (summary_.where == backend::cpu) {
    require(
        options_.fb_real == real_kind::f64,
        "the CPU decoder computes alpha/beta/L in double only (fb_real = float is a CUDA option)");
    // The CPU decodes one frame per thread at a time, so that is what must fit.
    const std::size_t concurrent =
        std::min<std::size_t>(max_batch, static_cast<std::size_t>(omp_get_max_threads()));
    const std::size_t budget =
        options_.memory_budget ? options_.memory_budget : (std::size_t{1} << 30);
    storage_mode s = options_.storage;
    if (s == storage_mode::compact) s = storage_mode::local;  // the CPU keeps one index anyway
    if (s == storage_mode::automatic)
      s = memory_estimate(code_, g.frame, g.codeword, storage_mode::global, options_.lattice_real,
                          concurrent) <= budget
              ? storage_mode::global
              : storage_mode::local;
    summary_.storage = s;
    summary_.memory_bytes =
        memory_estimate(code_, g.frame, g.codeword, s, options_.lattice_real, concurrent);
    engine_ = detail::make_cpu_engine(code_, g, s, options_.lattice_real);
  } else {
    storage_mode s = options_.storage;
    engine_ = detail::make_cuda_engine(code_, g, options_, max_batch, s);
    summary_.storage = s;
    summary_.memory_bytes = engine_->allocated_bytes();
    summary_.kernel_shapes = engine_->kernel_shapes();
  }
}

const decode_timings& decoder_plan::last_timings() const {
  return engine_->timings();
}

void decoder_plan::set_phase_timings(bool on) {
  engine_->set_phase_timings(on);
}

decoder_plan::~decoder_plan() = default;
decoder_plan::decoder_plan(decoder_plan&&) noexcept = default;
decoder_plan& decoder_plan::operator=(decoder_plan&&) noexcept = default;

std::string decoder_plan::describe() const {
  std::ostringstream os;
  const auto& s = summary_;
  os << "sync MAP decoder: q=" << code_.q() << " n=" << code_.n() << " N=" << code_.N()
     << " tau=" << code_.tau() << " | Pi=" << channel_.Pi << " Pd=" << channel_.Pd
     << " Ps=" << channel_.Ps << " Pr=" << options_.Pr << "\n"
     << "  backend " << to_string(s.where) << ", storage " << to_string(s.storage) << ", lattice "
     << to_string(options_.lattice) << " (" << to_string(options_.lattice_real) << "), alpha/beta "
     << to_string(options_.fb_real) << ", frame end " << (options_.end_known ? "known" : "unknown")
     << "\n  drift limits: frame [" << s.frame.lo << ", " << s.frame.hi
     << "] M_tau=" << s.frame.size() << ", codeword [" << s.codeword.lo << ", " << s.codeword.hi
     << "] M_n=" << s.codeword.size() << "\n  gamma per frame (global) " << s.gamma_bytes_per_frame
     << " B, plan memory " << s.memory_bytes << " B for max batch " << s.max_batch << "\n";
  for (const auto& k : s.kernel_shapes) os << "  kernel " << k << "\n";
  return os.str();
}

std::string decoder_plan::check_received_length(std::size_t rho) const {
  const std::int64_t tau = code_.tau();
  const auto& l = summary_.frame;
  const auto r = static_cast<std::int64_t>(rho);
  if (rho == 0) return "the received sequence is empty";
  if (options_.end_known) {
    if (r - tau < l.lo || r - tau > l.hi)
      return cat("received length ", rho, " is outside [tau + m_tau^-, tau + m_tau^+] = [",
                 tau + l.lo, ", ", tau + l.hi, "] (tau = ", tau, ", drift ", r - tau,
                 "); widen the limits with a smaller Pr or check the frame boundaries");
  } else if (r < tau + l.lo) {
    return cat("received length ", rho, " is shorter than tau + m_tau^- = ", tau + l.lo,
               " (tau = ", tau, ")");
  }
  return {};
}

void decoder_plan::decode(batch_view<std::uint8_t> received, decode_output& out,
                          const double* priors) {
  const std::size_t frames = received.frames();
  require(frames <= summary_.max_batch, "batch of ", frames,
          " frames exceeds the plan's max_batch ", summary_.max_batch);
  const int N = code_.N(), q = code_.q(), M = summary_.frame.size();
  if (priors) {
    for (std::size_t k = 0; k < frames * N; ++k) {
      double sum = 0;
      for (int D = 0; D < q; ++D) {
        const double p = priors[k * q + D];
        require(std::isfinite(p) && p >= 0, "prior of frame ", k / N, " symbol ", k % N, " D=", D,
                " is ", p, " (must be finite and >= 0)");
        sum += p;
      }
      require(sum > 0, "priors of frame ", k / N, " symbol ", k % N, " are all zero");
    }
  }
  for (std::size_t f = 0; f < frames; ++f)
    for (std::uint8_t v : received.frame(f))
      require(v < code_.alphabet(), "received symbol ", int(v), " in frame ", f,
              " is outside the channel alphabet (size ", code_.alphabet(), ")");
  out.frames = frames;
  out.N = N;
  out.q = q;
  out.M_tau = M;
  out.m_tau_min = summary_.frame.lo;
  const auto start = std::chrono::steady_clock::now();
  // Sized, not cleared: the engines write every value of a decoded frame, and undecodable frames
  // are zeroed below (a reused decode_output costs no fill per call).
  out.app.resize(frames * N * q);
  out.decisions.resize(frames * N);
  if (options_.drift_posterior)
    out.drift_posterior.resize(frames * (N + 1) * M);
  else
    out.drift_posterior.clear();
  out.decoded.assign(frames, 1);
  out.messages.assign(frames, std::string());
  for (std::size_t f = 0; f < frames; ++f) {
    std::string why = check_received_length(received.length(f));
    if (!why.empty()) {
      out.decoded[f] = 0;
      out.messages[f] = std::move(why);
    }
  }
  engine_->decode(received, priors, out);
  auto zero = [](auto& v, std::size_t f, std::size_t per_frame) {
    if (!v.empty()) std::fill_n(v.begin() + f * per_frame, per_frame, 0);
  };
  for (std::size_t f = 0; f < frames; ++f) {
    if (out.decoded[f]) continue;
    zero(out.app, f, static_cast<std::size_t>(N) * q);
    zero(out.decisions, f, N);
    zero(out.drift_posterior, f, static_cast<std::size_t>(N + 1) * M);
  }
  decode_timings t = engine_->timings();
  t.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  engine_->set_timings(t);
}

decode_output decoder_plan::decode(std::span<const std::uint8_t> received, const double* priors) {
  batch<std::uint8_t> one;
  one.push_back(received);
  decode_output out;
  decode(one.view(), out, priors);
  if (!out.decoded[0]) throw undecodable_error(out.messages[0]);
  return out;
}

}  // namespace gpufec::sync
