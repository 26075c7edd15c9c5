// The simulator's view of a code family: a chain (source -> encoder -> channel -> decoder -> error
// counter) for one point of a sweep. The simulator knows nothing of any one code; each family
// implements this small interface.
//
// Determinism contract: frame f's source, channel and therefore outcome are functions of
// (seed, point index, f) only. Chains report one outcome per frame, and the simulator applies the
// stopping rule frame by frame in frame order, so results do not depend on the batch size, the
// thread count or the backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gpufec/sim/outcome.hpp"

namespace gpufec::sim {

// Sizes that are the same for every frame of a chain.
struct frame_shape {
  std::uint64_t info_bits = 0;  // information bits per frame (may be fractional per symbol: use
                                // log2(q) * N rounded down for throughput, exact counts for BER)
  std::uint64_t symbols = 0;    // message symbols per frame
  int bits_per_symbol = 1;      // log2(q) when q is a power of two, else 0 (no per-bit mapping)
  bool q_ary = false;           // report SER
};

class chain {
 public:
  virtual ~chain() = default;
  virtual frame_shape shape() const = 0;
  // Simulates frames [first_frame, first_frame + outcomes.size()) and fills `outcomes` in frame
  // order. Returns the decoder's own time in seconds for the batch (not source or channel).
  virtual double run(std::uint64_t first_frame, std::vector<frame_outcome>& outcomes) = 0;
  // Frames per call that keep this chain's backend busy; a hint, never affects results.
  virtual std::size_t preferred_batch() const = 0;
  // Per-point facts worth a column or a JSON field (e.g. state-space sizes, memory).
  virtual std::vector<std::pair<std::string, std::string>> details() const { return {}; }
};

class family {
 public:
  virtual ~family() = default;
  virtual std::string name() const = 0;        // "uncoded", "sync", ...
  virtual std::string sweep_name() const = 0;  // column header: "Eb/N0", "p", ...
  virtual std::string backend() const = 0;     // "cpu" or "cuda"
  // Every parameter of the family as key/value pairs, for the JSON/CSV output and the header.
  virtual std::vector<std::pair<std::string, std::string>> parameters() const = 0;
  // The chain for sweep value `point`, drawing randomness from `seed` (already mixed with the point
  // index by the simulator).
  virtual std::unique_ptr<chain> make_chain(double point, std::uint64_t seed) const = 0;
};

}  // namespace gpufec::sim
