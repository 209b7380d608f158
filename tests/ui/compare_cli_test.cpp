// `x86lab compare` (docs/compare.md) on the selftest scenario (roms/scenarios/selftest):
// bad input is one line and exit status 2; the table, CSV, JSON and Markdown carry the
// values the selftest ROM's structure gives (two instructions per loop iteration,
// three INT 50h, METRIC operations = the loop count); failed variants are named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_x86lab.h"
#include "ui/compare_plots.h"

namespace {

using x86lab::testing::Outcome;
using x86lab::testing::row_cells;

const std::string kScenarioDir = X86LAB_ROM_DIR "/scenarios";

Outcome run(const std::string& arguments) { return x86lab::testing::run_x86lab(arguments); }

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// A fresh empty folder under the test temp folder.
std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("x86lab_compare_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void expect_one_line_status_2(const Outcome& o, const std::string& fragment) {
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(x86lab::testing::line_count(o.output), 1) << o.output;
  EXPECT_EQ(o.output.rfind("x86lab: ", 0), 0u) << o.output;
  EXPECT_NE(o.output.find(fragment), std::string::npos) << o.output;
}

TEST(CompareCli, UnknownScenarioIsOneLineAndStatus2) {
  expect_one_line_status_2(run("compare nosuch --no-files --scenario-dir " + kScenarioDir),
                           "unknown scenario 'nosuch' (built in '" + kScenarioDir + "': ");
}

TEST(CompareCli, UnknownVariantIsOneLineAndStatus2) {
  expect_one_line_status_2(run("compare selftest --no-files --variants base,nope"),
                           "scenario 'selftest' has no variant 'nope' (base, more, halt, fail, hang, malformed)");
}

TEST(CompareCli, UnwritableOutIsOneLineAndStatus2BeforeAnythingRuns) {
  const auto dir = fresh_dir("unwritable");
  std::ofstream(dir / "file") << "x";
  const Outcome o = run("compare selftest --variants base --out " + (dir / "file" / "sub").string());
  expect_one_line_status_2(o, "cannot create --out folder '" + (dir / "file" / "sub").string() + "'");
}

// A report file that cannot be written (here report.md.part is a folder, as a full disk
// would stop it) leaves the previous reports as they were and no .part file: all four
// reports or none.
TEST(CompareCli, AReportThatCannotBeWrittenLeavesThePreviousReports) {
  const auto dir = fresh_dir("report_all_or_none");
  std::ofstream(dir / "report.txt") << "previous\n";
  std::filesystem::create_directory(dir / "report.md.part");
  const Outcome o = run("compare selftest --variants base --out " + dir.string());
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_NE(o.output.find("x86lab: cannot open report file '" + (dir / "report.md.part").string() + "': Is a directory"),
            std::string::npos)
      << o.output;
  EXPECT_EQ(read_file(dir / "report.txt"), "previous\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "report.txt.part"));
  EXPECT_FALSE(std::filesystem::exists(dir / "report.json"));
  // A report's own name taken by a folder: found before any rename (report.txt and
  // report.md were replaced before the rename of report.json failed).
  std::filesystem::remove(dir / "report.md.part");
  std::filesystem::create_directory(dir / "report.json");
  const Outcome taken = run("compare selftest --variants base --out " + dir.string());
  EXPECT_EQ(taken.status, 2) << taken.output;
  EXPECT_NE(taken.output.find("x86lab: cannot write report file '" + (dir / "report.json").string() +
                              "': a folder has that name"),
            std::string::npos)
      << taken.output;
  EXPECT_EQ(read_file(dir / "report.txt"), "previous\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "report.csv.part"));
}

TEST(CompareCli, BadManifestIsOneLineAndStatus2) {
  const auto dir = fresh_dir("bad_manifest");
  std::filesystem::create_directories(dir / "broken");
  std::ofstream(dir / "broken" / "variants.json") << "{\"scenario\": \"broken\", ";
  const Outcome o = run("compare broken --no-files --scenario-dir " + dir.string());
  expect_one_line_status_2(o, "manifest '" + (dir / "broken" / "variants.json").string() + "': not valid JSON");
  std::ofstream(dir / "broken" / "variants.json") << R"({"scenario": "broken", "baseline": "x", "variants": []})";
  expect_one_line_status_2(run("compare all --no-files --scenario-dir " + dir.string()),
                           "\"variants\" must be a non-empty array");
}

TEST(CompareCli, BadOptionsAreOneLineAndStatus2) {
  expect_one_line_status_2(run("compare selftest --no-files --format html"), "--format must be text, markdown");
  expect_one_line_status_2(run("compare selftest --no-files --jobs 0"), "--jobs needs a whole number from 1 to 256");
  expect_one_line_status_2(run("compare selftest --no-files --profile p9"), "unknown --profile 'p9'");
  expect_one_line_status_2(run("compare --no-files"), "compare needs a scenario name or 'all'");
  expect_one_line_status_2(run("compare selftest --no-files --scenario-dir /nonexistent"),
                           "scenario folder '/nonexistent' does not exist");
}

TEST(CompareCli, TextTableHasTheValuesOfTheProgramStructure) {
  // Found without --scenario-dir: roms/scenarios/ beside the x86lab binary.
  const Outcome o = run("compare selftest --variants more,halt --no-files --jobs 2");
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("selftest: Runner self-test"), std::string::npos) << o.output;
  const auto instructions = row_cells(o.output, "instructions");
  ASSERT_EQ(instructions.size(), 3u) << o.output;  // base (the baseline, always run), more, halt
  EXPECT_EQ(std::stoll(instructions[1]) - std::stoll(instructions[0]), 400);  // 200 more `dec cx; jnz`
  EXPECT_EQ(row_cells(o.output, "operations (guest)"), (std::vector<std::string>{"100", "300", "100"}));
  EXPECT_EQ(row_cells(o.output, "vector 80 (50h)"), (std::vector<std::string>{"3", "3", "3"}));
  EXPECT_EQ(row_cells(o.output, "latency count (samples)"), (std::vector<std::string>{"9", "9", "9"}));
  EXPECT_EQ(row_cells(o.output, "latency max (samples)"), (std::vector<std::string>{"1000000", "1000000", "1000000"}));
  const auto per_op = row_cells(o.output, "modeled cycles per operation");
  ASSERT_EQ(per_op.size(), 3u);
  // The ratio block: operations of `more` are 3 times the baseline's.
  const std::size_t ratios = o.output.find("ratio to base");
  ASSERT_NE(ratios, std::string::npos);
  EXPECT_EQ(row_cells(o.output.substr(ratios), "operations (guest)"),
            (std::vector<std::string>{"1.000", "3.000", "1.000"}));
}

TEST(CompareCli, FailedVariantsAreNamedAndMakeStatus1) {
  const Outcome o = run("compare selftest --variants fail,hang --no-files --jobs 2");
  EXPECT_EQ(o.status, 1) << o.output;
  EXPECT_NE(o.output.find("x86lab: selftest/fail failed: exit port with exit status 35 (success is 33)"),
            std::string::npos) << o.output;
  EXPECT_NE(o.output.find("x86lab: selftest/hang failed: instruction limit reached"), std::string::npos);
  EXPECT_NE(o.output.find("fail (FAILED)"), std::string::npos);
  EXPECT_EQ(row_cells(o.output, "instructions").size(), 3u);
  EXPECT_EQ(row_cells(o.output, "instructions")[1], "-");
}

TEST(CompareCli, ReportFilesHaveTheirShapeAndThePlotsAreRendered) {
  const auto out = fresh_dir("report");
  const Outcome o = run("compare selftest --variants more --jobs 1 --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("x86lab: report written to " + out.string() + "/"), std::string::npos) << o.output;

  std::istringstream csv(read_file(out / "report.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "scenario,variant,source,metric,value,ratio_to_baseline");
  std::size_t rows = 0;
  bool found_operations = false;
  for (; std::getline(csv, line); ++rows) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 5) << line;
    found_operations = found_operations || line == "selftest,more,guest,operations,300,3.000";
  }
  EXPECT_TRUE(found_operations);
  EXPECT_EQ(rows % 2, 0u);  // the same rows for both variants

  const auto json = nlohmann::json::parse(read_file(out / "report.json"));
  EXPECT_EQ(json["profile"], "p3");
  const auto& scenario = json["scenarios"][0];
  EXPECT_EQ(scenario["scenario"], "selftest");
  EXPECT_EQ(scenario["baseline"], "base");
  ASSERT_EQ(scenario["variants"].size(), 2u);
  const auto& more = scenario["variants"][1];
  EXPECT_EQ(more["name"], "more");
  EXPECT_EQ(more["succeeded"], true);
  EXPECT_EQ(more["end"]["reason"], "exit-port");
  EXPECT_EQ(more["guest"]["operations"], 300);
  EXPECT_EQ(more["counters"]["vector_80"], 3);
  EXPECT_EQ(more["seed"]["operations"], 300);
  EXPECT_DOUBLE_EQ(more["ratios"]["guest.operations"].get<double>(), 3.0);
  EXPECT_EQ(more["counters"]["instructions"].get<long long>() -
                scenario["variants"][0]["counters"]["instructions"].get<long long>(), 400);

  // The seed's numbers beside x86lab's, with the ratios they imply.
  const std::string markdown = read_file(out / "report.md");
  EXPECT_NE(markdown.find("| more | operations | 300 | 3.000 | operations | 300 | 3.000 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| base | instructions | 250 | 1.000 | instructions | "), std::string::npos) << markdown;
  // A seed quantity mapped to an x86lab one by the manifest's seed_counterparts.
  EXPECT_NE(markdown.find("| more | time_ms | 25 | 2.500 | cycles | "), std::string::npos) << markdown;
  // ... or, for a wall-clock time without an entry, by modeled cycles.
  EXPECT_NE(markdown.find("| more | run_seconds | 5 | 2.500 | cycles | "), std::string::npos) << markdown;
  EXPECT_EQ(read_file(out / "report.txt").find("selftest: Runner self-test"), 0u);

  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  for (const char* plot : {"selftest-metrics.png", "selftest-latency-ccdf.png"}) {
    EXPECT_EQ(read_file(out / plot).substr(1, 3), "PNG") << plot;
  }
  EXPECT_NE(read_file(out / "selftest-latency-ccdf.svg").find("<svg"), std::string::npos);
}

TEST(CompareCli, OutputIsTheSameWithOneThreadOrMany) {
  const Outcome one = run("compare selftest --variants more,halt --no-files --format json --jobs 1");
  const Outcome many = run("compare selftest --variants more,halt --no-files --format json --jobs 3");
  EXPECT_EQ(one.status, 0);
  EXPECT_EQ(one.output, many.output);
}

TEST(CompareCli, AllLeavesOutTheSelftest) {
  const auto dir = fresh_dir("all");
  std::filesystem::create_directories(dir / "selftest");
  std::filesystem::copy_file(kScenarioDir + "/selftest/variants.json", dir / "selftest" / "variants.json");
  expect_one_line_status_2(run("compare all --no-files --scenario-dir " + dir.string()), "no scenarios are built in");
}

TEST(ComparePlots, ExceedancePointsCountSamplesAboveEachValue) {
  const auto points = x86lab::exceedance_points({5, 5, 7, 1, 0, -3});
  const std::vector<std::pair<double, double>> expected = {{0.5, 4}, {1, 3}, {5, 1}, {7, 0}};
  EXPECT_EQ(points, expected);
  EXPECT_TRUE(x86lab::exceedance_points({}).empty());
}

}  // namespace
