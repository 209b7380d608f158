// The seeds' figures beside x86lab's (issue 29, docs/reproduction.md): one row per
// figure of docs/scenarios.md, with how x86lab's value was derived, the sources of the
// constants it rests on, and its cycles as counts x constants; and the sensitivity of
// each conclusion to the profile's assumption constants.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "platform/scenario/comparison.h"
#include "platform/scenario/figure_interval.h"
#include "trace/cost_ledger.h"

namespace x86lab {

// The label of a figure by who prices its cycles (docs/compare.md, "Labels, intervals and
// verdicts"; the breakdown's |count x cycles| split by the provenance of each constant):
// counted: from the guest run alone (no constant);
// modeled: constants tagged `source:` price more than half of the breakdown's cycles;
// assumption-priced / calibrated-derived: they do not, and `assumption:` (or `calibrated
//   on:` another figure) constants price more than the other;
// calibrated: a constant was set from this very figure (an input, not a reproduction);
// not-modeled: x86lab has no counterpart.
enum class Derivation { Counted, Modeled, AssumptionPriced, CalibratedDerived, Calibrated, NotModeled };
// "counted", "modeled", "assumption-priced", "calibrated-derived", "calibrated", "not-modeled"
const char* name_of(Derivation derivation);

// How a figure's interval stands to the seed's value: inside it, or the whole interval
// below or above it; None: no seed number, or the units differ (cycles against ms).
enum class Verdict { None, Inside, Below, Above };
const char* name_of(Verdict verdict);  // "", "inside", "below", "above"

struct SeedFigure {
  std::string scenario;                  // "tls"
  std::string figure;                    // "emulation / native time"
  std::optional<double> seed_value;      // nullopt: the seed says it in words
  std::optional<double> x86lab_value;    // nullopt: not modeled, or a variant failed
  Derivation derivation = Derivation::NotModeled;
  std::vector<std::string> sources;      // "key: tag text" of each constant the value uses
  std::vector<CostLine> breakdown;       // the modeled cycles (or their difference) by part
  std::string note;                      // what the x86lab value is, or why it is not modeled
  PriceShares shares;                    // the breakdown's cycles by provenance
  // The value over the assumption constants' ranges (figure_interval.h), in the row's
  // unit; nullopt for counted and not-modeled rows, or when a denominator reaches zero.
  std::optional<std::pair<double, double>> interval;
  bool seed_inside = false;              // the seed's value lies in `interval`
  Verdict verdict = Verdict::None;       // from `interval`, never from the point value
  bool comparable = true;                // false: the seed's quantity is not x86lab's (ms against cycles,
                                         // ls -R against a micro-loop); `incomparable_why` says why
  std::string incomparable_why;
  std::vector<ConstantEffect> effects;   // the assumption constants that move it most
};

// The figures, in the order of docs/scenarios.md; scenarios not in `comparisons` give
// not-modeled rows. `model` prices the ledgers (the run's own profile).
std::vector<SeedFigure> seed_figures(const std::vector<ScenarioComparison>& comparisons, const CostModel& model);

// The report's conclusions and whether each survives every assumption constant at the
// low and at the high end of its range (cycles re-priced from the runs' ledgers), in sentences.
std::vector<std::string> sensitivity(const std::vector<ScenarioComparison>& comparisons, const CostModel& model);

}  // namespace x86lab
