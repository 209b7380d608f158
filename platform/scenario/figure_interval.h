// A seed figure as a function of the profile's constants (docs/compare.md, "Labels,
// intervals and verdicts"): its cycles by provenance, its interval over the ranges of the
// `assumption:` constants (trace/cost_model.h), and the constants that move it most.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/cost_ledger.h"

namespace x86lab {

// fixed + sum(coefficient[key] x key's cycles) over the `assumption:` constants; every
// other constant (source, calibrated, the counted `halted` line) is part of `fixed`.
// Units: cycles (or the figure's unit, when built with a scale).
struct Affine {
  double fixed = 0;
  std::map<std::string, double> coefficient;  // by cost key ("segment-load", "instruction.MOV")

  // `lines` x `scale`, plus `offset`: the lines' constants that are assumptions become
  // coefficients, the rest is priced into `fixed`.
  static Affine of(const std::vector<CostLine>& lines, const CostModel& model, double scale = 1, double offset = 0);
  Affine operator-(const Affine& other) const;
  // The value with the assumption constants at `values` (missing keys: their point value).
  double at(const CostModel& model, const std::map<std::string, double>& values = {}) const;
};

// A figure's value: numerator / denominator (the denominator absent: a plain value).
struct FigureFunction {
  Affine numerator;
  std::optional<Affine> denominator;
  double at(const CostModel& model, const std::map<std::string, double>& values = {}) const;
  bool depends_on(const std::string& key) const;
};

// The smallest and largest value over the box of every assumption constant's range
// [low, high]: exact, by choosing each constant's end of its range (a linear function
// is extreme at a corner; a ratio of two positive linear functions too, found by
// Dinkelbach's iteration over the corners). nullopt when the denominator can reach zero
// or below within the box.
std::optional<std::pair<double, double>> interval_over_ranges(const FigureFunction& figure, const CostModel& model);

// The cycles of a breakdown by the provenance of their constants, as absolute values
// (|count x cycles_each|: the parts of a difference that cancel are counted both), cycles.
struct PriceShares {
  double source = 0, calibrated = 0, assumption = 0;
  double counted = 0;  // lines with no constant (`halted`: the modeled clock's idle time)
  double total() const { return source + calibrated + assumption + counted; }
};
PriceShares price_shares(const std::vector<CostLine>& breakdown, const CostModel& model);

// How one assumption constant moves a figure: its value with the constant at the low and
// at the high end of its range (every other constant at its point), and the constant's
// value at which the figure equals the seed's (nullopt: none at or above zero).
struct ConstantEffect {
  std::string key;
  double assumed = 0, low = 0, high = 0;  // the constant's cycles: point and range
  double value_at_low = 0, value_at_high = 0;
  std::optional<double> break_even;
};
// The constants with the largest swings, largest first (at most `how_many`).
std::vector<ConstantEffect> largest_effects(const FigureFunction& figure, const CostModel& model,
                                            std::optional<double> seed, std::size_t how_many);

}  // namespace x86lab
