// The polar code and decoder options of every polar subcommand (code_options.hpp).
#include "polar/code_options.hpp"

#include <cmath>
#include <cstdlib>

#include "family_registry.hpp"
#include "gpufec/common/error.hpp"

namespace gpufec::cli {

namespace {

constexpr float default_scale = 0.9375f;

// The text of an error thrown by `check`, or empty when it passes.
template <class Check>
std::string failure(Check check) {
  try {
    check();
  } catch (const gpufec::error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

CLI::Validator power_of_two_length() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
        if (text.empty() || text[0] == '-' || text[0] == '+' || end != text.c_str() + text.size())
          return "'" + text + "' is not a non-negative integer";
        if (v < 2 || v > (1u << 20) || (v & (v - 1)) != 0)
          return "must be a power of two in [2, 2^20] = [2, 1048576] (got " + text + ")";
        return {};
      },
      "power of two", "");
}

CLI::Validator construction_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return failure([&] {
          const auto spec = polar::construction_spec::parse(text);
          if (spec.method == polar::construction::bhattacharyya ||
              spec.method == polar::construction::gaussian_approximation)
            require(std::isfinite(spec.design_snr_db) && std::abs(spec.design_snr_db) <= 100,
                    "the design SNR in '", text, "' must be a finite number in [-100, 100] dB");
        });
      },
      "5g|ga:SNR|bhatt:SNR|FILE", "");
}

std::pair<polar::update_rule, float> parse_bp_update(std::string_view text) {
  constexpr std::string_view scaled = "scaled:";
  if (text.substr(0, scaled.size()) != scaled)
    return {parse_name<polar::update_rule>(text, "--bp-update"), default_scale};
  const std::string number(text.substr(scaled.size()));
  char* end = nullptr;
  const double scale = std::strtod(number.c_str(), &end);
  require(!number.empty() && end == number.c_str() + number.size() && std::isfinite(scale) &&
              scale > 0 && scale <= 1,
          "the scale in --bp-update '", text, "' must be a number in (0, 1] (e.g. scaled:0.9375)");
  return {polar::update_rule::scaled_min_sum, static_cast<float>(scale)};
}

CLI::Validator bp_update_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return failure([&] { (void)parse_bp_update(text); });
      },
      "lr|sp|minsum|scaled[:X]", "");
}

void add_code_options(CLI::App& cmd, polar_code_options& o, bool systematic) {
  o.N_option = cmd.add_option("--N", o.N,
                              "code length, a power of two (5g: at most 1024; a frozen-set file "
                              "with an N line gives it)")
                   ->check(power_of_two_length())
                   ->capture_default_str();
  cmd.add_option("--K", o.K,
                 "information bits per codeword, in [1, N] (default N/2; a frozen-set file "
                 "gives it)")
      ->check(unsigned_integer() & at_least(1));
  cmd.add_option("--construct", o.construct,
                 "frozen set: 5g (TS 38.212 sequence), ga:SNR (Gaussian approximation) or "
                 "bhatt:SNR (Bhattacharyya) at a design Eb/N0 in dB, or a frozen-set file "
                 "(as `info polar` writes)")
      ->check(construction_validator())
      ->capture_default_str();
  if (systematic)
    cmd.add_flag("--systematic", o.systematic,
                 "systematic encoding: the information bits appear in the codeword at the "
                 "information positions");
}

polar::polar_code polar_code_options::code() const {
  const auto spec = polar::construction_spec::parse(construct);
  std::uint32_t length = N, K_bits = info_bits();
  if (spec.method == polar::construction::file) {
    // A frozen-set file fixes K (its K line, or its count) and, with an N line, N: options that
    // say otherwise are refused, naming both; omitted, they come from the file.
    const polar::frozen_set_file file = polar::read_frozen_set_file(spec.path);
    if (file.N && N_option && N_option->count() && N != file.N)
      throw usage_error(cat("--N ", N, " contradicts the frozen-set file '", spec.path,
                            "' (N = ", file.N, ", its N line); leave --N out"));
    if (file.N) length = file.N;
    const std::uint32_t implied = file.implied_K(length);
    const std::string from = file.K ? std::string("its K line")
                                    : cat("its ", file.indices.size(), " ", name_of(file.which),
                                          " indices at N = ", length);
    if (K && *K != implied)
      throw usage_error(cat("--K ", *K, " contradicts the frozen-set file '", spec.path,
                            "' (K = ", implied, ", from ", from, "); leave --K out"));
    if (implied < 1)
      throw usage_error(
          cat("the frozen-set file '", spec.path, "' leaves no information bit (", from, ")"));
    K_bits = implied;
  }
  if (K_bits < 1 || K_bits > length)
    throw usage_error(
        cat("--K ", K_bits, " must lie in [1, N] = [1, ", length, "] (--N ", length, ")"));
  if (spec.method == polar::construction::nr5g && length > 1024)
    throw usage_error(cat("--construct 5g is defined for N <= 1024 (--N ", length,
                          "); use ga:SNR, bhatt:SNR or a frozen-set file"));
  const auto encoding = systematic ? polar::encoding::systematic : polar::encoding::non_systematic;
  try {
    return polar::polar_code(length, K_bits, spec, encoding);
  } catch (const format_error&) {
    throw;  // the file's contents: exit 1, naming the file
  } catch (const invalid_argument& e) {
    throw usage_error(cat("--construct ", construct, ": ", e.what()));
  }
}

void add_decoder_options(CLI::App& cmd, polar_decoder_options& o) {
  cmd.add_option("--decoder", o.decoder, "sc (successive cancellation) or bp (belief propagation)")
      ->check(CLI::IsMember(names_of<polar::decoder_kind>()))
      ->capture_default_str();
  o.sc_update_given =
      cmd.add_option("--sc-update", o.sc_update, "SC's check-node f: sp (exact) or minsum")
          ->check(CLI::IsMember({"sp", "minsum"}))
          ->capture_default_str();
  o.bp_options[0] =
      cmd.add_option("--bp-update", o.bp_update,
                     "BP's update rule: lr (the likelihood-ratio updates, the same function as "
                     "sp, faster here), sp (LLR sum-product), minsum, or scaled[:X] (scaled "
                     "min-sum, X in (0, 1], default 0.9375)")
          ->check(bp_update_validator())
          ->capture_default_str();
  o.bp_options[1] = cmd.add_option("--iters", o.iterations,
                                   "BP iterations (the most, with "
                                   "--early-stop)")
                        ->check(in_range(1, 10000))
                        ->capture_default_str();
  o.bp_options[2] =
      cmd.add_flag("--early-stop", o.early_stop,
                   "BP: stop a codeword once its hard decisions pass the G-matrix check (u G = x)");
  o.bp_options[3] =
      cmd.add_option("--schedule", o.schedule,
                     "BP: the order of an iteration's sweeps: lr-rl (left-to-right, then "
                     "right-to-left: the decisions see the whole iteration, as Sionna's) or rl-lr "
                     "(the other way round, the seed's order)")
          ->check(CLI::IsMember(names_of<polar::bp_schedule>()))
          ->capture_default_str();
  cmd.add_option("--impl", o.implementation,
                 "auto, reference (the scalar oracle) or fast (SIMD over codewords)")
      ->check(CLI::IsMember(names_of<polar::implementation>()))
      ->capture_default_str();
  cmd.add_option("--precision", o.precision,
                 "CUDA BP messages: fp32 (the CPU's numbers) or fp16 (two codewords per register; "
                 "minsum and scaled, N <= 2048)")
      ->check(CLI::IsMember(names_of<polar::message_precision>()))
      ->capture_default_str();
  cmd.add_option("--cuda-kernel", o.cuda_kernel,
                 "CUDA BP kernel: auto, registers (minsum and scaled, N <= 2048) or memory (every "
                 "rule and length)")
      ->check(CLI::IsMember(names_of<polar::cuda_kernel>()))
      ->capture_default_str();
}

polar::decoder_options polar_decoder_options::options() const {
  polar::decoder_options d;
  d.decoder = parse_name<polar::decoder_kind>(decoder, "--decoder");
  d.path = parse_name<polar::implementation>(implementation, "--impl");
  d.precision = parse_name<polar::message_precision>(precision, "--precision");
  d.kernel = parse_name<polar::cuda_kernel>(cuda_kernel, "--cuda-kernel");
  if (d.decoder == polar::decoder_kind::sc) {
    if (d.precision != polar::message_precision::fp32 || d.kernel != polar::cuda_kernel::automatic)
      throw usage_error("--precision and --cuda-kernel apply to --decoder bp on --backend cuda");
    for (const CLI::Option* given : bp_options)
      if (given && given->count() > 0)
        throw usage_error(cat(given->get_name(), " applies to --decoder bp (--decoder sc)"));
    d.update = parse_name<polar::update_rule>(sc_update, "--sc-update");
    return d;
  }
  if (sc_update_given && sc_update_given->count() > 0)
    throw usage_error("--sc-update applies to --decoder sc (--decoder bp: give --bp-update)");
  const auto [rule, scale] = parse_bp_update(bp_update);
  d.update = rule;
  d.scale = scale;
  d.iterations = iterations;
  d.early_stop = early_stop;
  d.schedule = parse_name<polar::bp_schedule>(schedule, "--schedule");
  return d;
}

}  // namespace gpufec::cli
