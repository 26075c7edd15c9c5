// The options that describe a TVB code, its decoder and the BSID channel on the sync command lines
// (simulate, decode, encode), and how they become library values. A codebook file fixes q and n
// (N when it has an N header, a marker or one codebook per position; the marker when it holds
// one): the flags then need not repeat them, and may not contradict them (exit 2, naming both).
#pragma once

#include <optional>
#include <string>

#include "family_registry.hpp"
#include "gpufec/sync/decoder.hpp"
#include "gpufec/sync/simulation.hpp"

namespace gpufec::cli {

enum class sync_marker { none, random };
enum class sync_frame_end { known, unknown };

struct sync_code_options {
  int q = 32, n = 10, N = 210;
  std::string codebook = "random";
  std::uint64_t codebook_seed = 1;
  std::string marker = "none";
  std::string storage = "auto", lattice = "corridor", lattice_real = "float", end = "known";
  double Pr = 1e-10;
  double memory_budget_mib = 0;
  CLI::Option *q_option = nullptr, *n_option = nullptr, *N_option = nullptr,
              *marker_option = nullptr;

  // The code the options describe, and where it came from (for reports). Throws usage_error for
  // flags that contradict a codebook file or ask for q > 2^n, gpufec::error for a bad file.
  sync::tvb_code code(sync::code_source* source = nullptr) const;
  sync::decoder_options decoder() const;
};
void add_code_options(CLI::App& cmd, sync_code_options& o);

struct sync_channel_options {
  std::optional<double> pi, pd;
  double ps = 0;
};
// With a sweep, --pi and --pd default to the swept p; without one (decode) both are required.
void add_channel_options(CLI::App& cmd, sync_channel_options& o, bool sweep);
// Throws usage_error when the fixed probabilities cannot be a channel (Pi + Pd >= 1).
void check_channel(const sync_channel_options& o);

}  // namespace gpufec::cli

template <>
struct gpufec::enum_names<gpufec::cli::sync_marker> {
  using E = cli::sync_marker;
  static constexpr std::array entries{enum_entry{E::none, "none"}, enum_entry{E::random, "random"}};
};
template <>
struct gpufec::enum_names<gpufec::cli::sync_frame_end> {
  using E = cli::sync_frame_end;
  static constexpr std::array entries{enum_entry{E::known, "known"},
                                      enum_entry{E::unknown, "unknown"}};
};
