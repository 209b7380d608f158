// gnuplot scripts for the plots of `x86lab compare` (docs/compare.md, "Plots").
#include "ui/compare_plots.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "trace/output_file.h"

extern char** environ;

namespace x86lab {
namespace {

constexpr std::size_t kMaxPanels = 15;
constexpr int kPanelColumns = 3;

}  // namespace

std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return true;
  return false;
}

// Runs `gnuplot script`; true when it exited with status 0.
bool run_gnuplot(const std::filesystem::path& script) {
  std::string program = "gnuplot", argument = script.string();
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ) != 0) return false;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::string gnuplot_both_formats(const std::filesystem::path& stem, int width, int height, const std::string& body) {
  std::ostringstream out;
  out << "set terminal svg size " << width << "," << height << " noenhanced font 'sans,11' background '#ffffff'\n"
      << "set output " << gnuplot_quoted(stem.string() + ".svg") << "\n"
      << body << "set terminal pngcairo size " << width << "," << height << " noenhanced font 'sans,9'\n"
      << "set output " << gnuplot_quoted(stem.string() + ".png") << "\n"
      << body << "unset output\n";
  return out.str();
}

namespace {

// True when the successful variants' values are not all equal.
bool differs(const MetricRow& row) {
  std::optional<double> first;
  for (const auto& value : row.values) {
    if (!value) continue;
    if (first && *first != *value) return true;
    if (!first) first = value;
  }
  return false;
}

std::string metrics_script(const ScenarioComparison& c, const std::filesystem::path& stem) {
  std::vector<const MetricRow*> panels;
  for (int pass = 0; pass < 2; ++pass)  // headline rows first
    for (const MetricRow& row : c.rows)
      if (row.source != MetricSource::Samples && row.headline == (pass == 0) && differs(row) &&
          panels.size() < kMaxPanels)
        panels.push_back(&row);
  if (panels.empty()) return {};
  std::ostringstream data, body;
  for (std::size_t p = 0; p < panels.size(); ++p) {
    data << "$m" << p << " << EOD\n";
    for (std::size_t v = 0; v < c.variants.size(); ++v)
      if (panels[p]->values[v])
        data << c.variants[v]->name << " " << format_value(*panels[p]->values[v]) << "\n";
    data << "EOD\n";
  }
  const int rows = static_cast<int>((panels.size() + kPanelColumns - 1) / kPanelColumns);
  body << "set multiplot layout " << rows << "," << kPanelColumns << " title "
       << gnuplot_quoted(c.manifest->scenario + ": " + c.manifest->title) << "\n";
  for (std::size_t p = 0; p < panels.size(); ++p)
    body << "set title " << gnuplot_quoted(panels[p]->label.substr(panels[p]->label.find_first_not_of(' '))) << "\n"
         << "plot $m" << p << " using 0:2:xtic(1) with boxes lc rgb '#4477aa' notitle, "
         << "$m" << p << " using 0:2:(abs($2) < 1000 ? sprintf('%g', $2) : gprintf('%.3s%c', $2)) with labels rotate by 90 left offset 0,0.4 notitle\n";
  body << "unset multiplot\n";
  std::ostringstream script;
  script << "# Bar charts of the metrics that differ between the variants of " << c.manifest->scenario
         << " (x86lab compare; docs/compare.md).\n"
         << data.str() << "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset yrange [0:*]\n"
         << "set offsets 0.5, 0.5, graph 0.3, 0\nset xtics rotate by 30 right nomirror\nset format y '%.1s%c'\n"
         << "set grid ytics\n"
         << gnuplot_both_formats(stem, std::max<int>(1200, kPanelColumns * (140 + 36 * int(c.variants.size()))),
                         40 + 320 * rows, body.str());
  return script.str();
}

std::string ccdf_script(const ScenarioComparison& c, const std::string& name, const std::filesystem::path& stem) {
  std::ostringstream data, plot;
  plot << "plot ";
  bool first = true;
  for (std::size_t v = 0; v < c.variants.size(); ++v) {
    const auto found = c.results[v]->samples.find(name);
    if (!c.results[v]->succeeded || found == c.results[v]->samples.end()) continue;
    data << "$v" << v << " << EOD\n";
    // The last point (no sample above the maximum) has y = 0, which a log axis cannot
    // show; 0.1 lies below the y range, so the step down at the maximum stays visible.
    for (const auto& [x, y] : exceedance_points(found->second))
      data << format_value(x) << " " << format_value(y > 0 ? y : 0.1) << "\n";
    data << "EOD\n";
    plot << (first ? "" : ", ") << "$v" << v << " using 1:2 with steps lw 2 dt " << (v % 5 + 1) << " title " << gnuplot_quoted(c.variants[v]->name);
    first = false;
  }
  if (first) return {};
  std::ostringstream script;
  script << "# Cumulative histogram of the " << name << " samples of " << c.manifest->scenario
         << " (x86lab compare; docs/compare.md), drawn like the seed 004 latency figure.\n"
         << data.str() << "set logscale xy\nset yrange [0.8:*]\nset grid\nset key top right\n"
         << "set title " << gnuplot_quoted(c.manifest->scenario + ": " + name + " (cumulative, log-log)") << "\n"
         << "set xlabel 'latency x (cycles)'\nset ylabel 'samples with latency > x'\n"
         << gnuplot_both_formats(stem, 800, 560, plot.str() + "\n");
  return script.str();
}

}  // namespace

std::vector<std::pair<double, double>> exceedance_points(std::vector<i64> samples) {
  samples.erase(std::remove_if(samples.begin(), samples.end(), [](i64 x) { return x <= 0; }), samples.end());
  std::sort(samples.begin(), samples.end());
  std::vector<std::pair<double, double>> points;
  if (samples.empty()) return points;
  const double n = static_cast<double>(samples.size());
  const double x_min = static_cast<double>(samples.front());
  points.emplace_back(x_min > 1 ? x_min - 1 : x_min / 2, n);
  for (std::size_t i = 0; i < samples.size();) {
    std::size_t j = i;
    while (j < samples.size() && samples[j] == samples[i]) ++j;
    points.emplace_back(static_cast<double>(samples[i]), n - static_cast<double>(j));
    i = j;
  }
  return points;
}

PlotOutcome write_plots(const CompareReport& report, const std::filesystem::path& dir) {
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  for (const ScenarioComparison& c : report.scenarios) {
    const auto stem = dir / (c.manifest->scenario + "-metrics");
    files.emplace_back(stem, metrics_script(c, stem));
    std::vector<std::string> names;
    for (const VariantResult* result : c.results)
      for (const auto& entry : result->samples) names.push_back(entry.first);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const std::string& name : names) {
      const auto ccdf = dir / (c.manifest->scenario + "-" + name + "-ccdf");
      files.emplace_back(ccdf, ccdf_script(c, name, ccdf));
    }
  }
  return render_plot_scripts(files);
}

PlotOutcome render_plot_scripts(const std::vector<std::pair<std::filesystem::path, std::string>>& files) {
  PlotOutcome outcome;
  std::vector<std::filesystem::path> scripts;
  for (const auto& [file_stem, text] : files) {
    if (text.empty()) continue;
    const auto script = std::filesystem::path(file_stem.string() + ".gp");
    try {
      write_whole_file(script.string(), text, "plot script");
    } catch (const OutputError& error) {
      outcome.write_error = error.what();
      return outcome;
    }
    scripts.push_back(script);
  }
  if (!on_path("gnuplot")) {
    outcome.problem = "gnuplot not found on PATH (Debian package gnuplot-nox): plot scripts written, not rendered";
    return outcome;
  }
  for (const auto& script : scripts) {
    if (!run_gnuplot(script)) {
      outcome.problem = "gnuplot failed on " + script.string();
      continue;
    }
    const std::string stem = script.stem().string();
    for (const char* extension : {".svg", ".png"}) {
      // gnuplot exits 0 on a full disk: an empty or missing plot is a write error here.
      std::error_code error;
      const auto plot = script.parent_path() / (stem + extension);
      if (std::filesystem::file_size(plot, error) == 0 || error) {
        outcome.write_error = "cannot write plot '" + plot.string() + "': gnuplot left it " + (error ? "missing" : "empty");
        std::filesystem::remove(plot, error);
        continue;
      }
      outcome.rendered.push_back(stem + extension);
    }
  }
  return outcome;
}

}  // namespace x86lab
