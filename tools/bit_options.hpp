// The options of every command that reads or writes files of bits (gpufec/common/bit_file.hpp,
// docs/formats.md): the same names, the same meaning and the same help in every family.
#pragma once

#include <string>
#include <string_view>

#include "family_registry.hpp"
#include "gpufec/common/bit_file.hpp"

namespace gpufec::cli {

// --input-format for bits: auto (framed by its magic, else text), text, packed or framed.
CLI::Option* add_bit_input_format(CLI::App& cmd, std::string& format,
                                  std::string_view option = "--input-format");
// --output-format for bits: text, packed or framed; `stream` (one stream of bits, no frames):
// text or packed only.
CLI::Option* add_bit_output_format(CLI::App& cmd, std::string& format, bool stream = false,
                                   std::string_view option = "--output-format");

// The one-line help of the three formats, for option texts.
inline constexpr std::string_view bit_formats_help =
    "text (0/1, a frame per line), packed (8 bits per byte, MSB first, frames back to back) or "
    "framed (GPFSYNC1 frames, docs/formats.md)";

// --input-kind llr|hard and the --input-format that goes with it (LLRs: auto, text, f32, i8; hard
// bits: auto, text, packed, framed), for the decoders that take either; `note` ends the format's
// help.
void add_input_kind_options(CLI::App& cmd, std::string& kind, std::string& format,
                            std::string_view note = {});
// Whether the input is hard bits; a format of the other kind is a usage error.
bool hard_input(const std::string& kind, const std::string& format);

// An input whose frames must differ in length cannot be packed: a usage error naming `option`
// and `what`.
void require_framing(bit_format format, std::string_view option, std::string_view what);

}  // namespace gpufec::cli
