// How a sweep is shown and saved: an aligned table on a stream (one row per point, flushed as the
// point ends, AFF3CT-style), and JSON / CSV files with every parameter and figure (the field list
// is in docs/simulator.md).
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "gpufec/sim/simulator.hpp"

namespace gpufec::sim {

// What a run was: the family's own parameters plus the simulator's options.
struct run_description {
  std::string family;
  std::string backend;
  std::string sweep_name;
  fields parameters;
  options opt;
  // The first point's plan, made before any work (what it holds and how much memory it takes),
  // printed in the table's header; empty when not known.
  fields first_plan;
};
run_description describe(const family& fam, const options& opt);

class table_printer final : public observer {
 public:
  table_printer(std::ostream& out, run_description run);
  void print_header();  // the parameter block and the column titles
  void on_point(const point_result& r) override;
  void print_footer(const sweep_result& s);

 private:
  std::ostream& out_;
  run_description run_;
};

// A report value as the table and CSV show it (text as it is, numbers as JSON writes them).
std::string text_of(const nlohmann::json& value);

nlohmann::json to_json(const run_description& run, const sweep_result& s);
// One header line, then one line per point; every parameter is repeated on each line so a file
// concatenates and filters well. BER fields are empty where BER is not defined.
std::string to_csv(const run_description& run, const sweep_result& s);
void write_json(const std::string& path, const run_description& run, const sweep_result& s);
void write_csv(const std::string& path, const run_description& run, const sweep_result& s);

// The --json and --csv files of a sweep, rewritten whole (atomically) after each point: opened
// before any work (a bad path fails at once), and a sweep that dies keeps its finished points.
// Refuses two paths that name the same file.
class report_files final : public observer {
 public:
  report_files(std::string json_path, std::string csv_path, run_description run);
  void on_point(const point_result& r) override;

 private:
  void write() const;
  std::string json_path_, csv_path_;
  run_description run_;
  sweep_result done_;
};

}  // namespace gpufec::sim
