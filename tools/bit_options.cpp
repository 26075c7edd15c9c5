#include "bit_options.hpp"

namespace gpufec::cli {

CLI::Option* add_bit_input_format(CLI::App& cmd, std::string& format, std::string_view option) {
  return cmd
      .add_option(
          std::string(option), format,
          cat("auto (framed when the file starts with GPFSYNC1, else text), ", bit_formats_help))
      ->check(CLI::IsMember(names_of<bit_format>()))
      ->capture_default_str();
}

CLI::Option* add_bit_output_format(CLI::App& cmd, std::string& format, bool stream,
                                   std::string_view option) {
  if (stream)
    return cmd
        .add_option(std::string(option), format,
                    "text ('0'/'1') or packed (8 bits per byte, MSB first, the last byte padded "
                    "with zeros)")
        ->check(CLI::IsMember({"text", "packed"}))
        ->capture_default_str();
  return cmd.add_option(std::string(option), format, std::string(bit_formats_help))
      ->check(CLI::IsMember({"text", "packed", "framed"}))
      ->capture_default_str();
}

void add_input_kind_options(CLI::App& cmd, std::string& kind, std::string& format,
                            std::string_view note) {
  cmd.add_option("--input-kind", kind, "llr (soft values) or hard (0/1 decisions, a file of bits)")
      ->check(CLI::IsMember({"llr", "hard"}))
      ->capture_default_str();
  cmd.add_option("--input-format", format,
                 cat("LLRs: auto or text (numbers separated by spaces, commas or line ends; '#' "
                     "comments), f32 (raw float32, this machine's byte order) or i8 (raw int8); "
                     "hard bits: auto (framed or text), ",
                     bit_formats_help, note))
      ->check(CLI::IsMember({"auto", "text", "f32", "i8", "packed", "framed"}))
      ->capture_default_str();
}

bool hard_input(const std::string& kind, const std::string& format) {
  const bool hard = kind == "hard";
  if (hard && (format == "f32" || format == "i8"))
    throw usage_error(cat("--input-format ", format,
                          " is for LLRs; --input-kind hard reads a file of bits (auto, text, "
                          "packed or framed)"));
  if (!hard && (format == "packed" || format == "framed"))
    throw usage_error(cat("--input-format ", format,
                          " is for hard bits (--input-kind hard); LLRs are auto, text, f32 or i8"));
  return hard;
}

void require_framing(bit_format format, std::string_view option, std::string_view what) {
  if (format == bit_format::packed)
    throw usage_error(cat(option, " packed: ", what,
                          " differ in length and packed bits hold no frame boundaries; give text "
                          "or framed"));
}

}  // namespace gpufec::cli
