// The plots of `x86lab compare sweep` (docs/compare.md, "Sweeps"): one line per variant
// of a metric against one varied knob, drawn by gnuplot like compare's plots
// (ui/compare_plots.h); the scripts stay beside the plots, data inline.
//   - every scenario: the slowdown (modeled cycles / the baseline's at the same point)
//     against each varied knob;
//   - tls: with the seed's own slowdowns overlaid (the manifest's seed time_ms over the
//     baseline's: `ls -R /usr/lib`, 300 / 180 ms emulation, 390 / 180 ms flipping) against
//     density, and the fault ratio (#GP deliveries per %gs access) against the sign run;
//   - ctxsw: the guest's cycles per switch routine per design against descriptors;
//   - irq: the ping-pong cycles over the baseline's against timer_hz, with realistic
//     rates marked (three of Linux's CONFIG_HZ choices, 100, 250 and 1000, kernel/Kconfig.hz; and an
//     assumed 8000 interrupts/s of a NIC with interrupt moderation, labelled so).
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

#include "platform/input_error.h"
#include "ui/compare_plots.h"
#include "ui/compare_sweep.h"

namespace x86lab {
namespace {

std::optional<double> number(const PointResult& result, const std::string& column, std::size_t variant) {
  for (const auto& [key, values] : result.rows)
    if (key == column) {
      if (values.at(variant).empty()) return std::nullopt;
      return std::strtod(values[variant].c_str(), nullptr);
    }
  return std::nullopt;
}

// A y value of a variant at a point: nullopt when it has none.
using Measure = std::optional<double> (*)(const SweepPlan&, const PointResult&, std::size_t variant);

std::optional<double> slowdown(const SweepPlan&, const PointResult& result, std::size_t v) {
  return number(result, "slowdown", v);
}

std::optional<double> fault_ratio(const SweepPlan&, const PointResult& result, std::size_t v) {
  const auto negative = number(result, "guest.tls_accesses_negative", v);
  const auto positive = number(result, "guest.tls_accesses_positive", v);
  if (!negative || !positive || *negative + *positive == 0) return std::nullopt;
  return number(result, "counter.vector_13", v).value_or(0) / (*negative + *positive);
}

std::optional<double> pingpong_ratio(const SweepPlan& plan, const PointResult& result, std::size_t v) {
  std::size_t baseline = 0;
  while (baseline < result.variants.size() && result.variants[baseline] != plan.manifest.baseline) ++baseline;
  if (baseline == result.variants.size()) return std::nullopt;
  const auto mine = number(result, "guest.pingpong_cycles", v);
  const auto base = number(result, "guest.pingpong_cycles", baseline);
  if (!mine || !base || *base == 0) return std::nullopt;
  return *mine / *base;
}

// ctxsw: the cycles of the whole switch routine, where the variant used the knob's count.
std::optional<double> switch_cycles(const SweepPlan&, const PointResult& result, std::size_t v) {
  const auto used = number(result, "guest.tls_descriptors", v);
  for (const auto& [knob, value] : result.knobs)
    if (knob == "descriptors" && (!used || *used != static_cast<double>(value))) return std::nullopt;
  return number(result, "guest.cycles_per_switch", v);
}

struct PlotSpec {
  std::string stem;    // file name without extension
  std::string knob;    // the x axis
  std::string ylabel;
  Measure measure;
  bool log_x = false;
  bool skip_baseline = true;  // the baseline's ratio is 1 by construction
  std::string extras;         // gnuplot commands before `plot` (marks)
  std::string overlay;        // extra plot items after the variants' lines
};

// The series of a plot: one per variant and combination of the other knobs' values.
std::string plot_script(const SweepPlan& plan, const std::vector<PointResult>& results, const PlotSpec& spec,
                        const std::filesystem::path& stem) {
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  std::vector<std::string> order;
  for (const PointResult& result : results)
    for (std::size_t v = 0; v < result.variants.size(); ++v) {
      if (spec.skip_baseline && result.variants[v] == plan.manifest.baseline) continue;
      std::string title = result.variants[v];
      double x = 0;
      for (const auto& [knob, value] : result.knobs)
        if (knob == spec.knob) x = static_cast<double>(value);
        else title += " " + knob + "=" + std::to_string(value);
      const auto y = result.succeeded[v] ? spec.measure(plan, result, v) : std::nullopt;
      if (!y) continue;
      if (!series.count(title)) order.push_back(title);
      series[title].emplace_back(x, *y);
    }
  if (order.empty()) return {};
  std::ostringstream data, plot;
  plot << "plot ";
  for (std::size_t s = 0; s < order.size(); ++s) {
    data << "$s" << s << " << EOD\n";
    for (const auto& [x, y] : series[order[s]]) data << x << " " << y << "\n";
    data << "EOD\n";
    plot << (s ? ", " : "") << "$s" << s << " using 1:2 with linespoints lw 2 pt " << (s % 7 + 1) << " dt "
         << (s % 5 + 1) << " title " << gnuplot_quoted(order[s]);
  }
  plot << spec.overlay << "\n";
  const ScenarioKnob* knob = nullptr;
  for (const ScenarioKnob& k : plan.manifest.knobs)
    if (k.name == spec.knob) knob = &k;
  std::ostringstream script;
  script << "# " << spec.ylabel << " against " << spec.knob << ", " << plan.manifest.scenario
         << " sweep (x86lab compare sweep; docs/compare.md), profile " << plan.profile << ".\n"
         << data.str() << "set grid\nset key outside right top\n" << (spec.log_x ? "set logscale x\n" : "")
         << "set title " << gnuplot_quoted(plan.manifest.scenario + ": " + spec.ylabel + " vs " + spec.knob) << "\n"
         << "set xlabel " << gnuplot_quoted(spec.knob + (knob ? ": " + knob->description.substr(0, knob->description.find_first_of(";(")) : ""))
         << "\n"
         << "set ylabel " << gnuplot_quoted(spec.ylabel) << "\n" << spec.extras
         << gnuplot_both_formats(stem, 1100, 600, plot.str());
  return script.str();
}

// The seed's slowdowns of the tls manifest: each variant's seed time_ms over the baseline's.
std::string seed_overlay(const SweepPlan& plan, std::string& extras) {
  const VariantSpec* baseline = plan.manifest.find(plan.manifest.baseline);
  if (!baseline || !baseline->seed.count("time_ms")) return {};
  std::ostringstream overlay, labels;
  int placed = 0;
  for (const VariantSpec& variant : plan.manifest.variants) {
    if (&variant == baseline || !variant.seed.count("time_ms")) continue;
    const double ratio = variant.seed.at("time_ms") / baseline->seed.at("time_ms");
    char text[160];
    std::snprintf(text, sizeof text, "seed 000 ls -R, %s: %.0f / %.0f ms = +%.0f %%", variant.name.c_str(),
                  variant.seed.at("time_ms"), baseline->seed.at("time_ms"), (ratio - 1) * 100);
    overlay << ", " << ratio << " with lines lw 1 lc rgb '#888888' dt 2 notitle";
    labels << "set label " << gnuplot_quoted(text) << " at graph " << (placed++ % 2 ? 0.45 : 0.02) << ", first " << ratio
           << " offset 0,0.6 tc rgb '#555555'\n";
  }
  extras += labels.str();
  return overlay.str();
}

}  // namespace

SweepPlots write_sweep_plots(const SweepPlan& plan, const std::vector<PointResult>& results,
                             const std::filesystem::path& dir) {
  std::vector<PlotSpec> specs;
  const std::string& scenario = plan.manifest.scenario;
  for (const SweepAxis& axis : plan.axes) {
    if (axis.values.size() < 2) continue;
    PlotSpec spec{scenario + "-slowdown-vs-" + axis.knob, axis.knob,
                  "modeled cycles / " + plan.manifest.baseline + "'s", slowdown, false, true, "", ""};
    if (scenario == "tls" && axis.knob == "density") spec.overlay = seed_overlay(plan, spec.extras);
    if (scenario == "irq" && axis.knob == "timer_hz") {
      spec.log_x = true;
      spec.stem = scenario + "-pingpong-vs-timer_hz";
      spec.ylabel = "ping-pong cycles / " + plan.manifest.baseline + "'s";
      spec.measure = pingpong_ratio;
      for (const char* hz : {"100", "250", "1000"})
        spec.extras += "set arrow from " + std::string(hz) + ", graph 0 to " + hz +
                       ", graph 1 nohead dt 3 lc rgb '#888888'\nset label 'HZ=" + hz + "' at " + hz +
                       ", graph 0.97 left offset 0.3,0 tc rgb '#555555'\n";
      spec.extras +=
          "set arrow from 8000, graph 0 to 8000, graph 1 nohead dt 3 lc rgb '#888888'\n"
          "set label 'NIC 8000/s (assumption)' at 8000, graph 0.90 left offset 0.3,0 tc rgb '#555555'\n";
    }
    specs.push_back(spec);
    if (scenario == "ctxsw" && axis.knob == "descriptors")
      specs.push_back({scenario + "-switch-cycles-vs-descriptors", axis.knob, "cycles per switch (guest, Luca's method)",
                       switch_cycles, false, false, "", ""});
    if (scenario == "tls" && axis.knob == "run")
      specs.push_back({scenario + "-faults-vs-run", "run", "#GP faults per %gs access", fault_ratio, false, false, "", ""});
  }
  std::vector<std::pair<std::filesystem::path, std::string>> files;
  for (const PlotSpec& spec : specs) files.emplace_back(dir / spec.stem, plot_script(plan, results, spec, dir / spec.stem));
  const PlotOutcome outcome = render_plot_scripts(files);
  if (!outcome.write_error.empty()) throw InputError(outcome.write_error);
  return {outcome.rendered, outcome.problem};
}

}  // namespace x86lab
