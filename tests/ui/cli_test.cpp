// The command line's bad-input contract: one line naming the file or option, exit
// status 2 (README "Exit status"); and the demo ROM's run.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "run_x86lab.h"

namespace x86lab::testing {
namespace {

Outcome run(const std::string& arguments) { return run_x86lab(arguments); }

// The rows of every file's table of rejected command lines.
TEST_P(RejectedCommandLine, IsOneLineAndStatus2) { expect_rejected(GetParam().arguments, GetParam().message); }

// x86lab gui serves gdb (docs/gdb.md "With the inspector"); its gdb options are checked
// as x86lab run's are.
TEST(Cli, GuiRejectsRunWithWaitGdbAndABadGdbAddress) {
  const std::string demo = std::string(X86LAB_ROM_DIR) + "/demo.bin";
  const std::string script = ::testing::TempDir() + "empty_gui.script";
  std::ofstream{script};
  expect_rejected("gui --bios " + demo + " --script " + script + " --run --wait-gdb",
                  "--run and --wait-gdb cannot be used together");
  expect_rejected("gui --bios " + demo + " --script " + script + " --gdb 127.0.0.1:99999",
                  "--gdb needs [HOST:]PORT with a port from 0 to 65535, not '127.0.0.1:99999'");
}

const Rejection kRejections[] = {
    {"MissingRom", "run --bios missing.bin", "cannot open ROM 'missing.bin': No such file or directory"},
    {"NonNumericMemory", "run --memory lots --bios x.bin", "--memory needs a whole number, not 'lots'"},
    {"UnknownCommand", "fly", "unknown command 'fly' (try x86lab help)"},
    {"ProgressAndNoProgress", "run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --progress --no-progress",
     "--progress and --no-progress exclude each other"},
    {"ProgressWithGdb", "run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --progress --wait-gdb",
     "--progress does not go with --gdb or --wait-gdb (gdb decides when the machine runs)"},
    {"HistoryMibZero", "run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --wait-gdb --history-mib 0",
     "--history-mib must be a whole number of MiB from 1 to 1048576, not '0'"},
    {"HistoryMibNegative", "run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --history-mib=-5",
     "--history-mib must be a whole number of MiB from 1 to 1048576, not '-5'"},
    {"HistoryMibGarbage", "run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --gdb 0 --history-mib 12abc",
     "--history-mib must be a whole number of MiB from 1 to 1048576, not '12abc'"},
    {"StrayArgumentToRun", "run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin extra",
     "run takes only options, not 'extra' (x86lab run --help lists them)"},
    {"StrayArgumentToGui", "gui --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin extra",
     "gui takes only options, not 'extra' (x86lab gui --help lists them)"},
    {"InstructionLimitBeyond64Bits", "run --bios x.bin --max-instructions 18446744073709551616",
     "--max-instructions must be between 0 and 18446744073709551615, not 18446744073709551616"},
    {"MemoryBeyond32Bits", "run --bios x.bin --memory 5000000000",
     "--memory must be between 1 and 3584 MiB, not 5000000000"},
    {"MemoryBeyond64Bits", "run --bios x.bin --memory 99999999999999999999999",
     "--memory must be between 1 and 3584 MiB, not 99999999999999999999999"},
};
INSTANTIATE_TEST_SUITE_P(Cli, RejectedCommandLine, ::testing::ValuesIn(kRejections), rejection_name);

// --progress with stderr in a file or pipe (issue 27): no line rewritten in place ("\r"
// and the erase sequence), one line with the run's figures at its end instead. The
// demo ROM runs 2314 instructions (`--stats`).
TEST(Cli, ProgressIntoAFileIsOneLineAtTheEnd) {
  const Outcome o = run_x86lab("run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --progress --debugcon none");
  EXPECT_EQ(o.output.find('\r'), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find('\033'), std::string::npos) << o.output;
  const std::size_t line = o.output.find("x86lab: 0.000 G instructions, ");
  ASSERT_NE(line, std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("G instructions", line + 30), std::string::npos) << "one line: " << o.output;
  EXPECT_NE(o.output.find(" MIPS, guest time ", line), std::string::npos) << o.output;
  EXPECT_EQ(o.output.back(), '\n');
}

TEST(Cli, RomOfTheWrongSizeIsRejected) {
  const std::string path = ::testing::TempDir() + "odd.rom";
  std::ofstream(path, std::ios::binary) << std::string(1000, '\x90');
  const Outcome o = expect_rejected_in_one_line("run --bios " + path);
  EXPECT_NE(o.output.find("multiple of 64 KiB"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(path), std::string::npos);
}

TEST(Cli, RomAbove16MiBIsRejected) {
  const std::string path = ::testing::TempDir() + "huge.rom";
  {
    std::ofstream file(path, std::ios::binary);
    file.seekp(17 * 1024 * 1024 - 1);
    file.put('\0');
  }
  const Outcome o = expect_rejected_in_one_line("run --bios " + path);
  EXPECT_NE(o.output.find("at most 16 MiB"), std::string::npos) << o.output;
}

TEST(Cli, MemoryOutOfRangeIsRejected) {
  expect_rejected_in_one_line(std::string("run --memory 0 --bios ") + X86LAB_ROM_DIR + "/demo.bin");
}

TEST(Cli, UnknownOptionIsRejected) {
  const Outcome o = expect_rejected_in_one_line("run --frobnicate");
  EXPECT_NE(o.output.find("frobnicate"), std::string::npos);
}

TEST(Cli, BadDebugconIsRejected) {
  expect_rejected_in_one_line(std::string("run --debugcon tty --bios ") + X86LAB_ROM_DIR + "/demo.bin");
}

TEST(Cli, UnknownProfileIsRejected) {
  expect_rejected_in_one_line(std::string("run --profile z80 --bios ") + X86LAB_ROM_DIR + "/demo.bin");
}

TEST(Cli, VersionPrintsTheVersion) {
  const Outcome o = run("--version");
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.output.rfind("x86lab ", 0), 0u);
}

TEST(Cli, DemoRomPrintsItsTextAndExitsZero) {
  const Outcome o = run(std::string("run --bios ") + X86LAB_ROM_DIR + "/demo.bin --debugcon stdio");
  EXPECT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("GDT[2] access byte before MOV DS,10h: 92"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("GDT[2] access byte after  MOV DS,10h: 93"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("[DS:500h] still reads 11"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("[DS:500h] reads 22"), std::string::npos) << o.output;
}

TEST(Cli, InstructionLimitEndsWithStatus1) {
  const Outcome o = run(std::string("run --bios ") + X86LAB_ROM_DIR + "/demo.bin --debugcon none --max-instructions 10");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.output.find("instruction limit reached"), std::string::npos) << o.output;
}

// A ROM of 64 KiB whose reset vector runs `mov al, V; out 0F4h, al; cli; hlt`.
std::string exit_port_rom(unsigned char value) {
  const std::string path = ::testing::TempDir() + "exit_port_" + std::to_string(value) + ".rom";
  std::string rom(65536, '\0');
  const char code[] = {'\xB0', static_cast<char>(value), '\xE6', '\xF4', '\xFA', '\xF4'};
  rom.replace(0xFFF0, sizeof code, code, sizeof code);
  std::ofstream(path, std::ios::binary) << rom;
  return path;
}

// Statuses 1 and 3 from the exit port are the guest's, not x86lab's: one stderr line says
// so; other values stay silent (README "Exit status").
TEST(Cli, ExitPortStatusesThatCollideAreNamed) {
  Outcome o = run("run --debugcon none --bios " + exit_port_rom(1));
  EXPECT_EQ(o.status, 3);
  EXPECT_EQ(o.output, "x86lab: the guest wrote 01h to the exit port F4h: exit status 3\n");
  o = run("run --debugcon none --bios " + exit_port_rom(0x80));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.output, "x86lab: the guest wrote 80h to the exit port F4h: exit status 1\n");
  o = run("run --debugcon none --bios " + exit_port_rom(0x10));
  EXPECT_EQ(o.status, 33);
  EXPECT_EQ(o.output, "");
}

}  // namespace
}  // namespace x86lab::testing
