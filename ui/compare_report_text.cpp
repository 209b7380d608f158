// Text and Markdown reports of `x86lab compare` (docs/compare.md, "Report").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "platform/scenario/seed_figures.h"
#include "ui/compare_report.h"

namespace x86lab {
namespace {

// A grid of cells, rendered either as space-aligned text or as a Markdown table.
struct Grid {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  bool numeric = true;  // Markdown: right-align the columns after the first

  void write_text(std::ostream& out, const std::string& indent) const {
    std::vector<std::size_t> widths(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c) widths[c] = header[c].size();
    for (const auto& row : rows)
      for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
    const auto line = [&](const std::vector<std::string>& cells) {
      std::string text = indent;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const std::string pad(widths[c] - cells[c].size(), ' ');
        text += c == 0 ? cells[c] + pad : "  " + pad + cells[c];  // first column left, numbers right
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      out << text << "\n";
    };
    line(header);
    for (const auto& row : rows) line(row);
  }

  void write_markdown(std::ostream& out) const {
    const auto line = [&](const std::vector<std::string>& cells) {
      out << "|";
      for (const std::string& cell : cells) {
        std::string text = cell;
        text.erase(0, text.find_first_not_of(' '));
        out << " " << text << " |";
      }
      out << "\n";
    };
    line(header);
    out << "|---|";
    for (std::size_t c = 1; c < header.size(); ++c) out << (numeric ? "---:|" : "---|");
    out << "\n";
    for (const auto& row : rows) line(row);
  }
};

std::string cell(const std::optional<double>& value) { return value ? format_value(*value) : "-"; }

Grid metrics_grid(const ScenarioComparison& c) {
  Grid grid;
  grid.header.push_back("metric");
  for (std::size_t v = 0; v < c.variants.size(); ++v)
    grid.header.push_back(c.variants[v]->name + (c.results[v]->succeeded ? "" : " (FAILED)"));
  for (const MetricRow& row : c.rows) {
    std::vector<std::string> cells{row.label};
    for (const auto& value : row.values) cells.push_back(cell(value));
    grid.rows.push_back(std::move(cells));
  }
  return grid;
}

Grid ratio_grid(const ScenarioComparison& c) {
  Grid grid;
  grid.header.push_back("ratio to " + c.manifest->baseline);
  for (const VariantSpec* variant : c.variants) grid.header.push_back(variant->name);
  for (const MetricRow& row : c.rows) {
    if (!row.headline) continue;
    std::vector<std::string> cells{row.label};
    bool any = false;  // a row of ratios that are all 1 says nothing: left out
    for (std::size_t v = 0; v < c.variants.size(); ++v) {
      const auto ratio = c.ratio(row, v);
      cells.push_back(ratio ? format_ratio(*ratio) : "-");
      any = any || (ratio && *ratio != 1.0);
    }
    if (any) grid.rows.push_back(std::move(cells));
  }
  return grid;
}

// The seed's numbers for each variant beside x86lab's, each with its ratio to the
// baseline's number of the same name.
Grid seed_grid(const ScenarioComparison& c) {
  Grid grid;
  grid.header = {"variant", "seed quantity", "seed", "seed ratio", "x86lab quantity", "x86lab", "x86lab ratio"};
  const VariantSpec* baseline = c.manifest->find(c.manifest->baseline);
  for (std::size_t v = 0; v < c.variants.size(); ++v) {
    for (const auto& [key, seed] : c.variants[v]->seed) {
      std::vector<std::string> cells{c.variants[v]->name, key, format_seed(seed), "-", c.seed_quantity(key), "-", "-"};
      const auto base_seed = baseline->seed.find(key);
      if (base_seed != baseline->seed.end() && base_seed->second != 0)
        cells[3] = format_ratio(seed / base_seed->second);
      const auto ours = c.seed_counterpart(key, v);
      if (ours) cells[5] = format_value(*ours);
      if (ours && c.baseline) {
        const auto base_ours = c.seed_counterpart(key, *c.baseline);
        if (base_ours && *base_ours != 0) cells[6] = format_ratio(*ours / *base_ours);
      }
      grid.rows.push_back(std::move(cells));
    }
  }
  return grid;
}

void write_failures(std::ostream& out, const ScenarioComparison& c, const std::string& indent) {
  for (std::size_t v = 0; v < c.variants.size(); ++v)
    if (!c.results[v]->succeeded) out << indent << c.variants[v]->name << " FAILED: " << c.results[v]->failure << "\n";
}

std::string optional_cell(const std::optional<double>& value) {
  if (!value) return "-";
  return *value == std::floor(*value) ? format_value(*value) : format_seed(*value);
}

// The largest parts of a breakdown, "count x each" (by cycles, largest first).
std::string largest_parts(const std::vector<CostLine>& lines, std::size_t how_many) {
  std::vector<CostLine> sorted = lines;
  std::sort(sorted.begin(), sorted.end(), [](const CostLine& a, const CostLine& b) {
    return std::fabs(double(a.count) * a.cycles_each) > std::fabs(double(b.count) * b.cycles_each);
  });
  std::string text;
  for (std::size_t i = 0; i < sorted.size() && i < how_many; ++i)
    text += (i ? "; " : "") + sorted[i].part + " " + format_seed(sorted[i].count) + " x " +
            format_seed(sorted[i].cycles_each);
  return text.empty() ? "-" : text;
}

std::string percent_of(double part, double total) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f", total > 0 ? 100 * part / total : 0.0);
  return text;
}

// "source/calibrated/assumption %" of the breakdown's cycles, "-" without a breakdown.
std::string shares_cell(const SeedFigure& f) {
  const double total = f.shares.total();
  if (total <= 0) return "-";
  return percent_of(f.shares.source, total) + "/" + percent_of(f.shares.calibrated, total) + "/" +
         percent_of(f.shares.assumption, total);
}

std::string interval_cell(const SeedFigure& f) {
  if (!f.interval) return "-";
  return format_seed(f.interval->first) + " .. " + format_seed(f.interval->second);
}

// inside / below / above for a comparable row with an interval, else "-".
std::string verdict_cell(const SeedFigure& f) {
  return f.verdict == Verdict::None ? "-" : name_of(f.verdict);
}

Grid seed_figure_grid(const std::vector<SeedFigure>& figures) {
  Grid grid;
  grid.header = {"scenario", "figure", "seed", "x86lab", "interval", "seed vs interval", "derivation",
                 "src/cal/asm %", "sources", "largest parts (count x cycles)"};
  grid.numeric = false;
  for (const SeedFigure& f : figures)
    grid.rows.push_back({f.scenario, f.figure, optional_cell(f.seed_value), optional_cell(f.x86lab_value),
                         interval_cell(f), verdict_cell(f), name_of(f.derivation), shares_cell(f),
                         std::to_string(f.sources.size()), largest_parts(f.breakdown, 3)});
  return grid;
}

std::string signed_percent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", value * 100);
  return text;
}

// What the label means for the reader, after the derivation's name.
std::string label_words(const SeedFigure& f) {
  const double total = f.shares.total();
  std::string text = std::string(name_of(f.derivation)) + ": sourced constants price " +
                     percent_of(f.shares.source, total) + "% of its cycles, calibrated " +
                     percent_of(f.shares.calibrated, total) + "%, assumptions " + percent_of(f.shares.assumption, total) + "%";
  return text;
}

// The interval's verdict in words; ratio rows also as changes (+75 % for 1.75).
std::string interval_words(const SeedFigure& f, bool ratio) {
  const auto [low, high] = *f.interval;
  const double seed = *f.seed_value;
  const auto show = [&](double v) { return ratio ? signed_percent(v - 1) : format_seed(v); };
  std::string text = "seed " + show(seed) + ", x86lab " + show(*f.x86lab_value) + " within [" + show(low) + ", " +
                     show(high) + "] over the assumption ranges";
  switch (f.verdict) {
    case Verdict::Inside: text += ": the seed's value lies inside x86lab's interval (consistent; the model cannot tell it from the seed)"; break;
    case Verdict::Below: text += ": x86lab is below the seed at every corner of the ranges"; break;
    case Verdict::Above: text += ": x86lab is above the seed at every corner of the ranges"; break;
    case Verdict::None: break;
  }
  return text;
}

// One sentence per figure for a reader of the seeds: what reproduces, within which
// range, and what does not. Verdicts come from the interval (docs/compare.md).
std::vector<std::string> findings(const std::vector<SeedFigure>& figures) {
  std::vector<std::string> sentences;
  for (const SeedFigure& f : figures) {
    std::string text = f.scenario + ", " + f.figure + ": ";
    const bool ratio = f.figure.find(" / ") != std::string::npos;
    if (f.derivation == Derivation::NotModeled) {
      text += "not modeled (" + f.note + ").";
    } else if (f.derivation == Derivation::Calibrated) {
      text += "x86lab gives " + optional_cell(f.x86lab_value) + " because a constant was set from this figure (" +
              optional_cell(f.seed_value) + "); it is an input, not a reproduction.";
    } else if (f.derivation == Derivation::Counted) {
      // A count has no constants: the point is the result.
      const double seed_change = *f.seed_value - 1, change = *f.x86lab_value - 1;
      text += "seed " + signed_percent(seed_change) + ", x86lab " + signed_percent(change) +
              " (counted, no constant in it): " +
              (std::fabs(change - seed_change) <= 0.1 * std::fabs(seed_change) ? "reproduces within 10% of the change."
                                                                                  : "does not reproduce within 10% of the change.");
    } else if (!f.seed_value) {
      // The seed says it in words: "more often after the patch" is a ratio above 1.
      text += "the seed says it in words (a ratio above 1); x86lab's " + f.note + " is " + optional_cell(f.x86lab_value);
      if (f.interval)
        text += " within [" + format_seed(f.interval->first) + ", " + format_seed(f.interval->second) + "]" +
                (f.interval->first > 1 ? ", above 1 across it: reproduced"
                 : f.interval->second <= 1 ? ", not above 1 anywhere in it: not reproduced"
                                           : ": undecided, the interval holds 1");
      text += " (" + label_words(f) + ").";
    } else if (!f.comparable) {
      text += "x86lab gives " + optional_cell(f.x86lab_value) +
              (f.interval ? " (" + interval_cell(f) + " over the assumption ranges)" : std::string()) + " against the seed's " +
              optional_cell(f.seed_value) + ", not set against it: " + f.incomparable_why + ".";
    } else if (f.interval) {
      text += interval_words(f, ratio) + " (" + label_words(f) + ").";
    } else {
      text += "x86lab " + optional_cell(f.x86lab_value) + "; no interval (a denominator reaches zero within the ranges).";
    }
    sentences.push_back(text);
  }
  return sentences;
}

// For each seed comparison: the assumption constants that move x86lab's value most
// over their ranges, and the constant's value at which x86lab's equals the seed's.
std::vector<std::string> comparison_sensitivity(const std::vector<SeedFigure>& figures) {
  std::vector<std::string> sentences;
  for (const SeedFigure& f : figures) {
    if (f.effects.empty() || f.derivation == Derivation::Calibrated) continue;
    std::string text = f.scenario + ", " + f.figure + ": ";
    for (std::size_t i = 0; i < f.effects.size(); ++i) {
      const ConstantEffect& e = f.effects[i];
      text += (i ? "; " : "") + e.key + " " + format_seed(e.low) + ".." + format_seed(e.high) + " (assumed " +
              format_seed(e.assumed) + ") moves it " + format_seed(e.value_at_low) + " .. " + format_seed(e.value_at_high);
      if (f.seed_value && f.comparable) {
        if (e.break_even)
          text += ", equal to the seed's " + format_seed(*f.seed_value) + " at " + format_seed(*e.break_even) +
                  (*e.break_even >= e.low && *e.break_even <= e.high ? " (inside its range)" : " (outside its range)");
        else
          text += ", and no value of it (zero or more) gives the seed's";
      }
    }
    sentences.push_back(text + ".");
  }
  return sentences;
}

// The seed figures of `scenarios` priced with `model`, only those of the scenarios run.
std::vector<SeedFigure> figures_of(const std::vector<ScenarioComparison>& scenarios, const CostModel& model) {
  std::vector<SeedFigure> figures;
  for (SeedFigure& figure : seed_figures(scenarios, model))
    if (std::any_of(scenarios.begin(), scenarios.end(),
                    [&](const ScenarioComparison& c) { return c.manifest->scenario == figure.scenario; }))
      figures.push_back(std::move(figure));
  return figures;
}

void write_figures(std::ostream& out, const std::vector<ScenarioComparison>& scenarios, const CostModel& model,
                   const std::string& profile, bool markdown, const std::string& title) {
  const std::vector<SeedFigure> figures = figures_of(scenarios, model);
  const Grid grid = seed_figure_grid(figures);
  const std::vector<std::string> robustness = sensitivity(scenarios, model);
  if (markdown) {
    out << "\n## " << title << " (profile `" << profile << "`)\n\n";
    grid.write_markdown(out);
    out << "\n### Findings (" << profile << ")\n\n";
    for (const std::string& sentence : findings(figures)) out << "- " << sentence << "\n";
    out << "\n### Sensitivity of the seed comparisons (" << profile << ")\n\n"
        << "Each figure's three assumption constants with the largest swing over their ranges (every other\n"
        << "constant at its value), and the value of the constant at which x86lab's figure equals the seed's.\n\n";
    for (const std::string& sentence : comparison_sensitivity(figures)) out << "- " << sentence << "\n";
    out << "\n### Sensitivity of the rankings to the assumption constants (" << profile << ")\n\n";
    for (const std::string& sentence : robustness) out << "- " << sentence << "\n";
  } else {
    out << title << " (profile " << profile << ")\n\n";
    grid.write_text(out, "  ");
    out << "\n";
    for (const std::string& sentence : findings(figures)) out << "  " << sentence << "\n";
    out << "\n";
    for (const std::string& sentence : comparison_sensitivity(figures)) out << "  " << sentence << "\n";
    out << "\n";
    for (const std::string& sentence : robustness) out << "  " << sentence << "\n";
    out << "\n";
  }
}

void write_seed_figures(std::ostream& out, const CompareReport& report, bool markdown) {
  if (markdown)
    out << "\n## How to read the seed figures\n\n"
           "Every figure of docs/scenarios.md. Each x86lab value is counts x constants, and the cycles of its\n"
           "breakdown (|count x cycles|, so parts of a difference that cancel count both) are split by the\n"
           "provenance of their constants: `src/cal/asm %` is the share priced by `source:`, `calibrated on:`\n"
           "and `assumption:` constants (the rest is counted idle time). Derivation: `counted` from the guest run\n"
           "alone; `modeled` sourced constants price more than half of the cycles; otherwise `assumption-priced`\n"
           "or `calibrated-derived`, whichever of the two prices more; `calibrated` a constant was set from this\n"
           "figure (an input, not a reproduction); `not-modeled` no x86lab counterpart. The interval is the\n"
           "value's exact minimum and maximum with every assumption constant anywhere in its range (the cost\n"
           "files' `[low..high]`, docs/cost-model.md \"Ranges\"), found at the corners of the ranges; `seed vs\n"
           "interval` says whether the seed's value lies inside it, or the whole interval lies below or above\n"
           "it. The verdicts come from the interval, never from the point value. The largest parts are count x\n"
           "cycles of the measured window (ctxsw: Luca's loop minus the empty loop, per run; irq: the ping-pong\n"
           "window) or of the whole run; report.json's `seed_figures` holds every source, the whole breakdown,\n"
           "`shares`, `interval`, `seed_inside` and `verdict` (docs/compare.md, \"Labels, intervals and verdicts\"). A\n"
           "row whose seed quantity is not x86lab's (wall-clock time against cycles; ls -R against the tls\n"
           "micro-loop, whose every operation is a TLS access) gets no verdict: its finding says why.\n"
           "\n"
           "Absent here: the seed's ls -R slowdowns themselves. They come from `x86lab compare tls-real`\n"
           "(docs/compare.md, \"Linux workloads\"), which replays the TLS stream of ls -R recorded on the\n"
           "Linux compare guest, with and without the stack protector's canary reads; `compare all` does not\n"
           "boot Linux, so its report holds no tls-real rows.\n";
  write_figures(out, report.figure_scenarios(), report.model, report.profile, markdown, "Seed figures");
  for (const auto& run : report.seed_profile_runs)
    write_figures(out, {run->comparison}, run->model, run->profile, markdown,
                  "Seed figures of " + run->comparison.manifest->scenario + " under the seed's CPU");
}

}  // namespace

void write_text(std::ostream& out, const CompareReport& report) {
  for (const ScenarioComparison& c : report.scenarios) {
    const ScenarioManifest& m = *c.manifest;
    out << m.scenario << ": " << m.title << "\n";
    out << "  profile " << report.profile << ", baseline " << m.baseline;
    if (!m.operation.empty()) out << ", one operation = " << m.operation;
    if (!m.seed.empty()) out << ", seed " << m.seed;
    out << "\n\n";
    metrics_grid(c).write_text(out, "  ");
    const Grid ratios = ratio_grid(c);
    if (!ratios.rows.empty()) {
      out << "\n";
      ratios.write_text(out, "  ");
    }
    write_failures(out, c, "  ");
    out << "\n";
  }
  write_seed_figures(out, report, false);
}

void write_markdown(std::ostream& out, const CompareReport& report) {
  out << "# Design comparison: the seeds' numbers beside x86lab's\n\n";
  out << "Generated by `" << report.command << "` (CPU and cost profile `" << report.profile
      << "`); do not edit by hand. docs/compare.md explains the metrics. Ratios divide by the\n"
         "scenario's baseline variant; a seed ratio divides the seed's number by the seed's number\n"
         "of the same name for the baseline. The x86lab quantity is the guest METRIC or counter of\n"
         "the seed's name, the manifest's choice (seed_counterparts), or modeled cycles for a\n"
         "wall-clock time. \"-\" means no such number (or a failed variant).\n";
  for (const ScenarioComparison& c : report.scenarios) {
    const ScenarioManifest& m = *c.manifest;
    out << "\n## " << m.scenario << ": " << m.title << "\n\n";
    if (!m.seed.empty()) out << "Seed document: `" << m.seed << "`. ";
    out << "Baseline: `" << m.baseline << "`.";
    if (!m.operation.empty()) out << " One operation: " << m.operation << ".";
    out << "\n\n";
    Grid variants;
    variants.header = {"variant", "description"};
    variants.numeric = false;
    for (const VariantSpec* variant : c.variants) variants.rows.push_back({"`" + variant->name + "`", variant->description});
    variants.write_markdown(out);
    std::ostringstream failures;
    write_failures(failures, c, "- ");
    if (!failures.str().empty()) out << "\n" << failures.str();
    const Grid seeds = seed_grid(c);
    out << "\n### The seed's numbers beside x86lab's\n\n";
    if (seeds.rows.empty()) out << "The manifest gives no seed numbers.\n";
    else seeds.write_markdown(out);
    out << "\n### Metrics\n\n";
    metrics_grid(c).write_markdown(out);
    const Grid ratios = ratio_grid(c);
    if (!ratios.rows.empty()) {
      out << "\n### Ratios to `" << m.baseline << "`\n\n";
      ratios.write_markdown(out);
    }
  }
  write_seed_figures(out, report, true);
}

}  // namespace x86lab
