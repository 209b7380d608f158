// `x86lab compare sweep` (docs/compare.md, "Sweeps"): the knob values it accepts, the
// order of the cross product, the point result text and sweep.csv; the tls guest's
// knobs against counts derived from the ring-3 program's structure (user.c: 1024 calls
// of 8 %gs accesses, a negative store after every 16th call); and the bad input of
// `compare collect` (a missing or corrupt result named, exit status 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <iterator>
#include <fstream>
#include <sstream>

#include "platform/input_error.h"
#include "run_x86lab.h"
#include "ui/compare_sweep.h"

namespace x86lab {
namespace {

const ScenarioManifest& tls_manifest() {
  static const ScenarioManifest m = load_manifest(X86LAB_ROM_DIR "/scenarios/tls/variants.json");
  return m;
}

std::string input_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(SweepVary, KnobValuesAreCheckedAgainstTheManifest) {
  const ScenarioManifest& m = tls_manifest();
  const SweepAxis axis = parse_vary("density=10,100,1", m, {});
  EXPECT_EQ(axis.knob, "density");
  EXPECT_EQ(axis.values, (std::vector<u64>{10, 100, 1}));
  EXPECT_EQ(input_error([&] { parse_vary("dens=1", m, {}); }),
            "--vary: scenario 'tls' has no knob 'dens' (density, run, threads, bases)");
  EXPECT_EQ(input_error([&] { parse_vary("density=0", m, {}); }), "--vary density: 0 is outside 1-100");
  EXPECT_EQ(input_error([&] { parse_vary("density=101", m, {}); }), "--vary density: 101 is outside 1-100");
  EXPECT_EQ(input_error([&] { parse_vary("run=65", m, {}); }), "--vary run: 65 is outside 0-64");
  EXPECT_EQ(input_error([&] { parse_vary("density=5,,6", m, {}); }),
            "--vary density: '' is not a whole number (1-100)");
  EXPECT_EQ(input_error([&] { parse_vary("density=-5", m, {}); }),
            "--vary density: '-5' is not a whole number (1-100)");
  EXPECT_EQ(input_error([&] { parse_vary("density=5,5", m, {}); }), "--vary density: 5 is given twice");
  EXPECT_EQ(input_error([&] { parse_vary("density=5", m, {axis}); }), "--vary: knob 'density' is varied twice");
  EXPECT_EQ(input_error([&] { parse_vary("density", m, {}); }),
            "--vary 'density' must be NAME=V1,V2,... (knobs of tls: density, run, threads, bases)");
}

TEST(SweepPlan, PointsAreTheCrossProductFirstAxisSlowest) {
  SweepPlan plan;
  plan.axes = {{"density", {10, 20}}, {"run", {1, 2, 3}}};
  const std::vector<std::vector<u64>> expected = {{10, 1}, {10, 2}, {10, 3}, {20, 1}, {20, 2}, {20, 3}};
  EXPECT_EQ(plan.points(), expected);
  plan.manifest = tls_manifest();
  const VariantSpec spec = variant_at_point(*plan.manifest.find("flipping"), plan, {20, 3});
  EXPECT_EQ(spec.append, "mode=flipping rewrites=0 density=20 run=3");
}

PointResult sample_point() {
  PointResult p;
  p.scenario = "tls";
  p.knobs = {{"density", 25}};
  p.variants = {"native", "emulation"};
  p.succeeded = {true, false};
  p.rows = {{"slowdown", {"1.000", ""}}, {"counter.cycles", {"183843", ""}}, {"guest.delta", {"-5", "2.50"}}};
  return p;
}

TEST(SweepPoint, ResultTextRoundTripsAndNamesTheFileWhenBroken) {
  const PointResult p = sample_point();
  const std::string text = point_result_text(p);
  EXPECT_EQ(text,
            "x86lab sweep point 1\nscenario tls\nknob density 25\nvariant native 1\nvariant emulation 0\n"
            "row slowdown 1.000 -\nrow counter.cycles 183843 -\nrow guest.delta -5 2.50\nend\n");
  const PointResult back = parse_point_result(text, "p.txt");
  EXPECT_EQ(point_result_text(back), text);
  EXPECT_EQ(input_error([&] { parse_point_result(text.substr(0, text.size() - 4), "p.txt"); }),
            "sweep result 'p.txt': truncated (no 'end' line)");
  EXPECT_EQ(input_error([&] { parse_point_result("garbage\n", "p.txt"); }),
            "sweep result 'p.txt': not a sweep point result (no 'x86lab sweep point 1' line)");
  std::string bad = text;
  bad.replace(bad.find("183843"), 6, "18x843");
  EXPECT_EQ(input_error([&] { parse_point_result(bad, "p.txt"); }),
            "sweep result 'p.txt': line 7: value '18x843' is not a number or -");
}

TEST(SweepCsv, ColumnsAreTheUnionInOrderOfFirstAppearance) {
  PointResult a = sample_point(), b = sample_point();
  b.knobs = {{"density", 50}};
  b.rows.insert(b.rows.begin() + 2, {"counter.vector_13", {"0", "4160"}});
  std::ostringstream csv;
  write_sweep_csv(csv, {a, b});
  EXPECT_EQ(csv.str(),
            "density,variant,succeeded,slowdown,counter.cycles,guest.delta,counter.vector_13\n"
            "25,native,1,1.000,183843,-5,\n25,emulation,0,,,2.50,\n"
            "50,native,1,1.000,183843,-5,0\n50,emulation,0,,,2.50,4160\n");
}

// The guest's #GP faults for the sign sequence user.c produces with run=R: 1024 calls of
// 8 accesses, access k negative when (k / R) is even, and after every 16th call the
// yield's negative store. Emulation faults on every negative access; flipping on every
// access whose sign is not the one the descriptor was last flipped to (expand-up first).
struct Faults {
  u64 emulation = 0, flipping = 0;
};
Faults faults_with_switches(u64 run, bool base_changes_at_yield);
Faults faults_of_runs(u64 run) { return faults_with_switches(run, false); }

// The same with threads=T bases=B (below): at each yield the guest kernel switches to the
// next thread, round robin, and installs its TLS descriptor (expand-up, Accessed clear)
// when the thread's base differs from the last one's, which puts the descriptor back to
// expand-up before the yield's store.
Faults faults_with_switches(u64 run, bool base_changes_at_yield) {
  Faults f;
  bool expand_down = false;
  const auto access = [&](bool negative) {
    f.emulation += negative;
    if (negative != expand_down) {
      ++f.flipping;
      expand_down = negative;
    }
  };
  for (u64 call = 0, k = 0; call < 1024; ++call) {
    for (int a = 0; a < 8; ++a, ++k) access((k / run) % 2 == 0);
    if ((call + 1) % 16 == 0) {
      if (base_changes_at_yield) expand_down = false;
      access(true);
    }
  }
  return f;
}

const double* value(const PointResult& p, const std::string& key, std::size_t variant, double& storage) {
  for (const auto& [k, values] : p.rows)
    if (k == key && !values[variant].empty()) {
      storage = std::stod(values[variant]);
      return &storage;
    }
  return nullptr;
}

TEST(SweepTls, SignRunLengthSetsTheFlippingFaultsAndNotTheEmulationFaults) {
  SweepPlan plan;
  plan.manifest = tls_manifest();
  plan.variants = {"native", "emulation", "flipping"};
  plan.axes = {{"run", {1, 4, 16}}};
  const std::vector<PointResult> results = run_sweep_points(plan, {0, 1, 2}, 2);
  ASSERT_EQ(results.size(), 3u);
  for (std::size_t p = 0; p < 3; ++p) {
    const Faults expected = faults_of_runs(plan.axes[0].values[p]);
    double v = 0;
    SCOPED_TRACE("run=" + std::to_string(plan.axes[0].values[p]));
    for (std::size_t i = 0; i < 3; ++i) ASSERT_TRUE(results[p].succeeded[i]);
    ASSERT_TRUE(value(results[p], "counter.vector_13", 0, v));
    EXPECT_EQ(v, 0);  // native: nothing faults
    ASSERT_TRUE(value(results[p], "counter.vector_13", 1, v));
    EXPECT_EQ(v, static_cast<double>(expected.emulation));
    ASSERT_TRUE(value(results[p], "counter.vector_13", 2, v));
    EXPECT_EQ(v, static_cast<double>(expected.flipping));
  }
  // The values from the structure: 4160 negative accesses; 8193, 2049 and 513 flips.
  EXPECT_EQ(faults_of_runs(1).emulation, 4160u);
  EXPECT_EQ(faults_of_runs(1).flipping, 8193u);
  EXPECT_EQ(faults_of_runs(16).flipping, 513u);
}

// threads=T bases=B: with one base the threads share the descriptor and nothing
// changes; with two or more every round-robin switch changes the base, so each yield
// undoes a flip as rewrites=1 does. run=3, where some yields come after a negative
// access, so that the switch back to expand-up costs a flip.
TEST(SweepTls, ThreadsSharingABaseChangeNothingAndDistinctBasesUndoAFlipAtEachSwitch) {
  SweepPlan plan;
  plan.manifest = tls_manifest();
  plan.variants = {"native", "emulation", "flipping"};
  plan.axes = {{"threads", {4}}, {"bases", {1, 2}}, {"run", {3}}};
  const std::vector<PointResult> results = run_sweep_points(plan, {0, 1}, 2);
  ASSERT_EQ(results.size(), 2u);
  for (std::size_t p = 0; p < 2; ++p) {
    const bool distinct = p == 1;
    SCOPED_TRACE(distinct ? "bases=2" : "bases=1");
    const Faults expected = faults_with_switches(3, distinct);
    double v = 0, native_checksum = 0;
    for (std::size_t i = 0; i < 3; ++i) ASSERT_TRUE(results[p].succeeded[i]);
    ASSERT_TRUE(value(results[p], "guest.thread_switches", 2, v));
    EXPECT_EQ(v, 64);  // one per yield: 1024 calls, a yield after every 16th
    ASSERT_TRUE(value(results[p], "guest.base_changes", 2, v));
    EXPECT_EQ(v, distinct ? 64 : 0);
    ASSERT_TRUE(value(results[p], "counter.vector_13", 1, v));
    EXPECT_EQ(v, static_cast<double>(expected.emulation));
    ASSERT_TRUE(value(results[p], "counter.vector_13", 2, v));
    EXPECT_EQ(v, static_cast<double>(expected.flipping));
    ASSERT_TRUE(value(results[p], "guest.checksum", 0, native_checksum));
    for (std::size_t i = 1; i < 3; ++i) {
      ASSERT_TRUE(value(results[p], "guest.checksum", i, v));
      EXPECT_EQ(v, native_checksum) << plan.variants[i];
    }
  }
  EXPECT_EQ(faults_with_switches(3, false).flipping, 2773u);
  EXPECT_EQ(faults_with_switches(3, true).flipping, 2795u);  // 22 yields came after a negative access
}

TEST(SweepTls, DensitySetsTheShareOfTlsOperations) {
  SweepPlan plan;
  plan.manifest = tls_manifest();
  plan.variants = {"native", "emulation"};
  plan.axes = {{"density", {25, 100}}};
  const std::vector<PointResult> results = run_sweep_points(plan, {0, 1}, 2);
  double v = 0;
  // density 25: every 4th call (256 of 1024) is a TLS operation with 4 negative
  // accesses; the 64 yields add one negative store each.
  ASSERT_TRUE(value(results[0], "guest.tls_operations", 1, v));
  EXPECT_EQ(v, 256);
  ASSERT_TRUE(value(results[0], "counter.vector_13", 1, v));
  EXPECT_EQ(v, 4 * 256 + 64);
  ASSERT_TRUE(value(results[1], "counter.vector_13", 1, v));
  EXPECT_EQ(v, 4 * 1024 + 64);
  // Fewer TLS operations, smaller slowdown.
  double low = 0, high = 0;
  ASSERT_TRUE(value(results[0], "slowdown", 1, low));
  ASSERT_TRUE(value(results[1], "slowdown", 1, high));
  EXPECT_LT(low, high);
  EXPECT_GT(low, 1.0);
}

// ctxsw descriptors=N: the C3 ranged copy copies N descriptors (its seed operation grows
// with N); LLDT and LGDT switch a whole table (the same cycles for any N); the
// unconditional copy keeps the count it is built for.
TEST(SweepCtxsw, OnlyTheRangedCopyDependsOnTheDescriptorCount) {
  SweepPlan plan;
  plan.manifest = load_manifest(X86LAB_ROM_DIR "/scenarios/ctxsw/variants.json");
  plan.variants = {"lldt_a1", "copy3_a1", "c3_1_a1", "lgdt_a1"};
  plan.axes = {{"descriptors", {1, 8}}};
  const std::vector<PointResult> r = run_sweep_points(plan, {0, 1}, 2);
  double one = 0, eight = 0;
  const auto op = [&](std::size_t point, std::size_t variant, double& out) {
    return value(r[point], "guest.cycles_per_op", variant, out) != nullptr;
  };
  for (std::size_t v : {0u, 3u}) {
    ASSERT_TRUE(op(0, v, one) && op(1, v, eight)) << r[0].variants[v];
    EXPECT_EQ(one, eight) << r[0].variants[v];
  }
  ASSERT_TRUE(op(0, 2, one) && op(1, 2, eight));
  EXPECT_GT(eight, one);
  ASSERT_TRUE(value(r[1], "guest.tls_descriptors", 2, one));
  EXPECT_EQ(one, 8);
  ASSERT_TRUE(value(r[1], "guest.tls_descriptors", 1, one));
  EXPECT_EQ(one, 3);
}

// --- compare collect: bad input ---

std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("x86lab_sweep_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

void expect_one_line_status_2(const testing::Outcome& o, const std::string& fragment) {
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(testing::line_count(o.output), 1) << o.output;
  EXPECT_NE(o.output.find(fragment), std::string::npos) << o.output;
}

TEST(SweepCollect, AMissingOrCorruptResultIsNamedWithStatus2) {
  const auto dir = fresh_dir("collect");
  const testing::Outcome emitted =
      testing::run_x86lab("compare sweep tls --variants native --vary density=50,100 --emit-jobs " + dir.string());
  ASSERT_EQ(emitted.status, 0) << emitted.output;
  const std::string missing = (dir / "results" / "p00001.txt").string();
  expect_one_line_status_2(testing::run_x86lab("compare collect " + dir.string()),
                           "x86lab: sweep result '" + missing + "' is missing (line 1 of jobs.txt has not run, or failed)");
  std::ofstream(missing) << "x86lab sweep point 1\nscenario tls\nknob density 50\nvariant native 1\nrow slowdown 1.000\n";
  expect_one_line_status_2(testing::run_x86lab("compare collect " + dir.string()),
                           "x86lab: sweep result '" + missing + "': truncated (no 'end' line)");
  std::ofstream(missing) << "x86lab sweep point 1\nscenario tls\nknob density 60\nvariant native 1\nend\n";
  expect_one_line_status_2(testing::run_x86lab("compare collect " + dir.string()),
                           "x86lab: sweep result '" + missing + "': its scenario, knobs or variants are not those of line 1");
  expect_one_line_status_2(testing::run_x86lab("compare collect " + (dir / "inputs").string()),
                           "plan.json' is missing (not a folder written by compare sweep --emit-jobs)");
  // A plan whose knob is not the scenario's (a name that would make a plot file outside
  // the folder) is refused as --vary would refuse it, before anything is written.
  std::string plan;
  {
    std::ifstream in(dir / "plan.json");
    plan.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto at = plan.find("\"density\"");
  ASSERT_NE(at, std::string::npos) << plan;
  plan.replace(at, 9, "\"x/../../ESCAPED\"");
  std::ofstream(dir / "plan.json") << plan;
  expect_one_line_status_2(testing::run_x86lab("compare collect " + dir.string()),
                           "plan.json': --vary: scenario 'tls' has no knob 'x/../../ESCAPED'");
  EXPECT_FALSE(std::filesystem::exists(dir / "sweep.csv"));
}

TEST(SweepCli, BadKnobsAreOneLineAndStatus2) {
  expect_one_line_status_2(testing::run_x86lab("compare sweep tls --vary vectors=1,2 --out /tmp/x86lab-unused"),
                           "x86lab: --vary: scenario 'tls' has no knob 'vectors' (density, run, threads, bases)");
  expect_one_line_status_2(testing::run_x86lab("compare sweep tls --vary density= --out /tmp/x86lab-unused"),
                           "x86lab: --vary density: no values (1-100)");
  // 100 x 65 points x 8 variants: more runs than one process holds (each keeps its result).
  std::string all_densities = "1", all_runs = "0";
  for (int v = 2; v <= 100; ++v) (all_densities += ',') += std::to_string(v);
  for (int v = 1; v <= 64; ++v) (all_runs += ',') += std::to_string(v);
  expect_one_line_status_2(
      testing::run_x86lab("compare sweep tls --vary density=" + all_densities + " --vary run=" + all_runs +
                          " --out /tmp/x86lab-unused"),
      "x86lab: --vary: the sweep has 6500 points x 8 variants = 52000 runs; at most 20000 run in one process (use "
      "--emit-jobs DIR for more)");
  expect_one_line_status_2(testing::run_x86lab("compare sweep irq --vary timer_hz=50 --out /tmp/x86lab-unused"),
                           "x86lab: --vary timer_hz: 50 is outside 100-1193182");
  expect_one_line_status_2(testing::run_x86lab("compare sweep ctxsw --vary density=5 --out /tmp/x86lab-unused"),
                           "x86lab: --vary: scenario 'ctxsw' has no knob 'density' (descriptors)");
  expect_one_line_status_2(testing::run_x86lab("compare sweep selftest --vary density=5 --out /tmp/x86lab-unused"),
                           "x86lab: --vary: scenario 'selftest' has no knob 'density' (none)");
  expect_one_line_status_2(testing::run_x86lab("compare sweep tls --out /tmp/x86lab-unused"),
                           "x86lab: compare sweep needs --vary NAME=V1,V2,...");
}

}  // namespace
}  // namespace x86lab
