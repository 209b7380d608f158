// The scenario variant runner (platform/scenario/scenario_runner.h) on the selftest
// ROM (roms/scenarios/selftest/selftest.asm): success and failure endings, captured
// METRIC/SAMPLES values, counters, and threads giving the same results as one.
#include <gtest/gtest.h>

#include "platform/input_error.h"
#include "platform/scenario/scenario_runner.h"

namespace x86lab {
namespace {

const ScenarioManifest& selftest() {
  static const ScenarioManifest manifest = load_manifest(X86LAB_ROM_DIR "/scenarios/selftest/variants.json");
  return manifest;
}

VariantResult run(const char* name) { return run_variant(selftest(), *selftest().find(name)); }

TEST(ScenarioRunner, ExitPortPassIsSuccessAndTheConsoleIsParsed) {
  const VariantResult result = run("base");
  ASSERT_TRUE(result.succeeded) << result.failure << "\n" << result.console;
  EXPECT_EQ(result.scenario, "selftest");
  EXPECT_EQ(result.name, "base");
  EXPECT_EQ(result.run.reason, RunResult::Reason::ExitPort);
  EXPECT_EQ(result.run.exit_status, 33);
  EXPECT_EQ(result.metrics.at("operations"), 100);
  EXPECT_EQ(result.metrics.at("answer"), -42);
  const std::vector<i64>& latency = result.samples.at("latency");
  ASSERT_EQ(latency.size(), 9u);  // 8 RDTSC deltas, then one appended line
  for (std::size_t i = 0; i < 8; ++i) EXPECT_GT(latency[i], 0);
  EXPECT_EQ(latency[8], 1'000'000);
  EXPECT_NE(result.console.find("selftest: free text"), std::string::npos);
  EXPECT_EQ(result.counters.exceptions_by_vector[0x50], 3u);  // three INT 50h
}

TEST(ScenarioRunner, InstructionCountsFollowTheLoopLength) {
  // `dec cx; jnz` is two instructions per iteration: 300 - 100 iterations = 400 more.
  const VariantResult base = run("base"), more = run("more");
  ASSERT_TRUE(base.succeeded && more.succeeded);
  EXPECT_EQ(more.counters.instructions - base.counters.instructions, 400u);
  EXPECT_GT(more.cycles, base.cycles);
}

TEST(ScenarioRunner, HaltWithInterruptsDisabledIsSuccess) {
  const VariantResult result = run("halt");
  EXPECT_TRUE(result.succeeded) << result.failure;
  EXPECT_EQ(result.run.reason, RunResult::Reason::Halted);
  EXPECT_EQ(result.run.exit_status, 0);
}

TEST(ScenarioRunner, FailureEndingsAreReportedWithTheirReason) {
  const VariantResult fail = run("fail");
  EXPECT_FALSE(fail.succeeded);
  EXPECT_EQ(fail.failure.rfind("exit port with exit status 35 (success is 33) at f000:", 0), 0u) << fail.failure;
  const VariantResult hang = run("hang");
  EXPECT_FALSE(hang.succeeded);
  EXPECT_EQ(hang.run.reason, RunResult::Reason::InstructionLimit);
  EXPECT_NE(hang.failure.find("instruction limit reached"), std::string::npos) << hang.failure;
  const VariantResult malformed = run("malformed");
  EXPECT_FALSE(malformed.succeeded);
  EXPECT_NE(malformed.failure.find("METRIC broken value '12x' is not an integer"), std::string::npos)
      << malformed.failure;
}

TEST(ScenarioRunner, AMissingImageIsAnInputError) {
  ScenarioManifest manifest = selftest();
  manifest.variants[0].bios = manifest.variants[0].bios.string() + ".absent";
  EXPECT_THROW(run_variant(manifest, manifest.variants[0]), InputError);
  EXPECT_THROW(run_variant(selftest(), selftest().variants[0], "p9"), InputError);
}

TEST(ScenarioRunner, ThreadsGiveTheResultsOfOneThreadInJobOrder) {
  std::vector<VariantJob> jobs;
  for (const VariantSpec& variant : selftest().variants) jobs.push_back({&selftest(), &variant});
  MachineConfig base;
  apply_builtin_profile("p3", base);
  const auto parallel = run_variants(jobs, base, 4);
  ASSERT_EQ(parallel.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const VariantResult alone = run_variant(selftest(), selftest().variants[i]);
    EXPECT_EQ(parallel[i].name, selftest().variants[i].name);
    EXPECT_EQ(parallel[i].succeeded, alone.succeeded);
    EXPECT_EQ(parallel[i].counters.instructions, alone.counters.instructions);
    EXPECT_EQ(parallel[i].cycles, alone.cycles);
    EXPECT_EQ(parallel[i].console, alone.console);
  }
}

}  // namespace
}  // namespace x86lab
