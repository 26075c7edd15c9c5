// The Monte Carlo driver: a sweep over points, each simulated by a family's chain until a stopping
// rule fires. Generic over sim::family (family.hpp); it knows nothing of any one code.
//
// Stopping rule, applied frame by frame in frame order: a point ends at the frame where the frame
// errors reach max_fe, or the frames reach max_frames, whichever comes first; frames a batch
// simulated past that frame are ignored. Hence the counts depend only on (seed, point value) and
// the rule, never on batch size, threads, backend or the other points swept. max_time_s (wall
// clock) and an interrupt also end a point, within about a second (chains and decoders check a
// stop_token inside a batch): such points are not reproducible, and say so (stop_reason). A chain
// that fails (an error from the decoder, the device, the memory) ends its point with
// stop_reason::failed and the message, keeping the frames counted so far, and ends the sweep:
// sweep_result::status says whether a sweep ran every point it was asked for.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpufec/sim/family.hpp"
#include "gpufec/sim/stats.hpp"

namespace gpufec::sim {

// Parses a sweep: comma-separated items, each a number or an inclusive range `first:last:step`
// (step > 0, or < 0 for a descending range; `first:last` means step 1). "0:8:1" -> 0, 1, ..., 8;
// "1e-3,1e-2" -> 0.001, 0.01. Throws invalid_argument naming the bad item.
std::vector<double> parse_sweep(std::string_view text);

// The seed of the point of value `point`: a fixed mix (splitmix64) of the run seed and the value's
// bits (with -0 as 0), so points draw independent streams and a point's numbers do not depend on
// which other points are swept, nor in which order.
std::uint64_t point_seed(std::uint64_t seed, double point);

struct stop_rule {
  std::uint64_t max_fe = 100;    // frame errors; 0 = no limit
  std::uint64_t max_frames = 0;  // frames; 0 = no limit
  double max_time_s = 0.0;       // seconds per point; 0 = no limit
};

struct options {
  std::uint64_t seed = 0;
  stop_rule stop;
  std::size_t batch_frames = 0;  // frames per chain::run call; 0 = the chain's preferred batch
  int threads = 0;               // OpenMP threads for CPU chains; 0 = OpenMP's default
};

enum class stop_reason { max_fe, max_frames, max_time, interrupted, failed };
std::string to_string(stop_reason r);

// A sweep as a whole: running (some points still to come: what a report written between points
// says, so a run killed outright leaves a file that says it is not finished), complete (every
// point requested ran to its stopping rule), interrupted (a signal cut a point short; later points
// were not run) or failed (an error ended a point; later points were not run).
enum class run_status { running, complete, interrupted, failed };
std::string to_string(run_status s);

// Counts of one point, fed frame by frame; knows when the stopping rule fires.
class point_counter {
 public:
  point_counter(stop_rule rule, frame_shape shape);
  // Adds outcomes in frame order until the rule fires; returns how many it took.
  std::size_t add(std::span<const frame_outcome> outcomes);
  bool done() const { return done_; }

  std::uint64_t frames = 0, frame_errors = 0, bit_errors = 0, symbol_errors = 0, undecodable = 0;

 private:
  stop_rule rule_;
  frame_shape shape_;
  bool done_ = false;
};

struct point_result {
  std::size_t index = 0;
  double point = 0.0;
  std::uint64_t seed = 0;  // point_seed(options.seed, point)
  frame_shape shape;
  std::uint64_t frames = 0, frame_errors = 0, bit_errors = 0, symbol_errors = 0, undecodable = 0;
  std::uint64_t simulated_frames = 0;  // frames the chain ran, including those past the stop
  double ber = 0, fer = 0, ser = 0;
  interval ber_ci, fer_ci, ser_ci;  // Wilson 95%
  double decoder_seconds = 0;       // sum of the decoder times the chain reported
  double chain_seconds = 0;         // wall time inside chain::run
  double wall_seconds = 0;          // whole point, chain construction included
  double decoder_mbps = 0;          // simulated information bits / decoder_seconds / 1e6
  double chain_mbps = 0;            // simulated information bits / chain_seconds / 1e6
  stop_reason reason = stop_reason::max_fe;
  std::string error;  // stop_reason::failed: what failed
  fields details;
  // Rates exist only for a point that counted frames (one cut short before its first frame has
  // none: its BER, FER and SER are undefined, never 0).
  bool has_rates() const { return frames > 0; }
  bool has_ber() const { return has_rates() && shape.has_ber(); }
};

// Live counts while a point runs (for a progress line).
struct progress {
  std::size_t index = 0, points = 0;  // this point and the sweep's number of points
  double point = 0.0;
  std::uint64_t frames = 0, frame_errors = 0, bit_errors = 0;
  double seconds = 0.0;
  double frames_per_second = 0.0;
  // Seconds until the first stopping rule is expected to fire (from the rates so far); negative
  // when no estimate exists yet (no frame error for a rule on errors alone).
  double seconds_left = -1.0;
};

// Receives the sweep as it happens; every method has a no-op default.
class observer {
 public:
  virtual ~observer() = default;
  virtual void on_progress(const progress&) {}
  virtual void on_point(const point_result&) {}
};

struct sweep_result {
  std::vector<point_result> points;  // the points run, in sweep order (the last may be cut short)
  run_status status = run_status::running;
  std::string error;  // run_status::failed: the failing point's message
  bool interrupted() const { return status == run_status::interrupted; }
};

// Simulates one point. `interrupt` (may be null) ends it within about a second when set. Invalid
// options throw invalid_argument before any work; a chain that cannot be made or fails while it
// runs gives a result with stop_reason::failed (see above). `made`: the point's chain, when the
// caller already has it.
point_result run_point(const family& fam, double point, std::size_t index, const options& opt,
                       const std::atomic<bool>* interrupt = nullptr, observer* obs = nullptr,
                       std::size_t points = 1, std::unique_ptr<chain> made = nullptr);
// Simulates every point in order; an interrupt ends the current point and the sweep, and so does a
// failed point. `first_chain`, when given, is the chain already made for points[0] (a caller that
// made it to check its memory before any output), used instead of a second one.
sweep_result run_sweep(const family& fam, std::span<const double> points, const options& opt,
                       observer* obs = nullptr, const std::atomic<bool>* interrupt = nullptr,
                       std::unique_ptr<chain> first_chain = nullptr);

}  // namespace gpufec::sim
