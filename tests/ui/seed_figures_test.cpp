// compare's seed_figures (issue 29, docs/reproduction.md, docs/cost-model.md): the JSON
// shape, the derivation rules, no uncosted instruction under k7 and p3, and a run's
// cycles as its counts times its constants.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
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
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("x86lab_seed_figures_" + profile + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
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

// Every figure of docs/scenarios.md sections 1-3 has a row with the keys, and a
// modeled row has a source.
TEST(SeedFigures, EveryFigureHasTheKeysAndNoModeledRowLacksASource) {
  const nlohmann::json& json = report("p3");
  ASSERT_TRUE(json.contains("seed_figures"));
  // 9 tls, 10 ctxsw, 11 irq (docs/scenarios.md sections 1-3), and irq's 11 again under k7
  EXPECT_EQ(json["seed_figures"].size(), 41u);
  for (const auto& row : json["seed_figures"]) {
    for (const char* key : {"scenario", "figure", "seed_value", "x86lab_value", "derivation", "sources", "breakdown"})
      EXPECT_TRUE(row.contains(key)) << key << " in " << row["figure"];
    const std::string derivation = row["derivation"];
    EXPECT_TRUE(derivation == "counted" || derivation == "modeled" || derivation == "calibrated" ||
                derivation == "not-modeled") << derivation;
    if (derivation == "modeled") {
      bool sourced = false;
      for (const auto& source : row["sources"])
        sourced = sourced || std::string(source).find(": assumption: ") == std::string::npos;
      EXPECT_TRUE(sourced) << row["figure"];
    }
    for (const auto& line : row["breakdown"])
      for (const char* key : {"part", "count", "cycles_each"}) EXPECT_TRUE(line.contains(key));
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
