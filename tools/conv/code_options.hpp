// The options that describe a convolutional code, its puncturing and termination, and its decoder
// on the conv command lines (simulate, decode, encode), and how they become library values. Values
// the library refuses (a polynomial wider than K, a pattern with a zero column, a frame too short
// for its tail) are bad command lines: usage_error naming the option, exit status 2.
#pragma once

#include <cstddef>
#include <string>

#include "family_registry.hpp"
#include "gpufec/conv/code.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/puncture.hpp"
#include "gpufec/conv/simulation.hpp"

namespace gpufec::cli {

struct conv_code_options {
  int K = 7;
  std::string polys = "171,133";
  std::string rsc;   // the feedback polynomial, or empty with --rsc alone (the first polynomial)
  std::string rate;  // empty: no puncturing
  std::string term = "zero";
  CLI::Option* rsc_option = nullptr;

  bool recursive() const { return rsc_option && rsc_option->count() > 0; }
  conv::conv_code code() const;
  conv::puncture_pattern pattern(const conv::conv_code& code) const;
};

// --K, --polys, --rsc, --rate and --term; `terms` lists the names --term takes (the terminations,
// and "stream" for decode).
void add_code_options(CLI::App& cmd, conv_code_options& o, std::vector<std::string> terms);

struct conv_decoder_cli_options {
  std::string decoder = "auto";
  std::string metric = "double";
  double llr_scale = 0;
  std::size_t wrap_stages = 0;
  std::string tile;  // f,v1,v2[,f0]; empty: the plan's default
  std::string cuda_kernel = "auto";
  CLI::Option *metric_option = nullptr, *wrap_option = nullptr, *kernel_option = nullptr;

  // The library options for a termination and the backend the command runs on (usage_error for
  // --wrap-stages without tail-biting or with the tiled decoder, for --tile without it or
  // malformed, and for --cuda-kernel on the CPU).
  conv::decoder_options options(conv::termination term, backend where) const;
};
void add_decoder_options(CLI::App& cmd, conv_decoder_cli_options& o);

// The backend a conv command runs on for --backend `backend_name` and the decoder options
// (conv::choose_backend): cpu; cuda, whose decoder is the CUDA tiled decoder; auto, cuda when a
// CUDA device is usable and the decoder can run there (--decoder auto or tiled, and no
// --wrap-stages, which asks for a full-traceback decoder), else cpu. --backend cuda without CUDA
// or a device is backend_unavailable (exit 1: the command line is valid, this machine cannot run
// it); with --decoder reference or fast a usage_error (exit 2).
backend conv_backend(const std::string& backend_name, const conv_decoder_cli_options& d);

}  // namespace gpufec::cli
