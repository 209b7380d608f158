// `x86lab compare sweep` (docs/compare.md, "Sweeps"): a scenario's variants run at every
// point of the cross product of its guests' knob values (the manifest's "knobs"), one
// row per point and variant in sweep.csv, and plots. The points run on local threads
// (--jobs) or as independent jobs written by --emit-jobs for GNU parallel or Slurm
// (ui/compare_sweep_jobs.cpp), whose result files `compare collect` merges into the same
// bytes: every path goes through the point result text of point_result_text.
#pragma once
#include <boost/program_options.hpp>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "platform/scenario/manifest.h"

namespace x86lab {

// One varied knob: its name (a manifest knob) and values in --vary order.
struct SweepAxis {
  std::string knob;
  std::vector<u64> values;
};

struct SweepPlan {
  ScenarioManifest manifest;
  std::vector<std::string> variants;  // the selected variants, manifest order, baseline included
  std::vector<SweepAxis> axes;        // in --vary order
  std::string profile = "p3";         // --profile (a built-in name or a cost-model file)
  std::string cache_model = "on";     // --cache-model

  // The cross product, first axis slowest: each point is one value per axis.
  std::vector<std::vector<u64>> points() const;
};

// The outcome of one point: per variant its success and the value of every metric
// (docs/compare.md "Metrics": counter, guest and samples rows), as formatted text.
struct PointResult {
  std::string scenario;
  std::vector<std::pair<std::string, u64>> knobs;  // the point: knob name and value, axis order
  std::vector<std::string> variants;
  std::vector<bool> succeeded;
  // "<source>.<key>" (counter.cycles, guest.operations, samples.latency.p99) -> one value
  // per variant ("" when it has none); the first row is "slowdown", cycles / baseline cycles.
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
};

// The largest sweeps: a sweep run in one process keeps every run's result in memory
// (about 650 KB each), so it may have at most kMaxLocalRuns runs (points x variants);
// --emit-jobs writes at most kMaxEmittedPoints jobs.
inline constexpr unsigned long long kMaxLocalRuns = 20000, kMaxEmittedPoints = 100000;
// Throws InputError naming --vary when the plan is larger than those limits.
void check_sweep_size(const SweepPlan& plan, bool emitted);

// Parses "NAME=V1,V2,..." of --vary against the manifest's knobs: a known knob, one or
// more whole decimal values inside [min, max], no value twice, the knob varied once.
// Throws InputError naming --vary and the problem.
SweepAxis parse_vary(const std::string& text, const ScenarioManifest& manifest,
                     const std::vector<SweepAxis>& earlier);

// The variant with the knobs of `point` appended to its command line ("density=10 run=2").
VariantSpec variant_at_point(const VariantSpec& variant, const SweepPlan& plan, const std::vector<u64>& point);

// Runs the plan's variants at `points` (indices into plan.points()) on up to `threads`
// threads and returns a PointResult per point, in order. Throws InputError for a missing
// guest image.
std::vector<PointResult> run_sweep_points(const SweepPlan& plan, const std::vector<std::size_t>& points,
                                          unsigned threads);

// The result file of one point (`compare sweep-point --out`) and its reader. The reader
// throws InputError "sweep result '<file>': <problem>" for anything malformed.
std::string point_result_text(const PointResult& result);
PointResult parse_point_result(const std::string& text, const std::string& file);

// sweep.csv: header "<knob>...,variant,succeeded,<rows...>", then one line per point and
// variant in point order, variants in manifest order. Columns: the union of the points'
// rows in order of first appearance.
void write_sweep_csv(std::ostream& out, const std::vector<PointResult>& results);

// Writes DIR/sweep.csv (whole or not at all) and the plots (ui/compare_sweep_plots.cpp);
// reports on stderr. Returns 0, or 1 when some variant failed at some point. Throws
// InputError when a file cannot be written.
int write_sweep_outputs(const SweepPlan& plan, const std::vector<PointResult>& results,
                        const std::filesystem::path& dir);

// The plots of a sweep (ui/compare_sweep_plots.cpp): names of the files rendered, or an
// explanation in `problem`. Throws InputError when a script cannot be written.
struct SweepPlots {
  std::vector<std::string> rendered;
  std::string problem;
};
SweepPlots write_sweep_plots(const SweepPlan& plan, const std::vector<PointResult>& results,
                             const std::filesystem::path& dir);

// Parses `args` with `options` and the positional words collected under `positional`
// (a std::vector<std::string> option). Returns nothing after printing the options for
// --help.
std::optional<boost::program_options::variables_map> parse_sweep_args(
    const std::vector<std::string>& args, const boost::program_options::options_description& options,
    const char* positional);

// `x86lab compare sweep|sweep-point|collect ...` with the arguments after the subcommand.
int compare_sweep_command(const std::vector<std::string>& args);
int compare_sweep_point_command(const std::vector<std::string>& args);
int compare_collect_command(const std::vector<std::string>& args);

// --emit-jobs (ui/compare_sweep_jobs.cpp): writes the plan into `dir` as independent jobs.
void emit_sweep_jobs(const SweepPlan& plan, const std::filesystem::path& dir);

}  // namespace x86lab
