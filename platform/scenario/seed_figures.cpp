// The seed figures and the sensitivity of the conclusions (platform/scenario/seed_figures.h,
// docs/reproduction.md). The figures are those of docs/scenarios.md, sections 1-3.
#include "platform/scenario/seed_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

namespace x86lab {
namespace {

struct Run {
  const ScenarioComparison* comparison = nullptr;
  std::size_t index = 0;
  const VariantResult* result() const { return comparison ? comparison->results[index] : nullptr; }
  bool ok() const { return result() && result()->succeeded; }
};

Run find_run(const std::vector<ScenarioComparison>& comparisons, const std::string& scenario, const std::string& variant) {
  for (const ScenarioComparison& c : comparisons)
    if (c.manifest->scenario == scenario)
      for (std::size_t v = 0; v < c.variants.size(); ++v)
        if (c.variants[v]->name == variant) return {&c, v};
  return {};
}

double cycles_of(const CostLedger& ledger, const CostModel& model) {
  return double(price_subcycles(ledger, model)) / kSubcyclesPerCycle;
}

std::optional<double> guest_metric(const Run& run, const std::string& name) {
  if (!run.ok()) return std::nullopt;
  const auto found = run.result()->metrics.find(name);
  if (found != run.result()->metrics.end()) return double(found->second);
  if (const MetricRow* row = run.comparison->find(MetricSource::Samples, name)) return row->values[run.index];
  return std::nullopt;
}

// a's lines minus b's (the lines of both, by part), zero differences left out.
std::vector<CostLine> difference(const std::vector<CostLine>& a, const std::vector<CostLine>& b) {
  std::map<std::string, CostLine> lines;
  for (const CostLine& line : a) lines[line.part] = line;
  for (const CostLine& line : b) {
    auto [it, added] = lines.try_emplace(line.part, CostLine{line.part, 0, line.cycles_each});
    it->second.count -= line.count;
  }
  std::vector<CostLine> result;
  for (const auto& [part, line] : lines)
    if (line.count != 0 && (line.cycles_each != 0 || part == "halted")) result.push_back(line);
  return result;
}

// The lines times `factor` (per run), without those that price below half the report's
// precision of 0.01 cycle: a cold L1 miss met once in all the runs of a window
// (--cache-model, on in compare) is a count of about 1e-4 per run.
std::vector<CostLine> scaled(std::vector<CostLine> lines, double factor) {
  std::vector<CostLine> result;
  for (CostLine& line : lines) {
    line.count *= factor;
    if (std::fabs(line.count * line.cycles_each) >= 0.005 || line.part == "halted") result.push_back(line);
  }
  return result;
}

double priced(const std::vector<CostLine>& lines) {
  double total = 0;
  for (const CostLine& line : lines) total += line.count * line.cycles_each;
  return total;
}

// ctxsw's Luca loops (roms/scenarios/ctxsw/ctxsw_kernel.c): the windows between the
// bracket RDTSCs ran WARMUP + ITERATIONS times each, first for the empty loop, then
// the seed's operation, then the whole switch. `which` 1: the operation, 2: the switch;
// the result is that window minus the empty one, per run.
std::optional<std::vector<CostLine>> luca_lines(const Run& run, int which, const CostModel& model) {
  if (!run.ok()) return std::nullopt;
  const auto& metrics = run.result()->metrics;
  const auto iterations = metrics.find("iterations"), warmup = metrics.find("warmup_iterations");
  if (iterations == metrics.end() || warmup == metrics.end()) return std::nullopt;
  const u64 runs = u64(iterations->second + warmup->second);
  std::vector<const CostWindow*> brackets;
  for (const CostWindow& window : run.result()->windows)
    if (window.count == runs) brackets.push_back(&window);
  if (brackets.size() != 3) return std::nullopt;
  return scaled(difference(cost_lines(brackets[which]->ledger, model), cost_lines(brackets[0]->ledger, model)),
                1.0 / double(runs));
}

// The window run once whose cycles are the guest's `metric` (an RDTSC difference).
std::optional<std::vector<CostLine>> window_of_metric(const Run& run, const std::string& metric, const CostModel& model) {
  if (!run.ok()) return std::nullopt;
  const auto value = run.result()->metrics.find(metric);
  if (value == run.result()->metrics.end()) return std::nullopt;
  for (const CostWindow& window : run.result()->windows)
    if (window.count == 1 && std::fabs(double(window.subcycles) / kSubcyclesPerCycle - double(value->second)) <= 1)
      return cost_lines(window.ledger, model);
  return std::nullopt;
}

// The provenance of the breakdown's constants decides the derivation (seed_figures.h):
// by the share of the cycles each kind prices; then the interval over the assumption
// ranges, the verdict it gives and the constants that move the value most.
void derive(SeedFigure& figure, const CostModel& model, const std::string& calibration_id,
            const std::optional<FigureFunction>& function) {
  bool calibrated_here = false;
  for (const CostLine& line : figure.breakdown) {
    if (line.cycles_each == 0 || line.count == 0) continue;
    const auto found = model.provenance.find(line.part);
    if (found == model.provenance.end()) continue;
    const ConstantProvenance& p = found->second;
    figure.sources.push_back(line.part + ": " + name_of(p.kind) + ": " + p.text);
    if (p.kind == Provenance::Calibrated && !calibration_id.empty() && p.text.rfind(calibration_id + " ", 0) == 0)
      calibrated_here = true;
  }
  figure.shares = price_shares(figure.breakdown, model);
  const PriceShares& s = figure.shares;
  if (!figure.x86lab_value) figure.derivation = Derivation::NotModeled;
  else if (calibrated_here) figure.derivation = Derivation::Calibrated;
  else if (s.source > 0.5 * s.total()) figure.derivation = Derivation::Modeled;
  else if (s.assumption >= s.calibrated) figure.derivation = Derivation::AssumptionPriced;
  else figure.derivation = Derivation::CalibratedDerived;
  if (!figure.x86lab_value || !function) return;
  if (figure.figure.find(", ms") != std::string::npos || figure.figure.find(", s") != std::string::npos) {
    figure.comparable = false;
    figure.incomparable_why = "the seed's figure is wall-clock time of a larger workload, so only the ratios compare";
  }
  figure.interval = interval_over_ranges(*function, model);
  const std::optional<double> seed = figure.comparable ? figure.seed_value : std::nullopt;
  if (figure.interval && seed) {
    const auto [low, high] = *figure.interval;
    // Half a unit of the report's last printed digit of tolerance: the interval's ends
    // are computed in doubles from the same counts as the point.
    const double slack = 1e-9 * std::max(1.0, std::fabs(*seed));
    figure.seed_inside = *seed >= low - slack && *seed <= high + slack;
    figure.verdict = figure.seed_inside ? Verdict::Inside : high < *seed ? Verdict::Below : Verdict::Above;
  }
  figure.effects = largest_effects(*function, model, seed, 3);
}

SeedFigure make_figure(const std::string& scenario, const std::string& figure, std::optional<double> seed,
                       const std::string& note) {
  SeedFigure f;
  f.scenario = scenario, f.figure = figure, f.seed_value = seed, f.note = note;
  return f;
}

class Figures {
 public:
  Figures(const std::vector<ScenarioComparison>& comparisons, const CostModel& model) : c_(comparisons), model_(model) {}

  std::vector<CostLine> lines(const Run& run) const { return cost_lines(run.result()->ledger, model_); }
  double cycles(const Run& run) const { return cycles_of(run.result()->ledger, model_); }

  // A whole run's modeled cycles.
  void run_cycles(const std::string& scenario, const std::string& figure, double seed, const std::string& variant) {
    SeedFigure f = make_figure(scenario, figure, seed, "modeled cycles of variant " + variant);
    const Run run = find_run(c_, scenario, variant);
    std::optional<FigureFunction> function;
    if (run.ok()) {
      f.x86lab_value = cycles(run), f.breakdown = lines(run);
      function = FigureFunction{Affine::of(f.breakdown, model_), std::nullopt};
    }
    derive(f, model_, "", function);
    out.push_back(std::move(f));
  }
  // (a - base) / (b - base) of modeled cycles, or a / b without a base; the breakdown is a - b.
  void cycle_ratio(const std::string& scenario, const std::string& figure, double seed, const std::string& a,
                   const std::string& b, const std::string& base = "") {
    SeedFigure f = make_figure(scenario, figure, seed,
                 base.empty() ? "modeled cycles of " + a + " / " + b
                              : "(" + a + " - " + base + ") / (" + b + " - " + base + "), modeled cycles");
    const Run ra = find_run(c_, scenario, a), rb = find_run(c_, scenario, b), rbase = find_run(c_, scenario, base);
    std::optional<FigureFunction> function;
    if (ra.ok() && rb.ok() && (base.empty() || rbase.ok())) {
      const double zero = base.empty() ? 0 : cycles(rbase);
      f.x86lab_value = (cycles(ra) - zero) / (cycles(rb) - zero);
      f.breakdown = difference(lines(ra), lines(rb));
      const Affine base_cycles = base.empty() ? Affine{} : Affine::of(lines(rbase), model_);
      function = FigureFunction{Affine::of(lines(ra), model_) - base_cycles, Affine::of(lines(rb), model_) - base_cycles};
    }
    derive(f, model_, "", function);
    out.push_back(std::move(f));
  }
  // A guest METRIC (divided by `scale`), measured with RDTSC on the modeled clock; the
  // breakdown is the charges of the measured window (`window`), else of the whole run.
  using WindowLines = std::function<std::optional<std::vector<CostLine>>(const Run&)>;
  void metric(const std::string& scenario, const std::string& figure, double seed, const std::string& variant,
              const std::string& name, double scale, const std::string& calibration_id, const WindowLines& window) {
    SeedFigure f = make_figure(scenario, figure, seed,
                 "guest METRIC " + name + (scale != 1 ? " / " + std::to_string(int(scale)) : "") + " of " + variant);
    const Run run = find_run(c_, scenario, variant);
    std::optional<FigureFunction> function;
    if (const auto value = guest_metric(run, name)) {
      f.x86lab_value = *value / scale;
      bool measured_window = false;
      function = FigureFunction{metric_function(run, *f.x86lab_value, window, &measured_window), std::nullopt};
      if (measured_window) {
        f.breakdown = *window(run);
        f.note += "; the breakdown is the measured RDTSC window's";
      } else {
        f.breakdown = lines(run);
        f.note += "; the breakdown is the whole run's (its interval scales the metric with the run's cycles)";
      }
    }
    derive(f, model_, calibration_id, function);
    out.push_back(std::move(f));
  }
  // A ratio of two variants' guest METRICs: counted when both are counts; the breakdown
  // is the difference of the measured windows (`window`), else of the whole runs.
  void metric_ratio(const std::string& scenario, const std::string& figure, std::optional<double> seed,
                    const std::string& a, const std::string& b, const std::string& name, bool counted,
                    const WindowLines& window = {}) {
    SeedFigure f = make_figure(scenario, figure, seed, name + " of " + a + " / " + b);
    const Run ra = find_run(c_, scenario, a), rb = find_run(c_, scenario, b);
    const auto va = guest_metric(ra, name), vb = guest_metric(rb, name);
    if (va && vb && *vb != 0) f.x86lab_value = *va / *vb;
    if (counted) {
      f.derivation = f.x86lab_value ? Derivation::Counted : Derivation::NotModeled;
      f.sources.push_back("counted: the guest's " + name);
    } else {
      const auto wa = window ? window(ra) : std::nullopt, wb = window ? window(rb) : std::nullopt;
      if (wa && wb) f.breakdown = difference(*wa, *wb);
      else if (ra.ok() && rb.ok()) f.breakdown = difference(lines(ra), lines(rb));
      std::optional<FigureFunction> function;
      if (f.x86lab_value)
        function = FigureFunction{metric_function(ra, *va, window, nullptr), metric_function(rb, *vb, window, nullptr)};
      if (f.x86lab_value && !(wa && wb)) f.note += " (its interval scales each metric with its run's cycles)";
      derive(f, model_, "", function);
    }
    out.push_back(std::move(f));
  }
  // A guest metric of `value` as a function of the constants: the measured window's
  // cycles when `window` finds it (value = the window's cycles, plus what the window does
  // not price), else the whole run's cycles scaled to the value.
  Affine metric_function(const Run& run, double value, const WindowLines& window, bool* measured) const {
    if (const auto lines_of_window = window ? window(run) : std::nullopt) {
      if (measured) *measured = true;
      const Affine a = Affine::of(*lines_of_window, model_);
      return Affine::of(*lines_of_window, model_, 1, value - a.at(model_));
    }
    const double whole = cycles(run);
    return Affine::of(lines(run), model_, whole != 0 ? value / whole : 0);
  }
  // The last figure's seed quantity is not x86lab's: no verdict, and `why` in its finding.
  void incomparable(const std::string& why) {
    SeedFigure& f = out.back();
    f.comparable = false, f.incomparable_why = why;
    f.verdict = Verdict::None, f.seed_inside = false;
    for (ConstantEffect& effect : f.effects) effect.break_even.reset();  // no seed to break even with
  }
  void not_modeled(const std::string& scenario, const std::string& figure, std::optional<double> seed,
                   const std::string& why) {
    out.push_back(make_figure(scenario, figure, seed, why));
  }

  std::vector<SeedFigure> out;

 private:
  const std::vector<ScenarioComparison>& c_;
  const CostModel& model_;
};

}  // namespace

const char* name_of(Derivation derivation) {
  switch (derivation) {
    case Derivation::Counted: return "counted";
    case Derivation::Modeled: return "modeled";
    case Derivation::AssumptionPriced: return "assumption-priced";
    case Derivation::CalibratedDerived: return "calibrated-derived";
    case Derivation::Calibrated: return "calibrated";
    case Derivation::NotModeled: return "not-modeled";
  }
  return "?";
}

const char* name_of(Verdict verdict) {
  switch (verdict) {
    case Verdict::None: return "";
    case Verdict::Inside: return "inside";
    case Verdict::Below: return "below";
    case Verdict::Above: return "above";
  }
  return "?";
}

std::vector<SeedFigure> seed_figures(const std::vector<ScenarioComparison>& comparisons, const CostModel& model) {
  Figures f(comparisons, model);
  // Seed 000 (docs/scenarios.md section 1): `time ls -R /usr/lib`, Xen 2.0.
  f.run_cycles("tls", "native time, ms", 180, "native");
  f.run_cycles("tls", "emulation time, ms", 300, "emulation");
  f.run_cycles("tls", "flipping time, ms", 390, "flipping");
  // The tls loop makes every operation a TLS access: its whole-run ratios measure the
  // designs' cost per access, not ls -R (compare tls-real replays ls -R's own stream).
  const std::string micro_loop =
      "the seed's ratio is of ls -R; x86lab's tls loop makes every operation a TLS access (a micro-loop), so its "
      "ratio measures the designs' cost per access, not ls -R (x86lab compare tls-real gives the ls -R slowdowns)";
  f.cycle_ratio("tls", "emulation / native time", 300.0 / 180, "emulation", "native");
  f.incomparable(micro_loop);
  f.cycle_ratio("tls", "flipping / native time", 390.0 / 180, "flipping", "native");
  f.incomparable(micro_loop);
  f.cycle_ratio("tls", "flipping's extra time / emulation's extra time", (390.0 - 180) / (300 - 180), "flipping",
                "emulation", "native");
  f.metric_ratio("tls", "flipping faults / emulation faults (about twice)", 2, "flipping", "emulation", "gp_faults", true);
  f.metric_ratio("tls", "one flip / one emulation (handler cycles per fault)", 0.875, "flipping", "emulation",
                 "handler_cycles_measured_per_fault", false);
  f.not_modeled("tls", "flips/emulations to boot Red Hat", 2.5e6, "no Red Hat boot is run");
  // Seed 003 (section 2): Luca Barbieri's Pentium III loop; the exact loop figure.
  const char* per_op = "loop_cycles_per_op_x100";
  const Figures::WindowLines op = [&model](const Run& run) { return luca_lines(run, 1, model); };
  f.metric("ctxsw", "LLDT, cycles", 51, "lldt_a0", per_op, 100, "ctxsw lldt", op);
  f.metric("ctxsw", "LGDT, cycles", 50, "lgdt_a0", per_op, 100, "ctxsw lgdt", op);
  f.metric("ctxsw", "unconditional copy of 2 descriptors, cycles", 5, "copy2_a0", per_op, 100, "ctxsw copy2", op);
  f.metric("ctxsw", "D5 (2 descriptors), cycles", 6, "copy2_a0", per_op, 100, "ctxsw d5", op);
  f.metric("ctxsw", "D9 (3 descriptors), cycles", 9, "copy3_a0", per_op, 100, "ctxsw copy3", op);
  f.metric("ctxsw", "C3 with none in use, cycles", 2, "c3_0_a0", per_op, 100, "ctxsw c3_0", op);
  f.metric("ctxsw", "C3 with 1 descriptor, cycles", 26, "c3_1_a0", per_op, 100, "ctxsw c3_1", op);
  f.metric("ctxsw", "C3 with 8 descriptors, cycles", 52, "c3_8_a0", per_op, 100, "ctxsw c3_8", op);
  f.not_modeled("ctxsw", "a whole context switch, cycles", 2000,
                "the guest's switch has no scheduler, FPU or page-table work (docs/scenarios/ctxsw.md)");
  f.not_modeled("ctxsw", "C3's extra cost per switch, %", 1, "needs the whole context switch, which is not modeled");
  // Seed 004 (section 3): hackbench 10 on a Sempron 2400+, seconds.
  const auto mean = [](double a, double b) { return (a + b) / 2; };
  const Figures::WindowLines pingpong = [&model](const Run& run) {
    return window_of_metric(run, "pingpong_cycles", model);
  };
  f.metric("irq", "hackbench before, first boot, s", 1.698, "classic", "pingpong_cycles", 1, "", pingpong);
  f.metric("irq", "hackbench before, second boot, s", 1.712, "classic", "pingpong_cycles", 1, "", pingpong);
  f.metric("irq", "hackbench after, first boot, s", 1.775, "csvec_a0", "pingpong_cycles", 1, "", pingpong);
  f.metric("irq", "hackbench after, second boot, s", 1.740, "csvec_a0", "pingpong_cycles", 1, "", pingpong);
  f.metric_ratio("irq", "hackbench after / before", mean(1.775, 1.740) / mean(1.698, 1.712), "csvec_a0", "classic",
                 "pingpong_cycles", false, pingpong);
  for (const auto& [name, value] : std::vector<std::pair<const char*, double>>{
           {"hackbench with the rdtsc test, before, first boot, s", 1.736},
           {"hackbench with the rdtsc test, before, second boot, s", 1.712},
           {"hackbench with the rdtsc test, after, first boot, s", 1.734},
           {"hackbench with the rdtsc test, after, second boot, s", 1.723}})
    f.not_modeled("irq", name, value, "the guest runs the RDTSC loop and the ping-pong one after the other, not together");
  f.not_modeled("irq", "with the rdtsc test, after / before", mean(1.734, 1.723) / mean(1.736, 1.712),
                "as the four figures it divides");
  f.metric_ratio("irq", "long RDTSC latencies more often after the patch (p99 after / before)", std::nullopt,
                 "csvec_a0", "classic", "rdtsc_delta.p99", false);
  // The same ratio at the timer rates of a 2.6 kernel (compare runs classic and csvec_a0
  // again with timer_hz as the scenarios irq@100Hz, irq@250Hz, irq@1000Hz).
  for (const char* hz : {"100", "250", "1000"})
    f.metric_ratio(std::string("irq@") + hz + "Hz", std::string("hackbench after / before, timer at ") + hz + " Hz",
                   mean(1.775, 1.740) / mean(1.698, 1.712), "csvec_a0", "classic", "pingpong_cycles", false, pingpong);
  return std::move(f.out);
}

namespace {

// A quantity the report ranks the variants of a scenario by, as priced lines of each
// variant (nullopt: none for that variant).
struct Conclusion {
  std::string label;  // "tls: modeled cycles of the whole run"
  const ScenarioComparison* comparison;
  std::function<std::optional<std::vector<CostLine>>(const Run&, const CostModel&)> lines;
};

std::vector<Conclusion> conclusions(const std::vector<ScenarioComparison>& comparisons) {
  std::vector<Conclusion> result;
  for (const ScenarioComparison& c : comparisons) {
    const std::string& name = c.manifest->scenario;
    if (name == "ctxsw") {
      result.push_back({"ctxsw: the seed's operation, cycles per run (Luca's loop)", &c,
                        [](const Run& run, const CostModel& m) { return luca_lines(run, 1, m); }});
      result.push_back({"ctxsw: the whole switch routine, cycles per run (Luca's loop)", &c,
                        [](const Run& run, const CostModel& m) { return luca_lines(run, 2, m); }});
    } else if (name == "irq") {
      result.push_back({"irq: the ping-pong workload's cycles (pingpong_cycles window)", &c,
                        [](const Run& run, const CostModel& m) { return window_of_metric(run, "pingpong_cycles", m); }});
    } else {
      result.push_back({name + ": modeled cycles of the whole run", &c,
                        [](const Run& run, const CostModel& m) -> std::optional<std::vector<CostLine>> {
                          if (!run.ok()) return std::nullopt;
                          return cost_lines(run.result()->ledger, m);
                        }});
    }
  }
  return result;
}

double count_of(const std::vector<CostLine>& lines, const std::string& key) {
  for (const CostLine& line : lines)
    if (line.part == key) return line.count;
  return 0;
}

CostModel with_constant(const CostModel& model, const std::string& key, double cycles) {
  CostModel changed = model;
  const u32 subcycles = static_cast<u32>(std::lround(cycles * kSubcyclesPerCycle));
  if (key.rfind("instruction.", 0) == 0) changed.instruction[key.substr(12)] = subcycles;
  for (std::size_t p = 0; p < kCostPartCount; ++p)
    if (key == kCostPartKeys[p]) changed.parts[p] = subcycles;
  return changed;
}

}  // namespace

// Each conclusion's ranking of the variants, re-priced with every assumption constant the
// ranked quantities use at the low and at the high end of its range; a constant that reorders two
// variants gets its break-even value (each quantity is linear in each constant).
std::vector<std::string> sensitivity(const std::vector<ScenarioComparison>& comparisons, const CostModel& model) {
  std::vector<std::string> sentences;
  char text[512];
  for (const Conclusion& conclusion : conclusions(comparisons)) {
    const ScenarioComparison& c = *conclusion.comparison;
    struct Ranked {
      std::string name;
      std::vector<CostLine> lines;
    };
    std::vector<Ranked> ranked;
    for (std::size_t v = 0; v < c.variants.size(); ++v)
      if (const auto lines = conclusion.lines(Run{&c, v}, model)) ranked.push_back({c.variants[v]->name, *lines});
    if (ranked.size() < 2) continue;
    const auto order = [&](const CostModel& m) {
      std::vector<std::pair<double, std::string>> values;
      for (std::size_t i = 0; i < ranked.size(); ++i) {
        const auto lines = conclusion.lines(find_run(comparisons, c.manifest->scenario, ranked[i].name), m);
        values.emplace_back(priced(*lines), ranked[i].name);
      }
      std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      return values;
    };
    const auto base = order(model);
    std::string listing;
    for (const auto& [value, name] : base) {
      std::snprintf(text, sizeof text, "%s%s %.4g", listing.empty() ? "" : " < ", name.c_str(), value);
      listing += text;
    }
    std::vector<std::string> flips;
    int tested = 0;
    for (const auto& [key, provenance] : model.provenance) {
      if (provenance.kind != Provenance::Assumption || key == "cpu-mhz" || provenance.low == provenance.high) continue;
      bool used = false;
      for (const Ranked& r : ranked) used = used || count_of(r.lines, key) != 0;
      if (!used) continue;
      ++tested;
      for (const double end : {provenance.low, provenance.high}) {
        const auto changed = order(with_constant(model, key, end));
        if (std::equal(changed.begin(), changed.end(), base.begin(), [](const auto& a, const auto& b) { return a.second == b.second; }))
          continue;
        // The first pair of neighbours in the base order that the change inverts, and its break-even.
        for (std::size_t i = 0; i + 1 < base.size(); ++i) {
          const auto value_in = [&](const std::string& name) {
            for (const auto& entry : changed)
              if (entry.second == name) return entry.first;
            return 0.0;
          };
          if (value_in(base[i].second) <= value_in(base[i + 1].second)) continue;
          const auto lines_of = [&](const std::string& name) -> const std::vector<CostLine>& {
            for (const Ranked& r : ranked)
              if (r.name == name) return r.lines;
            return ranked[0].lines;
          };
          const double na = count_of(lines_of(base[i].second), key), nb = count_of(lines_of(base[i + 1].second), key);
          const double fixed_a = base[i].first - na * provenance.value, fixed_b = base[i + 1].first - nb * provenance.value;
          const double even = (fixed_b - fixed_a) / (na - nb);
          std::snprintf(text, sizeof text, "%s stays cheaper than %s only while %s costs %s %.3g cycles (assumed %.3g)",
                        base[i].second.c_str(), base[i + 1].second.c_str(), key.c_str(), na > nb ? "under" : "over",
                        even, provenance.value);
          flips.push_back(text);
          break;
        }
      }
    }
    std::sort(flips.begin(), flips.end());
    flips.erase(std::unique(flips.begin(), flips.end()), flips.end());
    std::string sentence = conclusion.label + ": " + listing + "; ";
    if (flips.empty())
      sentence += "this order holds under every tested assumption (" + std::to_string(tested) +
                  " assumption constants, each at the low and at the high end of its range).";
    else {
      sentence += "of " + std::to_string(tested) + " assumption constants tested at the ends of their ranges, these reorder it: ";
      for (std::size_t i = 0; i < flips.size(); ++i) sentence += (i ? "; " : "") + flips[i];
      sentence += ".";
    }
    sentences.push_back(sentence);
  }
  return sentences;
}

}  // namespace x86lab
