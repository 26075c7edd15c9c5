// The polar options that `simulate`, `decode`, `encode`, `info` and `bench polar` share, in one
// place: the code (--N, --K, --construct, --systematic) and the decoder (--decoder, --sc-update,
// --bp-update, --iters, --early-stop, --impl, and for CUDA BP --precision, --cuda-kernel). Single
// values are checked by CLI11 validators (exit 2 before anything runs); combinations (K > N, a BP
// option given to SC, 5g beyond N = 1024) are usage_errors (exit 2); a frozen-set file that cannot
// be read or is malformed is a format_error naming the file (exit 1).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gpufec/polar/decoder.hpp"
#include "gpufec/polar/polar_code.hpp"

namespace gpufec::cli {

struct polar_code_options {
  std::uint32_t N = 1024;
  std::optional<std::uint32_t> K;  // default N / 2
  std::string construct = "5g";
  bool systematic = false;

  const CLI::Option* N_option = nullptr;  // to tell a given --N from its default

  std::uint32_t info_bits() const { return K ? *K : N / 2; }
  // The code (reads a frozen-set file once).
  polar::polar_code code() const;
};
// `systematic`: also add --systematic (info prints the frozen set, which encoding does not change).
void add_code_options(CLI::App& cmd, polar_code_options& o, bool systematic = true);

struct polar_decoder_options {
  std::string decoder = "sc";
  std::string sc_update = "sp";
  std::string bp_update = "lr";
  int iterations = 10;
  bool early_stop = false;
  std::string schedule = "lr-rl";
  std::string implementation = "auto";
  std::string precision = "fp32", cuda_kernel = "auto";  // CUDA BP only
  // The options given on the command line, to refuse those of the other decoder.
  const CLI::Option* sc_update_given = nullptr;
  // --bp-update, --iters, --early-stop, --schedule
  const CLI::Option* bp_options[4] = {nullptr, nullptr, nullptr, nullptr};

  // Hard output; the threads are left to OpenMP (use_threads).
  polar::decoder_options options() const;
};
void add_decoder_options(CLI::App& cmd, polar_decoder_options& o);

// --bp-update: "lr", "sp", "minsum", "scaled" (scale 0.9375) or "scaled:X" with X in (0, 1].
// Throws invalid_argument naming the text.
std::pair<polar::update_rule, float> parse_bp_update(std::string_view text);

// Validators with messages a user reads: a power of two in [2, 2^20]; a --construct value
// (5g, ga:SNR, bhatt:SNR with a finite SNR in [-100, 100] dB, or a file path); a --bp-update value.
CLI::Validator power_of_two_length();
CLI::Validator construction_validator();
CLI::Validator bp_update_validator();

}  // namespace gpufec::cli
