// `decode conv`: LLRs in (text, raw float32 or raw int8, either sign convention), decided bits out
// (text or packed). Frames mode decodes whole frames of --frame-bits with a decoder_plan, a batch
// at a time, on the CPU or on CUDA (--backend: the CUDA tiled decoder takes each chunk as a host
// batch through the plan's own device buffers); stream mode (--term stream, like MATLAB vitdec
// 'cont') feeds a stream_decoder: on the CPU (traceback ring, or --decoder tiled), or the CUDA
// tiled stream decoder with --backend cuda. Both read the input in chunks (sample_reader) and
// write the bits as they go through one output_file committed at the end, so memory is bounded
// whatever the input size and a failed run leaves no output behind.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "conv/code_options.hpp"
#include "family_registry.hpp"
#include "gpufec/common/bits.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/files.hpp"
#include "gpufec/common/sample_file.hpp"
#include "gpufec/conv/decoder.hpp"
#include "gpufec/conv/stream.hpp"

namespace gpufec::cli {
// Which sign of an LLR means bit 0: ours (L = log P(0)/P(1)) or the other.
enum class llr_sign { positive_is_0, positive_is_1 };
}  // namespace gpufec::cli

template <>
struct gpufec::enum_names<gpufec::cli::llr_sign> {
  using E = cli::llr_sign;
  static constexpr std::array entries{enum_entry{E::positive_is_0, "positive-is-0"},
                                      enum_entry{E::positive_is_1, "positive-is-1"}};
};

namespace gpufec::cli {
namespace {

// Decided bits into an output file as they come: text '0'/'1' with a line end every `per_line`
// bits (0: one line), or packed 8 per byte, MSB first, the last byte padded with zeros.
class bit_sink {
 public:
  bit_sink(output_file& out, bits_format format, std::size_t per_line)
      : out_(out), format_(format), per_line_(per_line) {}

  void write(std::span<const std::uint8_t> bits) {
    buffer_.clear();
    for (const std::uint8_t b : bits) {
      if (format_ == bits_format::text) {
        buffer_ += b ? '1' : '0';
        if (per_line_ && ++column_ == per_line_) {
          buffer_ += '\n';
          column_ = 0;
        }
      } else {
        byte_ = static_cast<std::uint8_t>(byte_ | (b ? 0x80u >> filled_ : 0u));
        if (++filled_ == 8) {
          buffer_ += static_cast<char>(byte_);
          byte_ = 0;
          filled_ = 0;
        }
      }
    }
    count_ += bits.size();
    out_.write(buffer_);
  }
  // The end of the bits: a last line end, or the last partial byte.
  void finish() {
    if (format_ == bits_format::text && (column_ > 0 || (per_line_ == 0 && count_ > 0)))
      out_.write("\n");
    if (format_ == bits_format::packed && filled_ > 0)
      out_.write(std::string(1, static_cast<char>(byte_)));
  }
  std::uint64_t count() const { return count_; }

 private:
  output_file& out_;
  bits_format format_;
  std::size_t per_line_, column_ = 0;
  std::uint8_t byte_ = 0;
  unsigned filled_ = 0;
  std::uint64_t count_ = 0;
  std::string buffer_;
};

// A progress line on stderr when it is a terminal, rewritten at most every 0.2 s and erased at
// the end; nothing otherwise (logs and pipes never see it).
class progress_line {
 public:
  progress_line(const sample_reader& in, bool quiet)
      : in_(in), tty_(!quiet && isatty(STDERR_FILENO) == 1) {}
  ~progress_line() { clear(); }
  void update(std::uint64_t bits) {
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    char share[32] = "";
    if (in_.size() > 0)
      std::snprintf(
          share, sizeof share, " (%.1f%%)",
          100.0 * static_cast<double>(in_.bytes_read()) / static_cast<double>(in_.size()));
    std::fprintf(
        stderr, "\r\033[K  decode conv: %.4g M LLRs read%s, %.4g M bits decided, %.1f Mb/s",
        static_cast<double>(in_.samples_read()) / 1e6, share, static_cast<double>(bits) / 1e6,
        seconds > 0 ? static_cast<double>(bits) / seconds / 1e6 : 0.0);
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  const sample_reader& in_;
  bool tty_, shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

// The values of a chunk in our convention (positive means bit 0). int8 -128 has no negative:
// under positive-is-1 it becomes +127.
void to_our_sign(std::vector<float>& v, llr_sign sign) {
  if (sign == llr_sign::positive_is_1)
    for (float& x : v) x = -x;
}
void to_our_sign(std::vector<std::int8_t>& v, llr_sign sign) {
  if (sign == llr_sign::positive_is_1)
    for (std::int8_t& x : v) x = static_cast<std::int8_t>(x == -128 ? 127 : -x);
}

struct conv_decode_options {
  conv_code_options code;
  conv_decoder_cli_options decoder;
  std::string input, output, input_format = "text", output_format = "text", sign = "positive-is-0";
  std::uint64_t frame_bits = 0, per_line = 0, chunk = std::uint64_t{1} << 20, traceback = 0;
  CLI::Option *frame_option = nullptr, *traceback_option = nullptr, *per_line_option = nullptr;
};

// Both modes, over chunks of at most `chunk` values of the input's kind (float, or raw int8).
struct decode_run {
  const conv_decode_options& o;
  std::ostream& log;  // informational lines (--quiet: none)
  sample_reader in;
  output_file& out;
  bit_sink sink;
  llr_sign sign;
  bool int8;
  std::vector<float> f32;
  std::vector<std::int8_t> i8;
  std::vector<std::uint8_t> bits;

  std::size_t next(std::size_t max) {
    if (int8) {
      in.read(i8, max);
      to_our_sign(i8, sign);
      return i8.size();
    }
    in.read(f32, max);
    to_our_sign(f32, sign);
    return f32.size();
  }

  void stream(const conv::conv_code& code, const conv::puncture_pattern& pattern, backend where) {
    conv::stream_options so;
    const conv::decoder_options d = o.decoder.options(conv::termination::truncated, where);
    so.decoder = d.decoder;
    so.llr_scale = d.llr_scale;
    so.traceback_depth = o.traceback;
    so.where = where;
    so.tile = d.tile;
    so.kernel = d.kernel;
    conv::stream_decoder dec =
        from_options([&] { return conv::stream_decoder(code, pattern, so); });
    progress_line progress(in, log.rdbuf() == nullptr);
    while (const std::size_t n = next(o.chunk)) {
      bits.clear();
      if (int8)
        dec.push(std::span<const std::int8_t>(i8.data(), n), bits);
      else
        dec.push(std::span<const float>(f32.data(), n), bits);
      sink.write(bits);
      progress.update(sink.count());
    }
    bits.clear();
    try {
      dec.finish(bits);
    } catch (const format_error& e) {
      throw format_error(cat(in.name(), ": ", e.what()));
    }
    sink.write(bits);
    progress.clear();
    log << "gpufec: decoded a stream of " << dec.values_received() << " LLRs ("
        << dec.stages_received() << " stages) into " << sink.count() << " bits; " << dec.describe()
        << "\n";
  }

  void frames(const conv::conv_code& code, const conv::puncture_pattern& pattern,
              conv::termination term, int threads, backend where) {
    conv::decoder_options d = o.decoder.options(term, where);
    d.threads = threads;
    // A file's bits do not depend on the device or on --chunk (the plan's max_batch): the default
    // tile as it is, as the CPU's tiled decoder runs it.
    d.fit_tile = false;
    const conv::frame_shape shape =
        from_options([&] { return conv::make_frame_shape(code, pattern, o.frame_bits, term); });
    const std::size_t n = shape.coded_bits;
    const std::size_t batch_frames = std::max<std::size_t>(1, o.chunk / n);
    auto not_whole = [&](std::uint64_t values) {
      return format_error(cat(in.name(), ": ", values, " LLRs is not a whole number of frames of ",
                              n, " LLRs (", shape.info_bits, " information bits, ", name_of(term),
                              ", ", shape.stages, " stages, pattern ", pattern.to_string(),
                              "): the input ends ", values % n, " LLRs into frame ", values / n,
                              " (counted from 0)"));
    };
    // A raw file of known size is checked before any work.
    const std::size_t width = o.input_format == "f32" ? 4 : o.input_format == "i8" ? 1 : 0;
    if (width && in.size() > 0 && (static_cast<std::uint64_t>(in.size()) / width) % n != 0)
      throw not_whole(static_cast<std::uint64_t>(in.size()) / width);
    conv::decoder_plan plan = from_options([&] {
      return conv::decoder_plan(code, pattern, o.frame_bits, term, d, where, batch_frames);
    });
    progress_line progress(in, log.rdbuf() == nullptr);
    std::uint64_t frames_done = 0;
    while (const std::size_t got = next(batch_frames * n)) {
      if (got % n != 0) throw not_whole(in.samples_read());
      const std::size_t count = got / n;
      bits.resize(count * shape.info_bits);
      const auto out_bits = batch_span<std::uint8_t>::uniform(bits.data(), count, shape.info_bits);
      try {
        if (int8)
          plan.decode(batch_view<std::int8_t>::uniform(i8.data(), count, n), out_bits);
        else
          plan.decode(batch_view<float>::uniform(f32.data(), count, n), out_bits);
      } catch (const invalid_argument& e) {
        throw format_error(cat(in.name(), ": frames from ", frames_done, ": ", e.what()));
      }
      sink.write(bits);
      frames_done += count;
      progress.update(sink.count());
    }
    progress.clear();
    const conv::plan_summary& chosen = plan.summary();
    log << "gpufec: decoded " << frames_done << " frames of " << n << " LLRs into " << sink.count()
        << " bits (" << name_of(chosen.decoder) << " decoder";
    if (chosen.decoder == conv::decoder_kind::tiled) log << ", tile " << chosen.tile.to_string();
    if (chosen.where == backend::cuda)
      log << ", CUDA: " << chosen.kernel << ", batches of " << batch_frames << " frames)\n";
    else
      log << (chosen.kernel.empty() ? "" : ", " + chosen.kernel) << ", " << chosen.threads
          << " threads)\n";
  }
};

action decode_conv(CLI::App& cmd, const decode_options& common) {
  auto o = std::make_shared<conv_decode_options>();
  cmd.add_option("--input,-i", o->input,
                 "received LLRs (positive means bit 0 unless --llr-sign positive-is-1); - reads "
                 "stdin")
      ->required();
  cmd.add_option("--output,-o", o->output, "where to write the decided bits; - writes stdout")
      ->required();
  cmd.add_option("--input-format", o->input_format,
                 "text (numbers separated by spaces, commas or line ends; '#' comments), f32 (raw "
                 "float32, this machine's byte order) or i8 (raw int8, used as they are); auto = "
                 "text")
      ->check(CLI::IsMember(names_of<sample_format>()))
      ->capture_default_str();
  cmd.add_option("--llr-sign", o->sign,
                 "positive-is-0 (ours: L = log P(0)/P(1), as channel awgn writes) or "
                 "positive-is-1 (the other convention)")
      ->check(CLI::IsMember(names_of<llr_sign>()))
      ->capture_default_str();
  cmd.add_option("--output-format", o->output_format,
                 "text ('0'/'1') or packed (8 bits per byte, MSB first, the last byte padded with "
                 "zeros)")
      ->check(CLI::IsMember(names_of<bits_format>()))
      ->capture_default_str();
  o->per_line_option = cmd.add_option("--per-line", o->per_line,
                                      "text output: bits per line (default: a frame per line; a "
                                      "stream on one line)")
                           ->check(unsigned_integer() & in_range(1, 1e12));
  std::vector<std::string> terms = names_of<conv::termination>();
  terms.emplace_back("stream");
  add_code_options(cmd, o->code, terms);
  o->frame_option = cmd.add_option("--frame-bits", o->frame_bits,
                                   "frames mode: information bits per frame (the input is whole "
                                   "frames back to back)")
                        ->check(unsigned_integer() & in_range(1, 1 << 26));
  add_decoder_options(cmd, o->decoder);
  o->traceback_option = cmd.add_option("--traceback", o->traceback,
                                       "stream mode: traceback depth D in stages (0 = 2.5 K / "
                                       "(1 - R)); bits leave D to 5D stages late")
                            ->check(unsigned_integer() & in_range(0, 1 << 20));
  cmd.add_option("--chunk", o->chunk,
                 "LLRs read per chunk (frames mode: whole frames, at least one); memory is about "
                 "6 bytes per LLR of a chunk")
      ->check(unsigned_integer() & in_range(1, 1 << 28))
      ->capture_default_str();
  return [o, &common] {
    const bool stream = o->code.term == "stream";
    // A stream decodes on the CPU unless --backend cuda asks for the CUDA tiled stream decoder:
    // auto keeps the traceback-ring decoder's bits (the tiled decoder's differ a little).
    const backend where = stream && common.backend != "cuda"
                              ? backend::cpu
                              : conv_backend(common.backend, o->decoder);
    const bool tiled_stream = stream && (where == backend::cuda ||
                                         o->decoder.decoder == name_of(conv::decoder_kind::tiled));
    if (tiled_stream && o->traceback_option->count())
      throw usage_error(
          "--traceback applies to the traceback-ring stream decoder; the tiled one (--decoder "
          "tiled, or --backend cuda) traces back over its tiles: set their overlaps with --tile");
    if (stream && o->frame_option->count())
      throw usage_error("--frame-bits and --term stream clash: a stream has no frames");
    if (!stream && !o->frame_option->count())
      throw usage_error(
          cat("--term ", o->code.term, " decodes frames: give --frame-bits N, or --term stream"));
    if (!stream && o->traceback_option->count())
      throw usage_error("--traceback applies to --term stream (frames use a full traceback)");
    if (stream && o->decoder.wrap_option->count())
      throw usage_error("--wrap-stages applies to --term tailbiting (frames), not to a stream");
    if (stream && o->decoder.metric_option->count())
      throw usage_error("--metric applies to frames (the stream reference uses double metrics)");
    if (o->output_format == "packed" && o->per_line_option->count())
      throw usage_error("--per-line applies to --output-format text");
    distinct_paths({{"--input", o->input}}, {{"--output", o->output}});
    use_threads(common.threads);
    const conv::conv_code code = o->code.code();
    const conv::puncture_pattern pattern = o->code.pattern(code);
    const auto format = parse_sample_format(o->input_format);
    sample_reader reader(o->input, format);
    output_file out(o->output);  // before any work: a bad path fails at once
    const std::size_t per_line = o->per_line_option->count() ? o->per_line
                                 : stream                    ? 0
                                                             : o->frame_bits;
    decode_run run{*o,
                   common.log(),
                   std::move(reader),
                   out,
                   bit_sink(out, parse_bits_format(o->output_format), per_line),
                   parse_name<llr_sign>(o->sign, "--llr-sign"),
                   format == sample_format::i8,
                   {},
                   {},
                   {}};
    if (stream)
      run.stream(code, pattern, where);
    else
      run.frames(code, pattern, parse_name<conv::termination>(o->code.term, "--term"),
                 common.threads, where);
    run.sink.finish();
    out.commit();
    return 0;
  };
}

}  // namespace

action conv_decode_command(CLI::App& cmd, const decode_options& common) {
  return decode_conv(cmd, common);
}

}  // namespace gpufec::cli
