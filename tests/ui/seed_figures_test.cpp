// compare's seed_figures (issue 29, docs/reproduction.md, docs/cost-model.md): the JSON
// shape, the derivation rules, no uncosted instruction under k7 and p3, and a run's
// cycles as its counts times its constants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_x86lab.h"

namespace {

// report.json of `compare all` under `profile` (run once per profile).
const nlohmann::json& report(const std::string& profile) {
  static std::map<std::string, nlohmann::json> reports;
  auto found = reports.find(profile);
  if (found != reports.end()) return found->second;
  // One folder per test process: ctest runs the tests of this file at once.
  const std::string label = std::filesystem::path(profile).stem().string();  // a built-in name or a .cost file
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("x86lab_seed_figures_" + label + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  const auto o = x86lab::testing::run_x86lab("compare all --jobs 2 --profile " + profile + " --out " + dir.string());
  EXPECT_EQ(o.status, 0) << o.output;
  EXPECT_EQ(o.output.find("uncosted"), std::string::npos) << o.output;  // the stderr line
  std::ifstream file(dir / "report.json");
  std::ostringstream text;
  text << file.rdbuf();
  return reports[profile] = nlohmann::json::parse(text.str());
}

const nlohmann::json* figure(const nlohmann::json& json, const std::string& scenario, const std::string& name) {
  for (const auto& row : json["seed_figures"])
    if (row["scenario"] == scenario && row["figure"] == name) return &row;
  return nullptr;
}

TEST(SeedFigures, K7AndP3RunNoUncostedInstruction) {
  for (const char* profile : {"k7", "p3"})
    for (const auto& scenario : report(profile)["scenarios"])
      for (const auto& variant : scenario["variants"])
        EXPECT_TRUE(variant["uncosted"].empty()) << profile << " " << variant["name"] << " " << variant["uncosted"];
}

// Every figure of docs/scenarios.md sections 1-3 has a row with the issue's keys.
TEST(SeedFigures, EveryFigureHasTheKeys) {
  const nlohmann::json& json = report("p3");
  ASSERT_TRUE(json.contains("seed_figures"));
  // 9 tls, 10 ctxsw, 11 irq (docs/scenarios.md sections 1-3), irq's after/before at HZ
  // 100, 250 and 1000 (irq@100Hz, ...), and irq's 11 again under k7
  EXPECT_EQ(json["seed_figures"].size(), 44u);
  for (const auto& row : json["seed_figures"]) {
    for (const char* key : {"scenario", "figure", "seed_value", "x86lab_value", "derivation", "sources", "breakdown",
                            "shares", "interval", "seed_inside", "verdict", "effects"})
      EXPECT_TRUE(row.contains(key)) << key << " in " << row["figure"];
    for (const auto& line : row["breakdown"])
      for (const char* key : {"part", "count", "cycles_each"}) EXPECT_TRUE(line.contains(key));
  }
}

// The label follows the shares, recomputed here from `breakdown` and `sources`: the
// cycles |count x cycles_each| of each part, by the tag its source line names; `modeled`
// only where sourced constants price more than half (docs/compare.md).
TEST(SeedFigures, NoRowIsModeledWithoutMostOfItsCyclesPricedBySources) {
  for (const char* profile : {"p3", "k7"})
    for (const auto& row : report(profile)["seed_figures"]) {
      const std::string derivation = row["derivation"];
      if (derivation == "counted" || derivation == "not-modeled") continue;
      std::map<std::string, std::string> kind;  // part -> "source", "calibrated", "assumption"
      for (const auto& source : row["sources"]) {
        const std::string text = source;
        const auto first = text.find(": "), second = text.find(": ", first + 2);
        kind[text.substr(0, first)] = text.substr(first + 2, second - first - 2);
      }
      std::map<std::string, double> cycles;
      for (const auto& line : row["breakdown"]) {
        const auto found = kind.find(line["part"]);
        cycles[found == kind.end() ? "counted" : found->second] +=
            std::fabs(line["count"].get<double>() * line["cycles_each"].get<double>());
      }
      const double total = cycles["source"] + cycles["calibrated"] + cycles["assumption"] + cycles["counted"];
      for (const char* k : {"source", "calibrated", "assumption", "counted"})
        EXPECT_NEAR(row["shares"][k].get<double>(), cycles[k], 1e-6 * std::max(1.0, total)) << row["figure"] << " " << k;
      if (derivation == "calibrated") continue;  // a constant set from this very figure
      const std::string expected = cycles["source"] > 0.5 * total                 ? "modeled"
                                   : cycles["assumption"] >= cycles["calibrated"] ? "assumption-priced"
                                                                                  : "calibrated-derived";
      EXPECT_EQ(derivation, expected) << profile << " " << row["figure"];
    }
  // The issue's cases: D5, D9 and C3-none rest on the calibrated MOV alone, the tls ratios
  // and the irq after/before ratio mostly on assumptions.
  const nlohmann::json& json = report("p3");
  EXPECT_EQ((*figure(json, "ctxsw", "D5 (2 descriptors), cycles"))["derivation"], "calibrated-derived");
  EXPECT_EQ((*figure(json, "ctxsw", "D9 (3 descriptors), cycles"))["derivation"], "calibrated-derived");
  EXPECT_EQ((*figure(json, "tls", "emulation / native time"))["derivation"], "assumption-priced");
  EXPECT_EQ((*figure(json, "irq", "hackbench after / before"))["derivation"], "assumption-priced");
}

// A verdict never contradicts the interval it is printed with, and the point lies inside.
void expect_verdicts_agree_with_intervals(const nlohmann::json& json, const std::string& what) {
  for (const auto& row : json["seed_figures"]) {
    const std::string derivation = row["derivation"];
    if (derivation == "modeled" || derivation == "assumption-priced" || derivation == "calibrated-derived") {
      ASSERT_TRUE(row["interval"].is_array()) << what << " " << row["figure"];
      ASSERT_TRUE(row["seed_inside"].is_boolean()) << what << " " << row["figure"];
    }
    if (!row["interval"].is_array()) continue;
    const double low = row["interval"][0], high = row["interval"][1], value = row["x86lab_value"];
    const double slack = 1e-9 * std::max(1.0, std::fabs(value));
    EXPECT_LE(low, value + slack) << what << " " << row["figure"];
    EXPECT_GE(high, value - slack) << what << " " << row["figure"];
    if (row["verdict"].is_null()) continue;
    const double seed = row["seed_value"];
    const std::string verdict = row["verdict"];
    if (verdict == "below") EXPECT_LT(high, seed) << what << " " << row["figure"];
    else if (verdict == "above") EXPECT_GT(low, seed) << what << " " << row["figure"];
    else EXPECT_TRUE(verdict == "inside" && low <= seed && seed <= high) << what << " " << row["figure"] << " " << verdict;
    EXPECT_EQ(row["seed_inside"].get<bool>(), verdict == "inside") << what << " " << row["figure"];
  }
}

// p3.cost with every assumption constant (and its range) times `factor`, written once.
std::string scaled_profile(double factor) {
  const auto path = std::filesystem::path(::testing::TempDir()) / ("x86lab_p3_assumptions_x" + std::to_string(factor) + ".cost");
  std::ifstream in(std::string(X86LAB_SOURCE_DIR) + "/trace/profiles/p3.cost");
  std::ofstream out(path);
  const auto times = [&](const std::string& number) {
    std::ostringstream text;
    text << std::stod(number) * factor;
    return text.str();
  };
  for (std::string line; std::getline(in, line);) {
    const auto tag = line.find("assumption:"), equals = line.find(" = ");
    if (tag == std::string::npos || line[0] == '#') {
      out << line << "\n";
      continue;
    }
    const std::string number = line.substr(equals + 3, tag - equals - 3);  // "8 [3..16]  "
    const auto open = number.find('['), dots = number.find(".."), close = number.find(']');
    out << line.substr(0, equals + 3) << times(number.substr(0, open)) << " [" << times(number.substr(open + 1, dots - open - 1))
        << ".." << times(number.substr(dots + 2, close - dots - 2)) << "]  " << line.substr(tag) << "\n";
  }
  return path.string();
}

// The issue's test: every assumption constant doubled, then halved (all within p3's
// ranges, which span half to double at least): no verdict the report prints lies outside
// its interval, and the figures that do not depend on the timer stay inside the intervals
// of the report at the assumed values.
TEST(SeedFigures, VerdictsHoldWithEveryAssumptionDoubledOrHalved) {
  const nlohmann::json& base = report("p3");
  expect_verdicts_agree_with_intervals(base, "p3");
  for (const double factor : {2.0, 0.5}) {
    const std::string file = scaled_profile(factor);
    const nlohmann::json& changed = report(file);
    expect_verdicts_agree_with_intervals(changed, "p3 x " + std::to_string(factor));
    for (const auto& row : changed["seed_figures"]) {
      // tls and ctxsw count the same events whatever the costs; irq's timer fires by cycles.
      if (row["scenario"] == "irq" || row["x86lab_value"].is_null()) continue;
      const nlohmann::json* at_point = figure(base, row["scenario"].get<std::string>(), row["figure"].get<std::string>());
      ASSERT_NE(at_point, nullptr);
      if (!(*at_point)["interval"].is_array()) continue;
      const double value = row["x86lab_value"], low = (*at_point)["interval"][0], high = (*at_point)["interval"][1];
      const double slack = 1e-6 * std::max(1.0, std::fabs(value));
      EXPECT_TRUE(low - slack <= value && value <= high + slack)
          << row["figure"] << " x" << factor << ": " << value << " outside [" << low << ", " << high << "]";
    }
  }
}

// p3's LLDT, LGDT and MOV were set from these seed figures: reported as calibrated.
TEST(SeedFigures, TheFiguresP3WasCalibratedOnAreReportedAsCalibrated) {
  const nlohmann::json& json = report("p3");
  for (const char* name : {"LLDT, cycles", "LGDT, cycles", "unconditional copy of 2 descriptors, cycles"}) {
    const nlohmann::json* row = figure(json, "ctxsw", name);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_EQ((*row)["derivation"], "calibrated") << name;
  }
  // Under k7 the LLDT comes from AMD's table (34 cycles): modeled, not calibrated.
  const nlohmann::json* lldt = figure(report("k7"), "ctxsw", "LLDT, cycles");
  ASSERT_NE(lldt, nullptr);
  EXPECT_EQ((*lldt)["derivation"], "modeled");
  EXPECT_DOUBLE_EQ((*lldt)["x86lab_value"].get<double>(), 34.0);
  // The fault count ratio is the guest's own count: 8191 flips / 4160 emulations.
  const nlohmann::json* faults = figure(json, "tls", "flipping faults / emulation faults (about twice)");
  ASSERT_NE(faults, nullptr);
  EXPECT_EQ((*faults)["derivation"], "counted");
  EXPECT_DOUBLE_EQ((*faults)["x86lab_value"].get<double>(), 8191.0 / 4160.0);
}

// The ctxsw rows' breakdowns are the RDTSC windows of Luca's loop (the operation's
// window minus the empty loop's, per run): their count x cycles add up to the guest's own
// loop figure, and LLDT is one LLDT (51 cycles on p3, 34 on k7).
TEST(SeedFigures, CtxswBreakdownsAreTheMeasuredWindowsAndAddUpToTheGuestsFigure) {
  for (const char* profile : {"p3", "k7"})
    for (const auto& row : report(profile)["seed_figures"]) {
      if (row["scenario"] != "ctxsw" || row["x86lab_value"].is_null()) continue;
      double total = 0;
      for (const auto& line : row["breakdown"]) total += line["count"].get<double>() * line["cycles_each"].get<double>();
      EXPECT_NEAR(total, row["x86lab_value"].get<double>(), 0.011) << profile << " " << row["figure"];
    }
  const nlohmann::json* lldt = figure(report("p3"), "ctxsw", "LLDT, cycles");
  ASSERT_NE(lldt, nullptr);
  ASSERT_EQ((*lldt)["breakdown"].size(), 1u);
  EXPECT_EQ((*lldt)["breakdown"][0]["part"], "instruction.LLDT");
  EXPECT_EQ((*lldt)["breakdown"][0]["count"], 1);
}

// The seed's kernel ran its timer at HZ 100 to 1000, not at the scenario's 99.4 kHz: the
// after/before ratio is reported at those rates too, from runs that took that many ticks.
TEST(SeedFigures, IrqAfterBeforeIsReportedAtHz100To1000) {
  const nlohmann::json& json = report("p3");
  const nlohmann::json* fast = figure(json, "irq", "hackbench after / before");
  ASSERT_NE(fast, nullptr);
  for (const char* hz : {"100", "250", "1000"}) {
    const nlohmann::json* row = figure(json, std::string("irq@") + hz + "Hz", std::string("hackbench after / before, timer at ") + hz + " Hz");
    ASSERT_NE(row, nullptr) << hz;
    ASSERT_TRUE((*row)["x86lab_value"].is_number()) << hz;
    // Fewer timer interrupts in the ping-pong window: the stubs' difference shrinks.
    EXPECT_GE((*row)["x86lab_value"].get<double>(), 1.0) << hz;
    EXPECT_LT((*row)["x86lab_value"].get<double>() - 1, ((*fast)["x86lab_value"].get<double>() - 1) / 4) << hz;
  }
}

// Seed 004 measured on a Sempron: the irq figures are reported under k7 too.
TEST(SeedFigures, IrqIsReportedUnderK7AsWellAsP3) {
  int p3 = 0, k7 = 0;
  for (const auto& row : report("p3")["seed_figures"])
    if (row["scenario"] == "irq") (row["profile"] == "k7" ? k7 : p3) += 1;
  EXPECT_EQ(p3, 11);
  EXPECT_EQ(k7, 11);
}

// cycles = sum of count x cycles_each over the variant's cost_breakdown (halted time
// included), to the cycle: the clock keeps fractions below one cycle.
TEST(CostLedger, ARunsCyclesAreItsCountsTimesItsConstants) {
  for (const char* profile : {"p3", "k7"})
    for (const auto& scenario : report(profile)["scenarios"])
      for (const auto& variant : scenario["variants"]) {
        double total = 0;
        for (const auto& line : variant["cost_breakdown"])
          total += line["count"].get<double>() * line["cycles_each"].get<double>();
        const double cycles = variant["counters"]["cycles"].get<double>();
        EXPECT_LT(std::fabs(total - cycles), 1.0) << profile << " " << variant["name"];
      }
}

}  // namespace
