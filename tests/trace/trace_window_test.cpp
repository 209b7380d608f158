// Trace windows regenerated from a recording (ui/recording.h, docs/tracing.md "Trace
// windows from a recording"): for a ROM with timer interrupts and HLT, a kernel reading
// COM1 input (replayed from the recording's log) and a design-comparison scenario
// kernel, `x86lab trace window` equals, byte for byte, the same instructions cut from a
// full trace of the run (`trace convert --from --to`), for windows at the start, inside
// one snapshot interval, across snapshots and past the end of the run. The Linux slice
// is tests/trace/trace_window_linux.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "../ui/run_x86lab.h"

namespace x86lab::testing {
namespace {

struct Workload {
  const char* name;
  std::string machine;  // the run's machine options
  std::vector<std::pair<unsigned long, unsigned long>> windows;
};

void expect_windows_equal_cuts(const Workload& w) {
  const std::string dir = ::testing::TempDir() + "trace_window_" + w.name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string full = dir + "/full.bin", recording = dir + "/recording";
  const Outcome traced = run_x86lab("run " + w.machine + " --trace bin:" + full);
  ASSERT_NE(traced.status, 2) << traced.output;
  const Outcome recorded = run_x86lab("run " + w.machine + " --recording " + recording + " --recording-interval 25000");
  ASSERT_EQ(recorded.status, traced.status) << recorded.output;
  ASSERT_NE(recorded.output.find("snapshots and the input log"), std::string::npos) << recorded.output;
  for (const auto& [from, to] : w.windows) {
    SCOPED_TRACE(std::string(w.name) + " window " + std::to_string(from) + ".." + std::to_string(to));
    const std::string cut = dir + "/cut.bin", window = dir + "/window.bin";
    const std::string range = " --from " + std::to_string(from) + " --to " + std::to_string(to);
    ASSERT_EQ(run_x86lab("trace convert " + full + " " + cut + range).status, 0);
    const Outcome regenerated = run_x86lab("trace window --recording " + recording + range + " --out " + window);
    ASSERT_EQ(regenerated.status, 0) << regenerated.output;
    const std::string expected = read_file(cut);
    EXPECT_GT(expected.size(), 40u);  // more than the header and an empty index
    const std::string got = read_file(window);
    EXPECT_TRUE(got == expected) << "the window (" << got.size() << " bytes) differs from the cut (" << expected.size()
                                 << " bytes): x86lab trace diff " << cut << " " << window;
  }
}

const std::string kRoms = X86LAB_ROM_DIR;

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// `arguments` are refused with one line (status 2) that contains `text`.
void expect_bad_input(const std::string& arguments, const std::string& text) {
  const Outcome o = expect_rejected_in_one_line(arguments);
  EXPECT_NE(o.output.find(text), std::string::npos) << o.output;
}

TEST(TraceWindow, TimerRomWindowsEqualCutsOfTheFullTrace) {
  expect_windows_equal_cuts({"timer",
                             "--bios " + kRoms + "/platform/pc_timer_devices.bin --debugcon none --serial none",
                             {{0, 999}, {25000, 25000}, {30000, 45000}, {49990, 50010}, {84000, 90000}}});
}

TEST(TraceWindow, SerialInputIsReplayedIntoTheWindow) {
  const std::string input = ::testing::TempDir() + "trace_window_input.txt";
  write_file(input, "hello world\nq\n");
  expect_windows_equal_cuts({"echo",
                             "--kernel " + kRoms + "/multiboot/echo_kernel.elf --serial-input " + input +
                                 " --serial none --debugcon none --max-instructions 400000",
                             {{0, 5000}, {120000, 160000}, {390000, 399999}}});
}

TEST(TraceWindow, IrqScenarioKernelWindowsEqualCuts) {
  expect_windows_equal_cuts({"irq",
                             "--kernel " + kRoms + "/scenarios/irq/classic.elf --serial none --debugcon none "
                                                   "--max-instructions 300000",
                             {{1000, 2000}, {74000, 126000}, {250000, 299999}}});
}

TEST(TraceWindow, BadRecordingsAreOneLineAndStatus2) {
  const std::string dir = ::testing::TempDir() + "trace_window_bad";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  expect_bad_input("trace window --recording " + dir + "/none --from 0 --to 10 --out " + dir + "/o.bin",
                   "is not a directory");
  expect_bad_input("trace window --recording " + dir + " --from 0 --to 10 --out " + dir + "/o.bin",
                   "no snapshot at or before instruction 0");
  expect_bad_input("trace window --recording " + dir + " --from 9 --to 1 --out " + dir + "/o.bin",
                   "N <= M");
  expect_bad_input("trace window --recording " + dir + " --from x --to 1 --out " + dir + "/o.bin",
                   "whole number");
  write_file(dir + "/snapshot-000000000000.snap", "not a snapshot");
  write_file(dir + "/inputs.log", "");
  write_file(dir + "/machine-options", "--memory\n64\n");
  write_file(dir + "/end-steps", "1000\n");
  expect_bad_input("trace window --recording " + dir + " --from 0 --to 10 --out " + dir + "/o.bin",
                   "snapshot-000000000000.snap");
  EXPECT_FALSE(std::filesystem::exists(dir + "/o.bin"));
  // A directory with other files is not taken as a recording.
  write_file(dir + "/notes.txt", "mine");
  expect_bad_input("run --bios " + kRoms + "/demo.bin --debugcon none --recording " + dir,
                   "which is not part of a recording");
  EXPECT_TRUE(std::filesystem::exists(dir + "/notes.txt"));
  expect_bad_input("run --bios " + kRoms + "/demo.bin --debugcon none --recording-interval 5",
                   "--recording-interval needs --recording");
  expect_bad_input("run --bios " + kRoms + "/demo.bin --debugcon none --trace bin:" + dir +
                              "/t.bin --trace-stop window",
                   "--trace-stop window needs --trace-filter window=");
}

}  // namespace
}  // namespace x86lab::testing
