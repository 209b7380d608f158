// The report writers of `x86lab compare` (docs/compare.md, "Report"): aligned text
// tables, a Markdown document with the seeds' numbers beside x86lab's (the source of
// docs/reproduction.md), JSON and CSV. All are deterministic: the same runs give the
// same bytes.
#pragma once
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "platform/scenario/comparison.h"

namespace x86lab {

struct CompareReport {
  std::string command;    // the command line that regenerates the report, for the Markdown header
  std::string profile;    // the --profile value
  CostModel model;        // its cost model (the breakdowns price the runs' ledgers with it)
  std::vector<ScenarioComparison> scenarios;
  // Scenarios run again under the profile of the seed's CPU (the manifest's
  // seed_profile, when it is not `profile`): their seed figures are reported too.
  struct SeedProfileRun {
    std::string profile;
    CostModel model;
    std::vector<VariantResult> results;  // `comparison` points into these
    ScenarioComparison comparison;
  };
  std::vector<std::unique_ptr<SeedProfileRun>> seed_profile_runs;
  // irq again at the seed's timer rates (the manifest's timer_hz knob; docs/compare.md,
  // "Labels, intervals and verdicts"): classic and csvec_a0 under the scenario name
  // "irq@HZHz", whose seed figures are reported with the others.
  struct RateRun {
    ScenarioManifest manifest;           // irq's, renamed, the two variants' append with timer_hz=HZ
    std::vector<VariantResult> results;  // `comparison` points into these
    ScenarioComparison comparison;
  };
  std::vector<std::unique_ptr<RateRun>> rate_runs;
  // The scenarios and the rate runs' comparisons: what the seed figures are taken from.
  std::vector<ScenarioComparison> figure_scenarios() const {
    std::vector<ScenarioComparison> all = scenarios;
    for (const auto& run : rate_runs) all.push_back(run->comparison);
    return all;
  }
};

void write_text(std::ostream& out, const CompareReport& report);
void write_markdown(std::ostream& out, const CompareReport& report);
void write_json(std::ostream& out, const CompareReport& report);
// One line per (scenario, variant, metric): scenario,variant,source,metric,value,ratio_to_baseline
// (empty value for a failed variant, empty ratio where there is none).
void write_csv(std::ostream& out, const CompareReport& report);

}  // namespace x86lab
