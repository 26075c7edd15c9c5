// How a sweep is shown and saved: an aligned table on a stream (one row per point, flushed as the
// point ends, AFF3CT-style), and JSON / CSV files with every parameter and figure (the field list
// is in docs/simulator.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpufec/sim/simulator.hpp"

namespace gpufec::sim {

// What a run was: the family's own parameters, the simulator's options, the points asked for and
// where the run happened (gpufec/common/provenance.hpp).
struct run_description {
  std::string family;
  std::string backend;
  std::string sweep_name;
  fields parameters;
  options opt;
  std::vector<double> points;  // the sweep as requested, in order
  // The plan of the point that needs the most memory, made before any work (what it holds and how
  // much memory it takes), printed in the table's header; empty when not known.
  fields first_plan;
  double plan_point = 0;      // the point first_plan was made for
  nlohmann::json provenance;  // null: not recorded
};
// The run's description; its provenance starts now.
run_description describe(const family& fam, const options& opt, std::vector<double> points);

class table_printer final : public observer {
 public:
  table_printer(std::ostream& out, run_description run);
  void print_header();  // the parameter block and the column titles
  void on_point(const point_result& r) override;
  // How the sweep ended: complete, interrupted (by `signal_name` when given), or failed and why.
  void print_footer(const sweep_result& s, const std::string& signal_name = {});

 private:
  std::ostream& out_;
  run_description run_;
};

// A report value as the table and CSV show it (text as it is, numbers as JSON writes them).
std::string text_of(const nlohmann::json& value);

// The run's status, the points requested and those run (docs/simulator.md lists every field):
// "status" (running, complete, interrupted, failed), "completed", "interrupted", "signal" (the
// signal that interrupted it, or null), "error" (null, or the failed point's message),
// "points_requested", "points" (each run point's counts; rates null where undefined).
nlohmann::json to_json(const run_description& run, const sweep_result& s,
                       const std::string& signal_name = {});
// One header line, then one line per requested point (a point not run has its value, `not-run`
// and empty figures); every parameter and the run's status are repeated on each line so a file
// concatenates and filters well. Figures are empty where they are not defined.
std::string to_csv(const run_description& run, const sweep_result& s);
void write_json(const std::string& path, const run_description& run, const sweep_result& s);
void write_csv(const std::string& path, const run_description& run, const sweep_result& s);

// The --json and --csv files of a sweep: opened before any work (a bad path fails at once),
// rewritten whole (atomically) after each point with the status "running", so a sweep that dies
// keeps its finished points in a file that says it is not finished, and written a last time by
// finish() with the sweep's status. A path "-" is standard output: written once, by finish().
// Refuses two paths that name the same file, and two documents on standard output.
class report_files final : public observer {
 public:
  report_files(std::string json_path, std::string csv_path, run_description run);
  void on_point(const point_result& r) override;
  // The last write: the sweep's points and status (a failed sweep's error, an interrupt's signal).
  void finish(const sweep_result& s, std::string signal_name = {});

 private:
  void write(bool last) const;
  std::string json_path_, csv_path_;
  run_description run_;
  sweep_result done_;
  std::string signal_;
};

}  // namespace gpufec::sim
