// The host CPU as the reference for x86lab's integer instructions: random and edge
// cases of every arithmetic, logic, shift/rotate, multiply/divide, bit, CMOVcc/SETcc,
// exchange and string form, run natively and in x86lab (host_differential.h).
// X86LAB_DIFF_CASES sets the case count (bench/host_differential runs millions).
// Below it, the bugs the harness found, each pinned with the host CPU's values.
#include "host_differential.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "cpu/undefined_flags.h"

namespace x86lab::testing {
namespace {

constexpr u64 kCiCases = 250'000;
constexpr u64 kSeed = 0x861ABD1FF;

TEST(HostDifferential, IntegerInstructionsMatchTheHostCpu) {
  if (!HostCpu::supported()) GTEST_SKIP() << "the host differential tests need an x86-64 Linux host";
  const DifferentialReport report = run_host_differential(differential_case_count(kCiCases), kSeed);
  std::printf("host differential: %llu cases, %llu mismatches, %llu #DE agreed, %zu mnemonics\n",
              static_cast<unsigned long long>(report.cases), static_cast<unsigned long long>(report.mismatches),
              static_cast<unsigned long long>(report.divide_errors), report.by_mnemonic.size());
  EXPECT_GE(report.cases, std::min<u64>(kCiCases, differential_case_count(kCiCases)));
  EXPECT_EQ(report.mismatches, 0u) << report.details;
}

u32 status(const Outcome& o) { return o.after.eflags & flag::kStatus; }

// XADD: SRC <- DEST, then DEST <- SUM (SDM "XADD"): with one register as both operands
// the sum is what remains. x86lab used to write the old value last.
TEST(HostDifferential, XaddWithOneRegisterLeavesTheSum) {
  SimulatedCpu cpu;
  RegisterState s;
  s.gpr[ECX] = 0xBECDF245;
  const u8 xadd_cl_cl[] = {0x0F, 0xC0, 0xC9};
  Outcome o = cpu.run(xadd_cl_cl, s);
  EXPECT_EQ(o.after.gpr[ECX], 0xBECDF28Au);  // host CPU: 45h + 45h
  EXPECT_EQ(status(o), flag::OF | flag::SF);

  s.gpr[ECX] = 0x40000001;
  const u8 xadd_ecx_ecx[] = {0x0F, 0xC1, 0xC9};
  o = cpu.run(xadd_ecx_ecx, s);
  EXPECT_EQ(o.after.gpr[ECX], 0x80000002u);
  EXPECT_EQ(status(o), flag::OF | flag::SF);
}

TEST(UndefinedFlags, ShiftByZeroLeavesEveryFlagDefined) {
  EXPECT_EQ(undefined_shift_flags("SAR", 0, 16), 0u);
  EXPECT_EQ(undefined_shift_flags("RCL", 0, 8), 0u);
}

TEST(UndefinedFlags, ShiftByOneDefinesOverflow) {
  EXPECT_EQ(undefined_shift_flags("SHL", 1, 8), flag::AF);
  EXPECT_EQ(undefined_shift_flags("ROR", 1, 32), 0u);
  EXPECT_EQ(undefined_shift_flags("ROR", 2, 32), flag::OF);
}

TEST(UndefinedFlags, ShiftByTheOperandSizeLeavesCarryUndefined) {
  EXPECT_EQ(undefined_shift_flags("SHR", 8, 8), flag::OF | flag::AF | flag::CF);
  EXPECT_EQ(undefined_shift_flags("SHL", 16, 32), flag::OF | flag::AF);
  EXPECT_EQ(undefined_shift_flags("SAR", 8, 8), flag::OF | flag::AF);  // SAR's CF stays defined
}

TEST(UndefinedFlags, DoubleShiftBeyondTheOperandLeavesAllStatusFlagsUndefined) {
  EXPECT_EQ(undefined_shift_flags("SHLD", 17, 16), flag::kStatus);
  EXPECT_EQ(undefined_shift_flags("SHRD", 16, 16), flag::OF | flag::AF);
}

// x86lab's choice for the undefined CF of SHL/SHR by the operand size or more: the
// last bit shifted out, 0 beyond it; the host CPU (Intel) gives the same.
TEST(UndefinedFlags, ByteShiftsPastTheOperandCarryTheLastBitOut) {
  SimulatedCpu cpu;
  RegisterState s;
  s.gpr[EAX] = 0x81;
  const u8 shl_al_8[] = {0xC0, 0xE0, 0x08}, shl_al_9[] = {0xC0, 0xE0, 0x09}, shr_al_8[] = {0xC0, 0xE8, 0x08};
  EXPECT_EQ(status(cpu.run(shl_al_8, s)) & flag::CF, flag::CF);  // bit 0 shifted out last
  EXPECT_EQ(status(cpu.run(shl_al_9, s)) & flag::CF, 0u);
  EXPECT_EQ(status(cpu.run(shr_al_8, s)) & flag::CF, flag::CF);  // bit 7 shifted out last
}

}  // namespace
}  // namespace x86lab::testing
