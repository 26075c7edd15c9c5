// `decode conv`: LLRs in (text, raw float32 or raw int8, either sign convention) or hard bits (a
// file of bits: text, packed or framed), decided bits out (text, packed, or framed in frames
// mode). Frames mode decodes whole frames of --frame-bits with a decoder_plan, a batch
// at a time, on the CPU or on CUDA (--backend: the CUDA tiled decoder takes each chunk as a host
// batch through the plan's own device buffers); stream mode (--term stream, like MATLAB vitdec
// 'cont') feeds a stream_decoder: on the CPU (traceback ring, or --decoder tiled), or the CUDA
// tiled stream decoder with --backend cuda. Both read the input in chunks (sample_reader,
// bit_reader) and
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

#include "bit_options.hpp"
#include "conv/code_options.hpp"
#include "family_registry.hpp"
#include "gpufec/common/bit_file.hpp"
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

// Decided bits into the output as they come: a stream of bits (text with a line end every
// `per_line` bits, or packed), or framed: a GPFSYNC1 frame per decoded frame of `frame_bits`.
class bit_sink {
 public:
  bit_sink(output_file& out, bit_format format, std::size_t per_line, std::size_t frame_bits)
      : out_(out), framed_(format == bit_format::framed), frame_bits_(frame_bits) {
    if (framed_)
      out_.write(framed_magic);
    else
      writer_.emplace(out, format, per_line);
  }

  // Frames mode: whole frames of frame_bits.
  void write(std::span<const std::uint8_t> bits) {
    count_ += bits.size();
    if (!framed_) return writer_->write(bits);
    if (bits.empty()) return;
    const auto frames =
        batch_view<std::uint8_t>::uniform(bits.data(), bits.size() / frame_bits_, frame_bits_);
    out_.write(std::string_view(bit_frames_bytes(frames, bit_format::framed)).substr(8));
  }
  // The end of the bits: a last line end, or the last partial byte.
  void finish() {
    if (writer_) writer_->finish();
  }
  std::uint64_t count() const { return count_; }

 private:
  output_file& out_;
  bool framed_;
  std::size_t frame_bits_;
  std::optional<bit_writer> writer_;
  std::uint64_t count_ = 0;
};

// The input in chunks, in our sign convention: float or int8 LLRs (a sample_reader), or hard bits
// (a bit_reader).
class llr_source {
 public:
  enum class kind { f32, i8, hard };

  llr_source(const std::string& path, kind k, const std::string& format, llr_sign sign)
      : kind_(k), sign_(sign) {
    if (k == kind::hard)
      bits_.emplace(path, parse_name<bit_format>(format, "--input-format"));
    else
      samples_.emplace(path, parse_name<sample_format>(format, "--input-format"));
  }

  kind what() const { return kind_; }
  // Reads the next chunk, at most `max` values, into f32, i8 or hard; returns how many.
  std::size_t next(std::size_t max) {
    switch (kind_) {
      case kind::hard:
        return bits_->read(hard, max);
      case kind::i8:
        samples_->read(i8, max);
        if (sign_ == llr_sign::positive_is_1)  // -128 has no negative: +127
          for (std::int8_t& x : i8) x = static_cast<std::int8_t>(x == -128 ? 127 : -x);
        return i8.size();
      case kind::f32:
        samples_->read(f32, max);
        if (sign_ == llr_sign::positive_is_1)
          for (float& x : f32) x = -x;
        return f32.size();
    }
    return 0;
  }
  const std::string& name() const { return bits_ ? bits_->name() : samples_->name(); }
  std::uint64_t values_read() const {
    return bits_ ? bits_->bits_read() : samples_->samples_read();
  }
  std::uint64_t bytes_read() const { return bits_ ? bits_->bytes_read() : samples_->bytes_read(); }
  std::int64_t size() const { return bits_ ? bits_->size() : samples_->size(); }
  // Whether the input's values are bits packed 8 to a byte (its end may be padding).
  bool packed() const { return bits_ && bits_->format() == bit_format::packed; }
  // Bytes per value of a raw sample file (f32 4, i8 1), 0 for text and bits.
  std::size_t raw_width() const {
    if (!samples_) return 0;
    return samples_->format() == sample_format::f32  ? 4
           : samples_->format() == sample_format::i8 ? 1
                                                     : 0;
  }

  std::vector<float> f32;
  std::vector<std::int8_t> i8;
  std::vector<std::uint8_t> hard;

 private:
  kind kind_;
  llr_sign sign_;
  std::optional<sample_reader> samples_;
  std::optional<bit_reader> bits_;
};

// A progress line on stderr when it is a terminal, rewritten at most every 0.2 s and erased at
// the end; nothing otherwise (logs and pipes never see it).
class progress_line {
 public:
  progress_line(const llr_source& in, bool quiet)
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
        stderr, "\r\033[K  decode conv: %.4g M values read%s, %.4g M bits decided, %.1f Mb/s",
        static_cast<double>(in_.values_read()) / 1e6, share, static_cast<double>(bits) / 1e6,
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
  const llr_source& in_;
  bool tty_, shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

struct conv_decode_options {
  conv_code_options code;
  conv_decoder_cli_options decoder;
  std::string input, output, input_kind = "llr", input_format = "auto", output_format = "text",
                             sign = "positive-is-0";
  std::uint64_t frame_bits = 0, per_line = 0, chunk = std::uint64_t{1} << 20, traceback = 0;
  CLI::Option *frame_option = nullptr, *traceback_option = nullptr, *per_line_option = nullptr,
              *sign_option = nullptr;
};

// Both modes, over chunks of at most `chunk` values of the input's kind.
struct decode_run {
  const conv_decode_options& o;
  std::ostream& log;  // informational lines (--quiet: none)
  llr_source in;
  bit_sink sink;
  std::vector<std::uint8_t> bits;

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
    while (const std::size_t n = in.next(o.chunk)) {
      bits.clear();
      switch (in.what()) {
        case llr_source::kind::hard:
          dec.push_hard(std::span<const std::uint8_t>(in.hard.data(), n), bits);
          break;
        case llr_source::kind::i8:
          dec.push(std::span<const std::int8_t>(in.i8.data(), n), bits);
          break;
        case llr_source::kind::f32:
          dec.push(std::span<const float>(in.f32.data(), n), bits);
          break;
      }
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
    log << "gpufec: decoded a stream of " << dec.values_received() << " values ("
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
    const char* values = in.what() == llr_source::kind::hard ? "bits" : "LLRs";
    auto not_whole = [&](std::uint64_t count) {
      return format_error(
          cat(in.name(), ": ", count, " ", values, " is not a whole number of frames of ", n, " ",
              values, " (", shape.info_bits, " information bits, ", name_of(term), ", ",
              shape.stages, " stages, pattern ", pattern.to_string(), "): the input ends ",
              count % n, " ", values, " into frame ", count / n, " (counted from 0)"));
    };
    // A raw file of known size is checked before any work.
    const std::size_t width = in.raw_width();
    if (width && in.size() > 0 && (static_cast<std::uint64_t>(in.size()) / width) % n != 0)
      throw not_whole(static_cast<std::uint64_t>(in.size()) / width);
    conv::decoder_plan plan = from_options([&] {
      return conv::decoder_plan(code, pattern, o.frame_bits, term, d, where, batch_frames);
    });
    progress_line progress(in, log.rdbuf() == nullptr);
    std::uint64_t frames_done = 0;
    while (std::size_t got = in.next(batch_frames * n)) {
      if (got % n != 0) {
        // Reads come short only at the end: what is left over is the last byte's padding of a
        // packed file (fewer than 8 zero bits), or the end of an incomplete frame.
        const std::size_t over = got % n;
        const bool padding = in.packed() && over < 8 &&
                             std::all_of(in.hard.end() - static_cast<std::ptrdiff_t>(over),
                                         in.hard.end(), [](std::uint8_t b) { return b == 0; });
        if (!padding) throw not_whole(in.values_read());
        got -= over;
        if (!got) break;
      }
      const std::size_t count = got / n;
      bits.resize(count * shape.info_bits);
      const auto out_bits = batch_span<std::uint8_t>::uniform(bits.data(), count, shape.info_bits);
      try {
        switch (in.what()) {
          case llr_source::kind::hard:
            plan.decode_hard(batch_view<std::uint8_t>::uniform(in.hard.data(), count, n), out_bits);
            break;
          case llr_source::kind::i8:
            plan.decode(batch_view<std::int8_t>::uniform(in.i8.data(), count, n), out_bits);
            break;
          case llr_source::kind::f32:
            plan.decode(batch_view<float>::uniform(in.f32.data(), count, n), out_bits);
            break;
        }
      } catch (const invalid_argument& e) {
        throw format_error(cat(in.name(), ": frames from ", frames_done, ": ", e.what()));
      }
      sink.write(bits);
      frames_done += count;
      progress.update(sink.count());
    }
    progress.clear();
    const conv::plan_summary& chosen = plan.summary();
    log << "gpufec: decoded " << frames_done << " frames of " << n << " " << values << " into "
        << sink.count() << " bits (" << name_of(chosen.decoder) << " decoder";
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
                 "received LLRs (positive means bit 0 unless --llr-sign positive-is-1), or hard "
                 "bits with --input-kind hard; - reads stdin")
      ->required();
  cmd.add_option("--output,-o", o->output, "where to write the decided bits; - writes stdout")
      ->required();
  add_input_kind_options(cmd, o->input_kind, o->input_format,
                         "; either way the values run on across lines and frames");
  o->sign_option = cmd.add_option("--llr-sign", o->sign,
                                  "positive-is-0 (ours: L = log P(0)/P(1), as channel awgn "
                                  "writes) or positive-is-1 (the other convention)")
                       ->check(CLI::IsMember(names_of<llr_sign>()))
                       ->capture_default_str();
  cmd.add_option("--output-format", o->output_format,
                 "text ('0'/'1'), packed (8 bits per byte, MSB first, the last byte padded with "
                 "zeros) or, frames mode, framed (a GPFSYNC1 frame per decoded frame)")
      ->check(CLI::IsMember({"text", "packed", "framed"}))
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
    if (o->output_format != "text" && o->per_line_option->count())
      throw usage_error("--per-line applies to --output-format text");
    if (stream && o->output_format == "framed")
      throw usage_error(
          "--output-format framed writes frames; a stream (--term stream) has none: "
          "give text or packed");
    const bool hard = hard_input(o->input_kind, o->input_format);
    if (hard && o->sign_option->count())
      throw usage_error("--llr-sign applies to LLRs; hard bits are 0/1 (--input-kind llr)");
    distinct_paths({{"--input", o->input}}, {{"--output", o->output}});
    use_threads(common.threads);
    const conv::conv_code code = o->code.code();
    const conv::puncture_pattern pattern = o->code.pattern(code);
    const llr_source::kind kind = hard                      ? llr_source::kind::hard
                                  : o->input_format == "i8" ? llr_source::kind::i8
                                                            : llr_source::kind::f32;
    llr_source in(o->input, kind, o->input_format, parse_name<llr_sign>(o->sign, "--llr-sign"));
    output_file out(o->output);  // before any work: a bad path fails at once
    const std::size_t per_line = o->per_line_option->count() ? o->per_line
                                 : stream                    ? 0
                                                             : o->frame_bits;
    decode_run run{*o,
                   common.log(),
                   std::move(in),
                   bit_sink(out, parse_name<bit_format>(o->output_format, "--output-format"),
                            per_line, o->frame_bits),
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
