// A seed figure as a function of the assumption constants: shares, interval, effects
// (platform/scenario/figure_interval.h, docs/compare.md "Labels, intervals and verdicts").
#include "platform/scenario/figure_interval.h"

#include <algorithm>
#include <cmath>

namespace x86lab {
namespace {

const ConstantProvenance* assumption_of(const CostModel& model, const std::string& key) {
  const auto found = model.provenance.find(key);
  if (found == model.provenance.end() || found->second.kind != Provenance::Assumption) return nullptr;
  return &found->second;
}

// The corner of the box that maximises sum(weight[key] x value): each constant at the
// end of its range its weight points to (`maximise` false: the other end).
std::map<std::string, double> corner(const std::map<std::string, double>& weight, const CostModel& model, bool maximise) {
  std::map<std::string, double> values;
  for (const auto& [key, w] : weight)
    if (const ConstantProvenance* p = assumption_of(model, key)) values[key] = (w > 0) == maximise ? p->high : p->low;
  return values;
}

// The extreme of a linear-fractional function over the box by Dinkelbach's iteration:
// with t the best ratio so far, the corner extreme in numerator - t x denominator gives
// a better ratio until that extreme is zero (finitely many corners: it ends).
double fractional_extreme(const FigureFunction& f, const CostModel& model, bool maximise) {
  std::map<std::string, double> x;  // start at the point
  double t = f.at(model, x);
  for (int step = 0; step < 100; ++step) {
    std::map<std::string, double> weight = f.numerator.coefficient;
    for (const auto& [key, c] : f.denominator->coefficient) weight[key] -= t * c;
    x = corner(weight, model, maximise);
    const double next = f.at(model, x);
    if (maximise ? next <= t * (1 + 1e-12) + 1e-12 : next >= t * (1 - 1e-12) - 1e-12) return maximise ? std::max(t, next) : std::min(t, next);
    t = next;
  }
  return t;
}

}  // namespace

Affine Affine::of(const std::vector<CostLine>& lines, const CostModel& model, double scale, double offset) {
  Affine a;
  a.fixed = offset;
  for (const CostLine& line : lines) {
    if (assumption_of(model, line.part)) a.coefficient[line.part] += line.count * scale;
    else a.fixed += line.count * line.cycles_each * scale;
  }
  return a;
}

Affine Affine::operator-(const Affine& other) const {
  Affine a = *this;
  a.fixed -= other.fixed;
  for (const auto& [key, c] : other.coefficient) a.coefficient[key] -= c;
  return a;
}

double Affine::at(const CostModel& model, const std::map<std::string, double>& values) const {
  double total = fixed;
  for (const auto& [key, c] : coefficient) {
    const auto given = values.find(key);
    total += c * (given != values.end() ? given->second : model.provenance.at(key).value);
  }
  return total;
}

double FigureFunction::at(const CostModel& model, const std::map<std::string, double>& values) const {
  const double n = numerator.at(model, values);
  return denominator ? n / denominator->at(model, values) : n;
}

bool FigureFunction::depends_on(const std::string& key) const {
  const auto has = [&](const Affine& a) {
    const auto found = a.coefficient.find(key);
    return found != a.coefficient.end() && found->second != 0;
  };
  return has(numerator) || (denominator && has(*denominator));
}

std::optional<std::pair<double, double>> interval_over_ranges(const FigureFunction& f, const CostModel& model) {
  if (!f.denominator) {
    return std::pair{f.numerator.at(model, corner(f.numerator.coefficient, model, false)),
                     f.numerator.at(model, corner(f.numerator.coefficient, model, true))};
  }
  // The denominator must stay positive over the box (or negative: then flip both signs).
  FigureFunction g = f;
  if (g.denominator->at(model) < 0) {
    g.numerator = Affine{} - g.numerator;
    g.denominator = Affine{} - *g.denominator;
  }
  if (g.denominator->at(model, corner(g.denominator->coefficient, model, false)) <= 0) return std::nullopt;
  return std::pair{fractional_extreme(g, model, false), fractional_extreme(g, model, true)};
}

PriceShares price_shares(const std::vector<CostLine>& breakdown, const CostModel& model) {
  PriceShares shares;
  for (const CostLine& line : breakdown) {
    const double cycles = std::fabs(line.count * line.cycles_each);
    const auto found = model.provenance.find(line.part);
    if (found == model.provenance.end()) shares.counted += cycles;
    else if (found->second.kind == Provenance::Source) shares.source += cycles;
    else if (found->second.kind == Provenance::Calibrated) shares.calibrated += cycles;
    else shares.assumption += cycles;
  }
  return shares;
}

std::vector<ConstantEffect> largest_effects(const FigureFunction& f, const CostModel& model, std::optional<double> seed,
                                            std::size_t how_many) {
  std::vector<ConstantEffect> effects;
  for (const auto& [key, p] : model.provenance) {
    if (p.kind != Provenance::Assumption || !f.depends_on(key)) continue;
    ConstantEffect e{key, p.value, p.low, p.high, f.at(model, {{key, p.low}}), f.at(model, {{key, p.high}}), std::nullopt};
    if (seed) {
      // value(x) = (n0 + n x) / (d0 + d x) = seed  =>  x = (seed d0 - n0) / (n - seed d)
      const auto coefficient = [&](const Affine& a) {
        const auto found = a.coefficient.find(key);
        return found == a.coefficient.end() ? 0.0 : found->second;
      };
      const double n = coefficient(f.numerator), n0 = f.numerator.at(model) - n * p.value;
      const double d = f.denominator ? coefficient(*f.denominator) : 0.0;
      const double d0 = f.denominator ? f.denominator->at(model) - d * p.value : 1.0;
      const double slope = n - *seed * d;
      if (slope != 0) {
        const double x = (*seed * d0 - n0) / slope;
        if (x >= 0 && std::isfinite(x)) e.break_even = x;
      }
    }
    effects.push_back(e);
  }
  std::sort(effects.begin(), effects.end(), [](const ConstantEffect& a, const ConstantEffect& b) {
    return std::fabs(a.value_at_high - a.value_at_low) > std::fabs(b.value_at_high - b.value_at_low);
  });
  if (effects.size() > how_many) effects.resize(how_many);
  return effects;
}

}  // namespace x86lab
