#include "gpufec/sim/simulator.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <new>

#include "gpufec/common/device.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::sim {

std::string to_string(stop_reason r) {
  switch (r) {
    case stop_reason::max_fe:
      return "max-fe";
    case stop_reason::max_frames:
      return "max-frames";
    case stop_reason::max_time:
      return "max-time";
    case stop_reason::interrupted:
      return "interrupted";
    case stop_reason::failed:
      return "failed";
  }
  return "unknown";
}

std::string to_string(run_status s) {
  switch (s) {
    case run_status::running:
      return "running";
    case run_status::complete:
      return "complete";
    case run_status::interrupted:
      return "interrupted";
    case run_status::failed:
      return "failed";
  }
  return "unknown";
}

point_counter::point_counter(stop_rule rule, frame_shape shape) : rule_(rule), shape_(shape) {}

std::size_t point_counter::add(std::span<const frame_outcome> outcomes) {
  std::size_t taken = 0;
  for (const frame_outcome& o : outcomes) {
    if (done_) break;
    ++taken;
    ++frames;
    bit_errors += o.bit_errors;
    symbol_errors += o.symbol_errors;
    if (o.undecodable) ++undecodable;
    if (o.undecodable || o.bit_errors > 0 || o.symbol_errors > 0) ++frame_errors;
    done_ = (rule_.max_fe > 0 && frame_errors >= rule_.max_fe) ||
            (rule_.max_frames > 0 && frames >= rule_.max_frames);
  }
  return taken;
}

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point t0) {
  return std::chrono::duration<double>(steady::now() - t0).count();
}

double rate(std::uint64_t errors, std::uint64_t trials) {
  return trials ? static_cast<double>(errors) / static_cast<double>(trials) : 0.0;
}

void validate(const options& opt) {
  require(opt.stop.max_fe > 0 || opt.stop.max_frames > 0 || opt.stop.max_time_s > 0.0,
          "no stopping rule: set at least one of max-fe, max-frames or max-time");
  require(opt.stop.max_time_s >= 0.0,
          "max-time must not be negative (max-time = ", opt.stop.max_time_s, ")");
  require(opt.threads >= 0, "threads must not be negative (threads = ", opt.threads, ")");
}

// Seconds until the first stopping rule fires, from the rates so far (negative: no estimate).
double seconds_left(const stop_rule& rule, const point_counter& c, double seconds) {
  double left = -1.0;
  auto take = [&](double t) { left = left < 0 ? t : std::min(left, t); };
  if (rule.max_time_s > 0) take(std::max(0.0, rule.max_time_s - seconds));
  if (seconds > 0 && c.frames > 0) {
    const double rate = static_cast<double>(c.frames) / seconds;
    if (rule.max_frames > 0) take(static_cast<double>(rule.max_frames - c.frames) / rate);
    if (rule.max_fe > 0 && c.frame_errors > 0)
      take(static_cast<double>(rule.max_fe - std::min(rule.max_fe, c.frame_errors)) * seconds /
           static_cast<double>(c.frame_errors));
  }
  return left;
}

}  // namespace

namespace {

// The point's figures from its counts (rates and intervals only where frames were counted).
void finish(point_result& r, const point_counter& counter, steady::time_point t0) {
  r.frames = counter.frames;
  r.frame_errors = counter.frame_errors;
  r.bit_errors = counter.bit_errors;
  r.symbol_errors = counter.symbol_errors;
  r.undecodable = counter.undecodable;
  const std::uint64_t bits = r.frames * r.shape.info_bits;
  const std::uint64_t symbols = r.frames * r.shape.symbols;
  r.ber = r.has_ber() ? rate(r.bit_errors, bits) : 0.0;
  r.fer = rate(r.frame_errors, r.frames);
  r.ser = rate(r.symbol_errors, symbols);
  r.ber_ci = wilson_interval(std::min(r.bit_errors, bits), bits);
  r.fer_ci = wilson_interval(r.frame_errors, r.frames);
  r.ser_ci = wilson_interval(std::min(r.symbol_errors, symbols), symbols);
  const double simulated_bits = static_cast<double>(r.simulated_frames * r.shape.info_bits);
  r.decoder_mbps = r.decoder_seconds > 0 ? simulated_bits / r.decoder_seconds / 1e6 : 0.0;
  r.chain_mbps = r.chain_seconds > 0 ? simulated_bits / r.chain_seconds / 1e6 : 0.0;
  r.wall_seconds = seconds_since(t0);
}

std::string message_of(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return "out of memory (a request larger than this machine can hold; ask for smaller frames "
           "or batches)";
  return e.what();
}

}  // namespace

point_result run_point(const family& fam, double point, std::size_t index, const options& opt,
                       const std::atomic<bool>* interrupt, observer* obs, std::size_t points,
                       std::unique_ptr<chain> made) {
  validate(opt);
  if (opt.threads > 0) omp_set_num_threads(opt.threads);
  const auto t0 = steady::now();
  const stop_token stop(interrupt,
                        opt.stop.max_time_s > 0.0
                            ? t0 + std::chrono::duration_cast<steady::duration>(
                                       std::chrono::duration<double>(opt.stop.max_time_s))
                            : steady::time_point::max());
  point_result r;
  r.index = index;
  r.point = point;
  r.seed = point_seed(opt.seed, point);
  point_counter counter(opt.stop, r.shape);
  std::unique_ptr<chain> ch = std::move(made);
  try {
    if (!ch) ch = fam.make_chain(point, r.seed);
    r.shape = ch->shape();
    counter = point_counter(opt.stop, r.shape);
    const std::size_t batch =
        std::max<std::size_t>(1, opt.batch_frames ? opt.batch_frames : ch->preferred_batch());
    require<out_of_memory>(batch <= available_host_memory() / 4 / sizeof(frame_outcome),
                           "a batch of ", batch, " frames needs ",
                           bytes_text(batch * sizeof(frame_outcome)),
                           " for its outcomes alone; ask for a smaller batch (--batch)");
    std::vector<frame_outcome> outcomes;
    std::uint64_t next_frame = 0;
    for (;;) {
      if (counter.done()) {
        r.reason = opt.stop.max_fe > 0 && counter.frame_errors >= opt.stop.max_fe
                       ? stop_reason::max_fe
                       : stop_reason::max_frames;
        break;
      }
      if (interrupt && interrupt->load()) {
        r.reason = stop_reason::interrupted;
        break;
      }
      if (opt.stop.max_time_s > 0.0 && seconds_since(t0) >= opt.stop.max_time_s) {
        r.reason = stop_reason::max_time;
        break;
      }
      // Never run frames the frame limit could not count: saves work, cannot change the counts.
      std::size_t n = batch;
      if (opt.stop.max_frames > 0)
        n = static_cast<std::size_t>(
            std::min<std::uint64_t>(n, opt.stop.max_frames - counter.frames));
      outcomes.resize(n);  // every chain writes each outcome: no need to clear them first
      const auto tc = steady::now();
      r.decoder_seconds += ch->run(next_frame, outcomes, stop);
      r.chain_seconds += seconds_since(tc);
      next_frame += outcomes.size();  // fewer than n when the chain stopped early
      r.simulated_frames += outcomes.size();
      counter.add(outcomes);
      if (obs) {
        const double seconds = seconds_since(t0);
        obs->on_progress({index, points, point, counter.frames, counter.frame_errors,
                          counter.bit_errors, seconds,
                          seconds > 0 ? static_cast<double>(counter.frames) / seconds : 0.0,
                          seconds_left(opt.stop, counter, seconds)});
      }
    }
    r.details = ch->details();  // after the frames: a chain may report what they measured
  } catch (const std::exception& e) {
    r.reason = stop_reason::failed;
    r.error = message_of(e);
  }
  finish(r, counter, t0);
  return r;
}

sweep_result run_sweep(const family& fam, std::span<const double> points, const options& opt,
                       observer* obs, const std::atomic<bool>* interrupt,
                       std::unique_ptr<chain> first_chain) {
  validate(opt);
  sweep_result out;
  out.status = run_status::complete;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (interrupt && interrupt->load()) {
      out.status = run_status::interrupted;
      break;
    }
    out.points.push_back(run_point(fam, points[i], i, opt, interrupt, obs, points.size(),
                                   i == 0 ? std::move(first_chain) : nullptr));
    if (obs) obs->on_point(out.points.back());
    if (out.points.back().reason == stop_reason::interrupted) {
      out.status = run_status::interrupted;
      break;
    }
    if (out.points.back().reason == stop_reason::failed) {
      out.status = run_status::failed;
      out.error = out.points.back().error;
      break;
    }
  }
  return out;
}

}  // namespace gpufec::sim
