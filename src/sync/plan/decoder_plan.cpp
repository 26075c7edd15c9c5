// decoder_plan: validates the description, fixes the drift limits, plans storage (and on CUDA
// chunk and kernel shapes), builds the engine that executes the plan.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "common/backend_registry.hpp"
#include "gpufec/common/device.hpp"
#include "sync/plan/cuda_backend.hpp"
#include "sync/plan/engine.hpp"

namespace gpufec::sync {

std::size_t decoder_plan::memory_estimate(const tvb_code& code, const drift_limits& frame,
                                          const drift_limits& codeword, storage_mode storage,
                                          real_kind lattice_real, std::size_t frames,
                                          backend where) {
  return detail::bytes_per_frame(detail::sizes_of(code, frame, codeword), storage, lattice_real,
                                 where) *
         frames;
}

namespace {

// The CPU keeps one frame per thread in flight: the storage mode is its only choice.
storage_mode plan_cpu_storage(const detail::geometry& g, const decoder_options& o,
                              std::size_t concurrent) {
  storage_mode s = o.storage;
  if (s == storage_mode::compact) s = storage_mode::local;  // the CPU keeps one index anyway
  const std::size_t budget = o.memory_budget ? o.memory_budget : (std::size_t{1} << 30);
  if (s == storage_mode::automatic)
    s = detail::bytes_per_frame(g, storage_mode::global, o.lattice_real, backend::cpu) *
                    concurrent <=
                budget
            ? storage_mode::global
            : storage_mode::local;
  return s;
}

}  // namespace

backend_choice choose_backend(const tvb_code& code, const decoder_options&, backend where) {
  if (where == backend::automatic && code.alphabet() != 2)
    return {backend::cpu,
            cat("the CUDA decoder is binary; the code's alphabet is ", code.alphabet())};
  return choose_device_backend(where);
}

decoder_plan::decoder_plan(const tvb_code& code, const bsid_params& channel,
                           const decoder_options& options, backend where, std::size_t max_batch)
    : code_(code), channel_(channel), options_(options) {
  channel_.validate();
  require(max_batch >= 1, "max_batch = ", max_batch, " must be at least 1");
  const detail::geometry g = detail::make_geometry(code_, channel_, options_);
  const backend_choice choice = choose_backend(code_, options_, where);
  summary_.where = resolve_backend(choice.where);
  summary_.backend_reason = choice.reason;
  summary_.frame = g.frame;
  summary_.codeword = g.codeword;
  summary_.max_batch = max_batch;
  summary_.gamma_bytes_per_frame =
      detail::bytes_per_frame(g, storage_mode::global, options_.lattice_real, backend::cpu);

  if (summary_.where == backend::cpu) {
    const std::size_t concurrent =
        std::min<std::size_t>(max_batch, static_cast<std::size_t>(omp_get_max_threads()));
    summary_.storage = plan_cpu_storage(g, options_, concurrent);
    summary_.memory_bytes =
        detail::bytes_per_frame(g, summary_.storage, options_.lattice_real, backend::cpu) *
        concurrent;
    summary_.chunk = concurrent;
    summary_.preferred_batch = concurrent;
    // Checked before any allocation: a plan that cannot fit says so, with the ways out.
    if (const std::size_t available = available_host_memory(); summary_.memory_bytes > available) {
      const std::size_t local =
          detail::bytes_per_frame(g, storage_mode::local, options_.lattice_real, backend::cpu);
      std::string ways;
      if (summary_.storage == storage_mode::global)
        ways += cat("; local storage (--storage local) needs ", bytes_text(local * concurrent));
      if (concurrent > 1)
        ways += cat("; one frame at a time (--threads 1) needs ",
                    bytes_text(summary_.memory_bytes / concurrent));
      if (local > available)
        ways += "; shorter frames (a smaller N) or a smaller Pr-driven state space";
      throw out_of_memory(cat("the CPU sync decoder needs ", bytes_text(summary_.memory_bytes),
                              " (", to_string(summary_.storage), " storage, ", concurrent,
                              " frame(s) at once) but ", bytes_text(available),
                              " of memory is available", ways));
    }
    engine_ = detail::make_cpu_engine(code_, g, summary_.storage, options_.lattice_real);
    return;
  }
  // CUDA: the plan chooses storage, chunk and shapes; the engine allocates what it chose. An
  // allocation can still fail (fragmentation, other processes): then plan a chunk half as large,
  // and once down to one frame the next leaner storage (compact, then local) when the storage was
  // left to the plan.
  const detail::cuda_backend* cuda =
      cuda_factory<detail::cuda_backend_entry>("the CUDA sync decoder");
  detail::cuda_plan_request request{options_.storage, 0, false};
  detail::cuda_plan plan = cuda->plan(g, options_, max_batch, request);
  for (;;) {
    try {
      engine_ = cuda->engine(code_, g, plan);
      break;
    } catch (const out_of_memory&) {
      if (plan.chunk > 1) {
        request = {plan.storage, plan.chunk / 2, false};
      } else if (plan.storage_automatic && plan.storage != storage_mode::local) {
        request = {
            plan.storage == storage_mode::global ? storage_mode::compact : storage_mode::local, 0,
            true};
      } else {
        throw;
      }
      plan = cuda->plan(g, options_, max_batch, request);
    }
  }
  summary_.storage = plan.storage;
  summary_.chunk = plan.chunk;
  summary_.preferred_batch = plan.chunk;
  summary_.memory_bytes = engine_->allocated_bytes();
  summary_.kernel_shapes = plan.describe(summary_.memory_bytes);
}

void decoder_plan::decode(batch_view<std::uint8_t> received, const device_outputs& out,
                          cuda_stream stream, const double* priors) {
  require(summary_.where == backend::cuda,
          "the device path (decode with a stream) needs a CUDA plan (this one is ",
          to_string(summary_.where), ")");
  require(received.on_device(), "the device path: the received frames must be a device view");
  require(received.frames() <= summary_.max_batch, "batch of ", received.frames(),
          " frames exceeds the plan's max_batch ", summary_.max_batch);
  require(out.decisions && out.status, "the device path: decisions and status are required");
  require(!out.drift_posterior || options_.drift_posterior,
          "the device path: a drift posterior was asked for, but the plan's options do not compute "
          "it (decoder_options::drift_posterior)");
  if (received.frames() == 0) return;
  engine_->decode_device(received, out, stream, priors);
}

void detail::decoder_engine::decode_device(batch_view<std::uint8_t>, const device_outputs&,
                                           cuda_stream, const double*) {
  throw invalid_argument("this decoder has no device path");
}

std::string to_string(frame_status s) {
  switch (s) {
    case frame_status::decoded:
      return "decoded";
    case frame_status::rejected:
      return "not decodable (received length or symbols)";
    case frame_status::zero_forward:
      return "the received sequence has zero probability under the channel model (forward pass)";
    case frame_status::no_end:
      return "no frame end within the drift limits";
    case frame_status::zero_backward:
      return "the received sequence has zero probability under the channel model (backward pass)";
    case frame_status::zero_app:
      return "the received sequence has zero probability under the channel model (APP)";
  }
  return "unknown status";
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
     << "  backend " << to_string(s.where)
     << (s.backend_reason.empty() ? "" : " (auto: " + s.backend_reason + ")") << ", storage "
     << to_string(s.storage) << ", lattice " << to_string(options_.lattice) << " ("
     << to_string(options_.lattice_real) << "), alpha/beta double, frame end "
     << (options_.end_known ? "known" : "unknown") << "\n  drift limits: frame [" << s.frame.lo
     << ", " << s.frame.hi << "] M_tau=" << s.frame.size() << ", codeword [" << s.codeword.lo
     << ", " << s.codeword.hi << "] M_n=" << s.codeword.size() << "\n  gamma per frame (global) "
     << s.gamma_bytes_per_frame << " B, plan memory " << s.memory_bytes << " B for max batch "
     << s.max_batch << ", preferred batch " << s.preferred_batch << "\n";
  for (const auto& k : s.kernel_shapes) os << "  kernel " << k << "\n";
  return os.str();
}

namespace {

// What to do about a received length outside the limits: a smaller Pr only when it would help,
// i.e. when the channel can produce that drift at a probability a Pr can go below.
std::string length_hint(const bsid_params& channel, std::int64_t tau, std::int64_t drift) {
  const double log10_p =
      drift < -tau ? -INFINITY : log_drift_pmf(channel, tau, drift) / std::log(10.0);
  if (!std::isfinite(log10_p))
    return cat("this channel cannot ", drift > 0 ? "insert" : "delete", " ",
               drift > 0 ? drift : -drift, " symbols in a frame of ", tau,
               drift > 0 ? " (Pi = 0)" : " (Pd = 0, or more deletions than symbols)",
               ": check the frame boundaries and the channel");
  if (log10_p < -300)
    return cat("a drift of ", drift, " has probability about 1e", std::floor(log10_p),
               ", below any Pr: check the frame boundaries and the channel");
  return cat("a drift of ", drift, " has probability about 1e", std::floor(log10_p),
             ": a Pr below that widens the limits to it; else check the frame boundaries");
}

}  // namespace

std::string decoder_plan::check_received_length(std::size_t rho) const {
  const std::int64_t tau = code_.tau();
  const auto& l = summary_.frame;
  const auto r = static_cast<std::int64_t>(rho);
  if (rho == 0) return "the received sequence is empty";
  if (options_.end_known) {
    if (r - tau < l.lo || r - tau > l.hi)
      return cat("received length ", rho, " is outside [tau + m_tau^-, tau + m_tau^+] = [",
                 tau + l.lo, ", ", tau + l.hi, "] (tau = ", tau, ", drift ", r - tau, "); ",
                 length_hint(channel_, tau, r - tau));
  } else if (r < tau + l.lo) {
    return cat("received length ", rho, " is shorter than tau + m_tau^- = ", tau + l.lo,
               " (tau = ", tau, "); ", length_hint(channel_, tau, r - tau));
  }
  return {};
}

void decoder_plan::decode(batch_view<std::uint8_t> received, decode_output& out,
                          const double* priors, const stop_token& stop) {
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
  engine_->decode(received, priors, out, stop);
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
