// `x86lab compare make-stream` and `x86lab compare tls-stream [--stream FILE]`
// (docs/compare.md "Replaying a recorded stream"): the stream file reaches the guest as
// module 0, and bad input is one line with status 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_x86lab.h"

namespace {

using x86lab::testing::Outcome;

Outcome run(const std::string& arguments) { return x86lab::testing::run_x86lab(arguments); }

std::string temp_file(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / ("x86lab_stream_" + name)).string();
}

// The cells of the table row `label` (text format).
std::vector<std::string> row_cells(const std::string& output, const std::string& label) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    line.erase(0, line.find_first_not_of(' '));
    if (line.rfind(label + "  ", 0) != 0) continue;
    std::istringstream cells(line.substr(label.size()));
    std::vector<std::string> values;
    for (std::string cell; cells >> cell;) values.push_back(cell);
    return values;
  }
  return {};
}

void expect_one_line_status_2(const Outcome& o, const std::string& fragment) {
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(x86lab::testing::line_count(o.output), 1) << o.output;
  EXPECT_NE(o.output.find(fragment), std::string::npos) << o.output;
}

TEST(CompareStreamCli, DefaultModuleIsTheSyntheticProgramsStream) {
  // docs/scenarios/tls.md: 8191 flips for the synthetic program, 4160 emulations.
  const Outcome o = run("compare tls-stream --variants emulation,flipping --no-files --jobs 2");
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_EQ(row_cells(o.output, "gp_faults (guest)"), (std::vector<std::string>{"0", "4160", "8191"}));
}

TEST(CompareStreamCli, StreamOptionReplacesTheModule) {
  const std::string file = temp_file("positive.x86ltls");
  ASSERT_EQ(run("compare make-stream --pattern positive --out " + file).status, 0);
  const Outcome o = run("compare tls-stream --variants emulation,flipping --no-files --jobs 2 --stream " + file);
  ASSERT_EQ(o.status, 0) << o.output;
  EXPECT_EQ(row_cells(o.output, "gp_faults (guest)"), (std::vector<std::string>{"0", "0", "0"}));
  EXPECT_EQ(row_cells(o.output, "operations (guest)"), (std::vector<std::string>{"8256", "8256", "8256"}));
}

TEST(CompareStreamCli, BadInputIsOneLineAndStatus2) {
  const std::string bad = temp_file("bad.x86ltls");
  std::ofstream(bad) << "not a stream, but longer than twenty-four bytes";
  expect_one_line_status_2(run("compare tls-stream --no-files --stream " + bad), "TLS stream '" + bad + "': no X86LTLS1 magic");
  expect_one_line_status_2(run("compare tls-stream --no-files --stream " + temp_file("missing")), "cannot open --stream");
  const std::string good = temp_file("good.x86ltls");
  ASSERT_EQ(run("compare make-stream --pattern synthetic --out " + good).status, 0);
  expect_one_line_status_2(run("compare selftest --no-files --stream " + good), "no variant of these scenarios boots a module");
  expect_one_line_status_2(run("compare make-stream --pattern sawtooth --out " + good), "unknown --pattern 'sawtooth'");
  expect_one_line_status_2(run("compare make-stream --pattern threads:0 --out " + good), "the thread count must be 1..16");
  expect_one_line_status_2(run("compare make-stream --pattern synthetic"), "needs --pattern NAME and --out FILE");
}

}  // namespace
