// The seeds' figures beside x86lab's (issue 29, docs/reproduction.md): one row per
// figure of docs/scenarios.md, with how x86lab's value was derived, the sources of the
// constants it rests on, and its cycles as counts x constants; and the sensitivity of
// each conclusion to the profile's assumption constants.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "platform/scenario/comparison.h"
#include "trace/cost_ledger.h"

namespace x86lab {

// counted: from the guest run alone; modeled: counts x constants, at least one of them
// from a source; calibrated: a constant was set from this very figure; not-modeled:
// x86lab has no counterpart (or only assumptions price it).
enum class Derivation { Counted, Modeled, Calibrated, NotModeled };
const char* name_of(Derivation derivation);  // "counted", "modeled", "calibrated", "not-modeled"

struct SeedFigure {
  std::string scenario;                  // "tls"
  std::string figure;                    // "emulation / native time"
  std::optional<double> seed_value;      // nullopt: the seed says it in words
  std::optional<double> x86lab_value;    // nullopt: not modeled, or a variant failed
  Derivation derivation = Derivation::NotModeled;
  std::vector<std::string> sources;      // "key: tag text" of each constant the value uses
  std::vector<CostLine> breakdown;       // the modeled cycles (or their difference) by part
  std::string note;                      // what the x86lab value is, or why it is not modeled
};

// The figures, in the order of docs/scenarios.md; scenarios not in `comparisons` give
// not-modeled rows. `model` prices the ledgers (the run's own profile).
std::vector<SeedFigure> seed_figures(const std::vector<ScenarioComparison>& comparisons, const CostModel& model);

// The report's conclusions and whether each survives every assumption constant at half
// and at double its value (cycles re-priced from the runs' ledgers), in sentences.
std::vector<std::string> sensitivity(const std::vector<ScenarioComparison>& comparisons, const CostModel& model);

}  // namespace x86lab
