// The simulator's view of a code family: a chain (source -> encoder -> channel -> decoder -> error
// counter) for one point of a sweep. The simulator knows nothing of any one code; each family
// implements this small interface.
//
// Determinism contract: frame f's source, channel and therefore outcome are functions of
// (seed, point value, f) only. Chains report one outcome per frame, and the simulator applies the
// stopping rule frame by frame in frame order, so results do not depend on the batch size, the
// thread count, the backend or the other points of the sweep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/common/stop_token.hpp"
#include "gpufec/sim/outcome.hpp"

namespace gpufec::sim {

// Named values for reports (a family's parameters, a chain's per-point facts): numbers stay
// JSON numbers, text stays text.
using fields = std::vector<std::pair<std::string, nlohmann::json>>;

// Sizes that are the same for every frame of a chain.
struct frame_shape {
  std::uint64_t info_bits = 0;  // information bits per frame (0 when symbols carry no whole bits)
  std::uint64_t symbols = 0;    // message symbols per frame
  int bits_per_symbol = 1;      // log2(q) when q is a power of two, else 0: no BER is defined
  bool q_ary = false;           // report SER
  bool has_ber() const { return bits_per_symbol > 0; }
};

class chain {
 public:
  virtual ~chain() = default;
  virtual frame_shape shape() const = 0;
  // Simulates frames [first_frame, first_frame + outcomes.size()) and fills `outcomes` in frame
  // order. Returns the decoder's own time in seconds for the batch (not source or channel). When
  // `stop` is requested during the call, the chain may end early: it then shrinks `outcomes` to
  // the frames it completed (a prefix), within about a second of the request.
  virtual double run(std::uint64_t first_frame, std::vector<frame_outcome>& outcomes,
                     const stop_token& stop = {}) = 0;
  // Frames per call that keep this chain's backend busy; a hint, never affects results.
  virtual std::size_t preferred_batch() const = 0;
  // Per-point facts worth a column or a JSON field (e.g. state-space sizes, memory, the mean
  // number of iterations an iterative decoder used). Asked for once the point's frames are done.
  virtual fields details() const { return {}; }
};

class family {
 public:
  virtual ~family() = default;
  virtual std::string name() const = 0;        // "uncoded", "sync", ...
  virtual std::string sweep_name() const = 0;  // column header: "Eb/N0", "p", ...
  virtual std::string backend() const = 0;     // "cpu" or "cuda"
  // Every parameter that changes a result, for the header and the JSON/CSV outputs.
  virtual fields parameters() const = 0;
  // Throws invalid_argument naming the value when `point` is not a valid sweep value (p = 1.5),
  // so a command line can refuse it before any work.
  virtual void validate_point(double /*point*/) const {}
  // Of a sweep's points (none empty), the one whose chain needs the most memory: a command line
  // makes its chain before anything runs, so that a sweep that cannot fit fails at once rather
  // than at its last point. Memory does not depend on the point for most families.
  virtual double largest_point(std::span<const double> points) const { return points.front(); }
  // The chain for sweep value `point`, drawing randomness from `seed` (already mixed with the
  // point's value by the simulator).
  virtual std::unique_ptr<chain> make_chain(double point, std::uint64_t seed) const = 0;
};

}  // namespace gpufec::sim
