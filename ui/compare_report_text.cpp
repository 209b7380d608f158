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

Grid seed_figure_grid(const std::vector<SeedFigure>& figures) {
  Grid grid;
  grid.header = {"scenario", "figure", "seed", "x86lab", "derivation", "sources", "largest parts (count x cycles)"};
  grid.numeric = false;
  for (const SeedFigure& f : figures)
    grid.rows.push_back({f.scenario, f.figure, optional_cell(f.seed_value), optional_cell(f.x86lab_value),
                         name_of(f.derivation), std::to_string(f.sources.size()), largest_parts(f.breakdown, 3)});
  return grid;
}

// One sentence per figure for a reader of the seeds: what reproduces and what does not.
std::vector<std::string> findings(const std::vector<SeedFigure>& figures) {
  std::vector<std::string> sentences;
  for (const SeedFigure& f : figures) {
    std::string text = f.scenario + ", " + f.figure + ": ";
    if (f.derivation == Derivation::NotModeled) {
      text += "not modeled (" + f.note + ").";
    } else if (f.derivation == Derivation::Calibrated) {
      text += "x86lab gives " + optional_cell(f.x86lab_value) + " because a constant was set from this figure (" +
              optional_cell(f.seed_value) + "); it is an input, not a reproduction.";
    } else if (!f.seed_value) {
      // The seed says it in words: "more often after the patch" is a ratio above 1.
      const bool above = f.x86lab_value && *f.x86lab_value > 1;
      text += "the seed says it in words (a ratio above 1); x86lab's " + f.note + " is " + optional_cell(f.x86lab_value) +
              (above ? ": reproduced." : ": not reproduced.");
    } else if (f.figure.find(", ms") != std::string::npos || f.figure.find(", s") != std::string::npos) {
      text += "x86lab gives " + optional_cell(f.x86lab_value) + " cycles (" + f.note + "); the seed's " +
              optional_cell(f.seed_value) + " is wall-clock time of a larger workload, so only the ratios compare.";
    } else if (f.figure.find(" / ") != std::string::npos && *f.seed_value != 1) {
      // A ratio: compare the changes it stands for (+3% against +0.6%), not the ratios.
      const double seed_change = *f.seed_value - 1, change = *f.x86lab_value - 1;
      char changes[96];
      std::snprintf(changes, sizeof changes, "seed %+.1f%%, x86lab %+.1f%%", seed_change * 100, change * 100);
      text += std::string(changes) + " (" + name_of(f.derivation) + "): " +
              (seed_change * change <= 0 ? "the direction does not reproduce"
               : std::fabs(change - seed_change) <= 0.1 * std::fabs(seed_change)
                   ? "reproduces within 10% of the change"
                   : "the direction reproduces, the size does not") +
              (f.breakdown.empty() ? std::string(".")
                                   : "; the largest parts of the difference are " + largest_parts(f.breakdown, 3) + ".");
    } else {
      const double ratio = *f.x86lab_value / *f.seed_value;
      char percent[32];
      std::snprintf(percent, sizeof percent, "%+.0f%%", (ratio - 1) * 100);
      text += "seed " + optional_cell(f.seed_value) + ", x86lab " + optional_cell(f.x86lab_value) + " (" + percent + ", " +
              name_of(f.derivation) + "): " +
              (std::fabs(ratio - 1) <= 0.1 ? "reproduces within 10%." : "does not reproduce; the largest parts of the modeled value are " + largest_parts(f.breakdown, 3) + ".");
    }
    sentences.push_back(text);
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
    out << "\n### Sensitivity to the assumption constants (" << profile << ")\n\n";
    for (const std::string& sentence : robustness) out << "- " << sentence << "\n";
  } else {
    out << title << " (profile " << profile << ")\n\n";
    grid.write_text(out, "  ");
    out << "\n";
    for (const std::string& sentence : findings(figures)) out << "  " << sentence << "\n";
    out << "\n";
    for (const std::string& sentence : robustness) out << "  " << sentence << "\n";
    out << "\n";
  }
}

void write_seed_figures(std::ostream& out, const CompareReport& report, bool markdown) {
  if (markdown)
    out << "\n## How to read the seed figures\n\n"
           "Every figure of docs/scenarios.md. Derivation: `counted` from the guest run alone; `modeled` counts x\n"
           "constants with at least one sourced constant; `calibrated` a constant was set from this figure (an input,\n"
           "not a reproduction); `not-modeled` no x86lab counterpart. The largest parts are count x cycles of the\n"
           "measured window (ctxsw: Luca's loop minus the empty loop, per run; irq: the ping-pong window) or of the\n"
           "whole run; report.json's `seed_figures` holds every source and the whole breakdown (docs/cost-model.md).\n";
  write_figures(out, report.scenarios, report.model, report.profile, markdown, "Seed figures");
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
