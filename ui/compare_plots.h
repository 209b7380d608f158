// The plots of `x86lab compare` (docs/compare.md, "Plots"): per scenario, bar charts
// of the metrics that differ between variants, and for each SAMPLES distribution the
// cumulative histogram of the seed 004 latency figure (log-log; x: value in cycles,
// y: number of samples greater than x; one curve per variant). gnuplot (Debian package
// gnuplot-nox) renders generated scripts to SVG and PNG.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "ui/compare_report.h"

namespace x86lab {

struct PlotOutcome {
  std::vector<std::string> rendered;  // file names written in the folder (.svg and .png)
  std::string problem;                // why plots were not rendered ("gnuplot not found on PATH"), or ""
  std::string write_error;            // a script or plot that could not be written (a full disk; exit 2), or ""
};

// Writes <scenario>-metrics.gp and <scenario>-<samples>-ccdf.gp into `dir` and runs
// gnuplot on each. The scripts stay so that a reader can restyle a plot.
PlotOutcome write_plots(const CompareReport& report, const std::filesystem::path& dir);

// Writes each (stem, script) as <stem>.gp (empty scripts are skipped) and renders it
// with gnuplot to <stem>.svg and <stem>.png (the scripts set those outputs).
PlotOutcome render_plot_scripts(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

// A gnuplot single-quoted string ('' stands for one quote).
std::string gnuplot_quoted(const std::string& text);
// The script's output section for both formats, `width` x `height` pixels: `body`
// plots into the current terminal, once as <stem>.svg and once as <stem>.png.
std::string gnuplot_both_formats(const std::filesystem::path& stem, int width, int height, const std::string& body);

// The points of the cumulative histogram of `samples`: for each distinct value x in
// increasing order, (x, number of samples > x), preceded by (x_min - 1, n) (x_min / 2
// when x_min <= 1) so the curve starts at the total; values <= 0 are left out (log axis).
std::vector<std::pair<double, double>> exceedance_points(std::vector<i64> samples);

}  // namespace x86lab
