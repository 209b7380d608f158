// `x86lab run --record-tls` and `x86lab compare tls-real` on the command line: bad input
// is one line and exit status 2 (DESIGN.md section 7); a recording of the tls scenario's
// guest writes a stream whose counts stderr reports (its 8 accesses per operation,
// docs/scenarios/tls.md "What runs").
#include <gtest/gtest.h>

#include <filesystem>

#include "run_x86lab.h"

namespace {

using x86lab::testing::Outcome;
using x86lab::testing::run_x86lab;

void expect_one_line_status_2(const Outcome& o, const std::string& fragment) {
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(x86lab::testing::line_count(o.output), 1) << o.output;
  EXPECT_NE(o.output.find(fragment), std::string::npos) << o.output;
}

const std::string kTlsGuest = std::string(X86LAB_ROM_DIR) + "/scenarios/tls/tls.elf";

TEST(RecordTlsCli, BadWindowsAndOptionsAreOneLineAndStatus2) {
  expect_one_line_status_2(run_x86lab("run --kernel " + kTlsGuest + " --record-tls-window 1..2"),
                           "--record-tls-window needs --record-tls");
  expect_one_line_status_2(run_x86lab("run --kernel " + kTlsGuest + " --record-tls /dev/null --record-tls-window 9..3"),
                           "--record-tls-window '9..3' must be BEGIN..END");
  expect_one_line_status_2(run_x86lab("compare tls-real --workload nope --no-files"),
                           "--workload 'nope' is not a workload of tls-real (ls, find, threads, boot)");
  expect_one_line_status_2(run_x86lab("compare tls-real tls --no-files"), "tls-real runs alone");
}

TEST(RecordTlsCli, RecordingTheTlsGuestReportsItsAccesses) {
  const std::string file = (std::filesystem::path(::testing::TempDir()) / "x86lab_record_tls.x86ltls").string();
  const Outcome o = run_x86lab("run --kernel " + kTlsGuest + " --append 'mode=native rewrites=0' --debugcon none " +
                               "--exit-on-halt --record-tls " + file);
  EXPECT_EQ(o.status, 33) << o.output;
  // 1024 operations of 8 accesses (4 below the thread pointer) and 64 stores after a yield.
  EXPECT_NE(o.output.find("8256 accesses (4160 at negative offsets), 1 threads, 1 switches"), std::string::npos)
      << o.output;
  EXPECT_EQ(std::filesystem::file_size(file), 24u + 8u * 8257u);
  std::filesystem::remove(file);
}

}  // namespace
