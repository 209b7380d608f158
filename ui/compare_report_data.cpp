// JSON and CSV reports of `x86lab compare` (docs/compare.md, "Report files").
#include <algorithm>
#include <nlohmann/json.hpp>

#include "ui/cli.h"
#include "platform/scenario/seed_figures.h"
#include "ui/compare_report.h"

namespace x86lab {
namespace {

const char* describe_reason(RunResult::Reason reason) {
  switch (reason) {
    case RunResult::Reason::ExitPort: return "exit-port";
    case RunResult::Reason::Halted: return "halted";
    case RunResult::Reason::HaltedForever: return "halted-forever";
    case RunResult::Reason::InstructionLimit: return "instruction-limit";
    case RunResult::Reason::Shutdown: return "shutdown";
    case RunResult::Reason::Interrupted: return "interrupted";
    default: return "stopped";
  }
}

// Whole numbers as JSON integers, others as doubles.
nlohmann::json number(double value) {
  if (value == static_cast<double>(static_cast<i64>(value))) return static_cast<i64>(value);
  return value;
}

nlohmann::json variant_json(const ScenarioComparison& c, std::size_t v, const CostModel& model) {
  const VariantSpec& spec = *c.variants[v];
  const VariantResult& result = *c.results[v];
  nlohmann::json json;
  json["name"] = spec.name;
  json["description"] = spec.description;
  json["succeeded"] = result.succeeded;
  if (!result.succeeded) json["failure"] = result.failure;
  json["end"] = {{"reason", describe_reason(result.run.reason)}, {"exit_status", result.run.exit_status}};
  for (const char* group : {"counters", "guest", "samples", "ratios"}) json[group] = nlohmann::json::object();
  for (const MetricRow& row : c.rows) {
    const char* group = row.source == MetricSource::Counter ? "counters" : row.source == MetricSource::Guest ? "guest" : "samples";
    if (row.values[v]) json[group][row.key] = number(*row.values[v]);
    if (const auto ratio = c.ratio(row, v); ratio && row.headline)
      json["ratios"][std::string(name_of(row.source)) + "." + row.key] = *ratio;
  }
  json["seed"] = nlohmann::json::object();
  for (const auto& [key, value] : spec.seed) json["seed"][key] = number(value);
  json["uncosted"] = result.ledger.uncosted;
  json["cost_breakdown"] = nlohmann::json::array();
  for (const CostLine& line : cost_lines(result.ledger, model))
    json["cost_breakdown"].push_back({{"part", line.part}, {"count", number(line.count)}, {"cycles_each", number(line.cycles_each)}});
  return json;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

}  // namespace

void write_json(std::ostream& out, const CompareReport& report) {
  nlohmann::json root;
  root["x86lab"] = kVersion;
  root["profile"] = report.profile;
  root["scenarios"] = nlohmann::json::array();
  for (const ScenarioComparison& c : report.scenarios) {
    nlohmann::json scenario;
    scenario["scenario"] = c.manifest->scenario;
    scenario["title"] = c.manifest->title;
    scenario["seed"] = c.manifest->seed;
    scenario["baseline"] = c.manifest->baseline;
    scenario["operation"] = c.manifest->operation;
    scenario["variants"] = nlohmann::json::array();
    for (std::size_t v = 0; v < c.variants.size(); ++v) scenario["variants"].push_back(variant_json(c, v, report.model));
    root["scenarios"].push_back(std::move(scenario));
  }
  root["seed_figures"] = nlohmann::json::array();
  const auto add_figures = [&](const std::vector<ScenarioComparison>& scenarios, const CostModel& model,
                               const std::string& profile) {
    for (const SeedFigure& figure : seed_figures(scenarios, model)) {
      if (std::none_of(scenarios.begin(), scenarios.end(),
                       [&](const ScenarioComparison& c) { return c.manifest->scenario == figure.scenario; }))
        continue;
      nlohmann::json row;
      row["scenario"] = figure.scenario;
      row["profile"] = profile;
      row["figure"] = figure.figure;
      row["seed_value"] = figure.seed_value ? nlohmann::json(*figure.seed_value) : nlohmann::json();
      row["x86lab_value"] = figure.x86lab_value ? nlohmann::json(*figure.x86lab_value) : nlohmann::json();
      row["derivation"] = name_of(figure.derivation);
      row["sources"] = figure.sources;
      row["breakdown"] = nlohmann::json::array();
      for (const CostLine& line : figure.breakdown)
        row["breakdown"].push_back({{"part", line.part}, {"count", number(line.count)}, {"cycles_each", number(line.cycles_each)}});
      row["note"] = figure.note;
      const PriceShares& shares = figure.shares;
      row["shares"] = {{"source", shares.source}, {"calibrated", shares.calibrated}, {"assumption", shares.assumption},
                       {"counted", shares.counted}};
      row["interval"] = figure.interval ? nlohmann::json::array({figure.interval->first, figure.interval->second})
                                        : nlohmann::json();
      row["seed_inside"] = figure.interval ? nlohmann::json(figure.seed_inside) : nlohmann::json();
      row["comparable"] = figure.comparable;
      if (!figure.comparable) row["incomparable_why"] = figure.incomparable_why;
      row["verdict"] = figure.verdict == Verdict::None ? nlohmann::json() : nlohmann::json(name_of(figure.verdict));
      row["effects"] = nlohmann::json::array();
      for (const ConstantEffect& e : figure.effects) {
        nlohmann::json effect = {{"constant", e.key}, {"assumed", e.assumed}, {"low", e.low}, {"high", e.high},
                                 {"value_at_low", e.value_at_low}, {"value_at_high", e.value_at_high}};
        effect["break_even"] = e.break_even ? nlohmann::json(*e.break_even) : nlohmann::json();
        row["effects"].push_back(effect);
      }
      root["seed_figures"].push_back(std::move(row));
    }
  };
  add_figures(report.figure_scenarios(), report.model, report.profile);
  root["sensitivity"] = sensitivity(report.scenarios, report.model);
  for (const auto& run : report.seed_profile_runs) {
    add_figures({run->comparison}, run->model, run->profile);
    for (const std::string& sentence : sensitivity({run->comparison}, run->model))
      root["sensitivity"].push_back("(profile " + run->profile + ") " + sentence);
  }
  out << root.dump(2) << "\n";
}

void write_csv(std::ostream& out, const CompareReport& report) {
  out << "scenario,variant,source,metric,value,ratio_to_baseline\n";
  for (const ScenarioComparison& c : report.scenarios)
    for (std::size_t v = 0; v < c.variants.size(); ++v)
      for (const MetricRow& row : c.rows) {
        const auto ratio = c.ratio(row, v);
        out << csv_field(c.manifest->scenario) << "," << csv_field(c.variants[v]->name) << "," << name_of(row.source)
            << "," << csv_field(row.key) << "," << (row.values[v] ? format_value(*row.values[v]) : "") << ","
            << (ratio && row.headline ? format_ratio(*ratio) : "") << "\n";
      }
}

}  // namespace x86lab
