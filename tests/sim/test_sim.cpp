#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "gpufec/common/error.hpp"
#include "gpufec/sim/report.hpp"
#include "gpufec/sim/simulator.hpp"
#include "gpufec/uncoded/uncoded.hpp"

namespace gpufec::sim {
namespace {

TEST(ParseSweep, RangesAndLists) {
  EXPECT_EQ(parse_sweep("0:8:2"), (std::vector<double>{0, 2, 4, 6, 8}));
  EXPECT_EQ(parse_sweep("1e-3,1e-2"), (std::vector<double>{1e-3, 1e-2}));
  EXPECT_EQ(parse_sweep("3:1:-1"), (std::vector<double>{3, 2, 1}));
  EXPECT_EQ(parse_sweep("0:2"), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(parse_sweep(" 5 , 0:1:0.5"), (std::vector<double>{5, 0, 0.5, 1}));
  const auto tenths = parse_sweep("0:1:0.1");  // rounding must not drop the last point
  ASSERT_EQ(tenths.size(), 11u);
  EXPECT_NEAR(tenths.back(), 1.0, 1e-12);
}

TEST(ParseSweep, RejectsBadItemsNamingThem) {
  for (const char* bad :
       {"", "x", "1,,2", "0:8:0", "1:0:1", "0:1:2:3", "nan", "1:inf", "0:1e9:1e-3"}) {
    EXPECT_THROW(parse_sweep(bad), invalid_argument) << bad;
  }
  try {
    parse_sweep("0:8:1,abc");
    FAIL();
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("abc"), std::string::npos) << e.what();
  }
}

TEST(PointSeed, MixesSeedAndIndex) {
  EXPECT_EQ(point_seed(1, 2), point_seed(1, 2));
  EXPECT_NE(point_seed(1, 2), point_seed(1, 3));
  EXPECT_NE(point_seed(1, 2), point_seed(2, 2));
  EXPECT_NE(point_seed(0, 1), point_seed(1, 0));
}

// A chain whose outcomes are scripted by frame number, recording how far it was run.
struct scripted_chain final : chain {
  std::map<std::uint64_t, frame_outcome> script;
  std::uint64_t* frames_run;
  std::size_t batch;
  std::chrono::milliseconds delay{0};
  bool fails = false;  // throws on its second call, as a device or a decoder can
  int calls = 0;
  frame_shape shape() const override { return {100, 25, 4, true}; }
  std::size_t preferred_batch() const override { return batch; }
  double run(std::uint64_t first, std::vector<frame_outcome>& outcomes,
             const stop_token&) override {
    if (fails && calls++ == 1) throw cuda_error("the GPU could not run a_kernel: a fault");
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const auto it = script.find(first + i);
      outcomes[i] = it == script.end() ? frame_outcome{} : it->second;
    }
    *frames_run = std::max(*frames_run, first + outcomes.size());
    if (delay.count()) std::this_thread::sleep_for(delay);
    return 0.001;
  }
};

struct scripted_family final : family {
  std::map<std::uint64_t, frame_outcome> script;
  std::size_t batch = 64;
  std::chrono::milliseconds delay{0};
  std::optional<double> fails_at;  // the point whose chain throws after its first batch
  mutable std::uint64_t frames_run = 0;
  std::string name() const override { return "scripted"; }
  std::string sweep_name() const override { return "x"; }
  std::string backend() const override { return "cpu"; }
  fields parameters() const override { return {}; }
  std::unique_ptr<chain> make_chain(double point, std::uint64_t) const override {
    auto c = std::make_unique<scripted_chain>();
    c->script = script;
    c->frames_run = &frames_run;
    c->batch = batch;
    c->delay = delay;
    c->fails = fails_at == point;
    return c;
  }
};

scripted_family errors_at_3_5_9_20() {
  scripted_family fam;
  fam.script[3] = {2, 1, false};
  fam.script[5] = {0, 0, true};  // undecodable counts as a frame error
  fam.script[9] = {7, 3, false};
  fam.script[20] = {1000, 1000, false};  // past the stop: must never be counted
  return fam;
}

TEST(StoppingRule, StopsAtTheMaxFeThErrorFrameEvenWhenTheBatchOvershoots) {
  for (const std::size_t batch : {1, 7, 64}) {
    scripted_family fam = errors_at_3_5_9_20();
    fam.batch = batch;
    options opt;
    opt.stop.max_fe = 3;
    const point_result r = run_point(fam, 0.0, 0, opt);
    EXPECT_EQ(r.frames, 10u) << "batch " << batch;  // frames 0..9: the 3rd error is frame 9
    EXPECT_EQ(r.frame_errors, 3u);
    EXPECT_EQ(r.bit_errors, 9u);
    EXPECT_EQ(r.symbol_errors, 4u);
    EXPECT_EQ(r.undecodable, 1u);
    EXPECT_EQ(r.reason, stop_reason::max_fe);
    EXPECT_DOUBLE_EQ(r.fer, 0.3);
    EXPECT_DOUBLE_EQ(r.ber, 9.0 / 1000.0);
    EXPECT_DOUBLE_EQ(r.ser, 4.0 / 250.0);
    EXPECT_EQ(r.simulated_frames, (10 + batch - 1) / batch * batch);
  }
}

// Counts past 32 bits: frames of 2^32 information bits, every one wrong (K may be 2^32), and a
// point of 10^12 bits, counted exactly; and a frame's own count on its bits.
TEST(Counts, ExceedThirtyTwoBits) {
  const std::uint64_t K = std::uint64_t{1} << 32;
  point_counter counter({0, 300, 0}, frame_shape{K, K, 1, false});
  std::vector<frame_outcome> outcomes(300, frame_outcome{K, K, false});
  EXPECT_EQ(counter.add(outcomes), 300u);
  EXPECT_EQ(counter.frames, 300u);
  EXPECT_EQ(counter.frame_errors, 300u);
  EXPECT_EQ(counter.bit_errors, 300 * K);  // 1.29e12
  EXPECT_EQ(counter.symbol_errors, 300 * K);
  static_assert(sizeof(frame_outcome::bit_errors) == 8 &&
                sizeof(frame_outcome::symbol_errors) == 8);
  const std::vector<std::uint8_t> sent = {0, 1, 1, 0, 1}, decided = {1, 1, 0, 0, 0};
  const frame_outcome o = score_bits(decided.data(), sent.data(), sent.size());
  EXPECT_EQ(o.bit_errors, 3u);
  EXPECT_EQ(o.symbol_errors, 3u);
}

TEST(StoppingRule, StopsAtMaxFramesAndRunsNoFrameBeyond) {
  scripted_family fam = errors_at_3_5_9_20();
  options opt;
  opt.stop.max_fe = 100;
  opt.stop.max_frames = 6;
  const point_result r = run_point(fam, 0.0, 0, opt);
  EXPECT_EQ(r.frames, 6u);
  EXPECT_EQ(r.frame_errors, 2u);
  EXPECT_EQ(r.reason, stop_reason::max_frames);
  EXPECT_EQ(fam.frames_run, 6u);  // the last batch is trimmed to the frame limit
}

TEST(StoppingRule, MaxFeReachedOnTheLastAllowedFrameReportsMaxFe) {
  scripted_family fam = errors_at_3_5_9_20();
  options opt;
  opt.stop.max_fe = 3;
  opt.stop.max_frames = 10;
  EXPECT_EQ(run_point(fam, 0.0, 0, opt).reason, stop_reason::max_fe);
}

TEST(StoppingRule, MaxTimeAndInterruptEndAPoint) {
  scripted_family fam;  // never errs
  fam.batch = 4;
  fam.delay = std::chrono::milliseconds(2);
  options opt;
  opt.stop.max_fe = 1;
  opt.stop.max_time_s = 0.02;
  const point_result timed = run_point(fam, 0.0, 0, opt);
  EXPECT_EQ(timed.reason, stop_reason::max_time);
  EXPECT_GT(timed.frames, 0u);

  std::atomic<bool> interrupt{true};
  const std::vector<double> points = {0, 1, 2};
  const sweep_result s = run_sweep(fam, points, opt, nullptr, &interrupt);
  EXPECT_TRUE(s.interrupted());
  EXPECT_TRUE(s.points.empty());
  const point_result cut = run_point(fam, 0.0, 0, opt, &interrupt);
  EXPECT_EQ(cut.reason, stop_reason::interrupted);
  EXPECT_EQ(cut.frames, 0u);
}

TEST(StoppingRule, RequiresSomeLimit) {
  scripted_family fam;
  options opt;
  opt.stop.max_fe = 0;
  EXPECT_THROW(run_point(fam, 0.0, 0, opt), invalid_argument);
}

// A chain that fails ends its point (counts so far kept, reason failed, the message) and the
// sweep, which says it failed; later points are not run.
TEST(Sweep, AFailingChainEndsItsPointAndTheSweepSayingWhy) {
  scripted_family fam = errors_at_3_5_9_20();
  fam.batch = 4;
  fam.fails_at = 2.0;
  options opt;
  opt.stop.max_frames = 40;
  const std::vector<double> points = {1.0, 2.0, 3.0};
  const sweep_result s = run_sweep(fam, points, opt);
  EXPECT_EQ(s.status, run_status::failed);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].reason, stop_reason::max_frames);
  EXPECT_EQ(s.points[1].reason, stop_reason::failed);
  EXPECT_EQ(s.points[1].frames, 4u) << "the first batch was counted";
  EXPECT_NE(s.error.find("a_kernel"), std::string::npos) << s.error;
  EXPECT_EQ(s.points[1].error, s.error);
  // A chain that cannot even be made fails the same way, with no frames: no rates.
  struct unmakeable final : family {
    std::string name() const override { return "x"; }
    std::string sweep_name() const override { return "x"; }
    std::string backend() const override { return "cpu"; }
    fields parameters() const override { return {}; }
    std::unique_ptr<chain> make_chain(double, std::uint64_t) const override {
      throw out_of_memory("needs 1 TiB");
    }
  };
  const sweep_result t = run_sweep(unmakeable{}, points, opt);
  EXPECT_EQ(t.status, run_status::failed);
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_FALSE(t.points[0].has_rates());
  EXPECT_EQ(t.error, "needs 1 TiB");
}

// Reports: the points requested, the status, and undefined rates (a point of 0 frames) as null in
// the JSON, empty in the CSV and '-' in the table, never 0; a requested point not run is a CSV
// line of its own; provenance.
TEST(Report, StatusRequestedPointsAndUndefinedRates) {
  scripted_family fam = errors_at_3_5_9_20();
  options opt;
  opt.stop.max_frames = 40;
  const std::vector<double> points = {1.0, 2.0, 3.0};
  run_description run = describe(fam, opt, points);
  sweep_result s;
  s.points.push_back(run_point(fam, 1.0, 0, opt));
  std::atomic<bool> interrupt{true};  // the second point is cut before its first frame
  s.points.push_back(run_point(fam, 2.0, 1, opt, &interrupt));
  s.status = run_status::interrupted;
  ASSERT_EQ(s.points[1].frames, 0u);
  const nlohmann::json j = to_json(run, s, "SIGTERM");
  EXPECT_EQ(j["status"], "interrupted");
  EXPECT_EQ(j["completed"], false);
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_EQ(j["signal"], "SIGTERM");
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["points_requested"], nlohmann::json({1.0, 2.0, 3.0}));
  ASSERT_EQ(j["points"].size(), 2u);
  EXPECT_TRUE(j["points"][0]["fer"].is_number());
  for (const char* key : {"ber", "fer", "ser", "ber_ci95", "fer_ci95", "ser_ci95", "decoder_mbps"})
    EXPECT_TRUE(j["points"][1][key].is_null()) << key;
  EXPECT_FALSE(j["provenance"]["started_utc"].get<std::string>().empty());
  EXPECT_FALSE(j["provenance"]["git_commit"].get<std::string>().empty());
  EXPECT_GT(j["provenance"]["host"]["hardware_threads"].get<int>(), 0);
  const std::string csv = to_csv(run, s);
  std::vector<std::string> lines;
  for (std::size_t at = 0, next; (next = csv.find('\n', at)) != std::string::npos; at = next + 1)
    lines.push_back(csv.substr(at, next - at));
  ASSERT_EQ(lines.size(), 4u) << csv;  // the header and the three requested points
  EXPECT_NE(lines[2].find(",interrupted,1,2,"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find(",,,,,,,,,"), std::string::npos) << "empty rates: " << lines[2];
  EXPECT_NE(lines[3].find(",interrupted,2,3,"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[3].substr(lines[3].size() - 8), ",not-run") << lines[3];
  for (const std::string& line : lines)  // every line has the header's fields
    EXPECT_EQ(std::count(line.begin(), line.end(), ','),
              std::count(lines[0].begin(), lines[0].end(), ','))
        << line;
  std::ostringstream table;
  table_printer printer(table, run);
  printer.on_point(s.points[1]);
  printer.print_footer(s, "SIGTERM");
  EXPECT_EQ(table.str().find("0.000e+00"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("interrupted by SIGTERM"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("2 of 3 point(s) run, the others not"), std::string::npos);
}

std::vector<point_result> uncoded_sweep(int threads, std::size_t batch) {
  const uncoded::family fam({256}, backend::cpu);
  options opt;
  opt.seed = 42;
  opt.stop.max_fe = 40;
  opt.threads = threads;
  opt.batch_frames = batch;
  const std::vector<double> points = {3.0, 6.0};
  return run_sweep(fam, points, opt).points;
}

TEST(Determinism, SameResultsWhateverThreadsAndBatchSize) {
  const auto reference = uncoded_sweep(1, 7);
  ASSERT_EQ(reference.size(), 2u);
  for (const auto& [threads, batch] : {std::pair{2, 7}, std::pair{1, 64}, std::pair{2, 64}}) {
    const auto other = uncoded_sweep(threads, static_cast<std::size_t>(batch));
    ASSERT_EQ(other.size(), reference.size());
    for (std::size_t p = 0; p < reference.size(); ++p) {
      EXPECT_EQ(other[p].frames, reference[p].frames) << threads << " threads, batch " << batch;
      EXPECT_EQ(other[p].frame_errors, reference[p].frame_errors);
      EXPECT_EQ(other[p].bit_errors, reference[p].bit_errors);
      EXPECT_EQ(other[p].seed, reference[p].seed);
    }
  }
  EXPECT_EQ(reference[0].frame_errors, 40u);
  EXPECT_GT(reference[1].frames, reference[0].frames);  // fewer errors at 6 dB
}

TEST(Determinism, DifferentSeedsGiveDifferentNumbers) {
  const uncoded::family fam({256}, backend::cpu);
  options a, b;
  a.stop.max_fe = b.stop.max_fe = 20;
  b.seed = 1;
  const point_result ra = run_point(fam, 4.0, 0, a), rb = run_point(fam, 4.0, 0, b);
  EXPECT_NE(std::pair(ra.frames, ra.bit_errors), std::pair(rb.frames, rb.bit_errors));
}

}  // namespace
}  // namespace gpufec::sim
