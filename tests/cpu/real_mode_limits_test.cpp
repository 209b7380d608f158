// Real-mode segment-limit faults (Intel SDM Vol. 3, "Interrupt 12—Stack Fault Exception
// (#SS)" and "Interrupt 13—General Protection Exception (#GP)"): which vector a word at
// offset FFFFh raises. The 80286 data (sst286_test.cpp) has these cases; it differs, and the
// runner's rules 6 and 7 (docs/sst286.md) turn it into what these tests state.
#include <gtest/gtest.h>

#include "cpu_fixture.h"

namespace x86lab {
namespace {

struct RealModeLimits : ::testing::Test, testing::CpuFixture {
  // Vector `v` of the IVT points at a HLT at 0000:0F00 + v.
  void handlers() {
    for (u32 v : {12u, 13u}) {
      const u32 ip = 0xF00 + v;
      code(v * 4, {static_cast<u8>(ip), static_cast<u8>(ip >> 8), 0, 0});
      code(ip, {0xF4});
    }
  }
  // The vector taken: the handler's HLT is at 0F00h + vector, and EIP is past it.
  u32 vector_taken() const { return cpu.state.eip - 1 - 0xF00; }
  // Real mode with the two handlers, `reg` = FFFFh, and the one instruction `bytes`
  // at 1000h; runs it and the handler's HLT, and returns the vector taken.
  u32 run_with_ffff(unsigned reg, std::initializer_list<u8> bytes) {
    real_mode_at();
    handlers();
    cpu.state.gpr[reg] = 0xFFFF;
    code(0x1000, bytes);
    steps(2);
    return vector_taken();
  }
};

// SDM Vol. 3, "Interrupt 12—Stack Fault Exception (#SS)": a limit violation of a
// stack operation, LEAVE named among them, raises #SS (the 286 raises #GP: x86lab rule 6,
// docs/sst286.md, which also notes the LEAVE page's older #GP wording).
TEST_F(RealModeLimits, LeaveWithBpFFFFRaisesSs) {
  EXPECT_EQ(run_with_ffff(EBP, {0xC9}), 12u);  // LEAVE
  EXPECT_EQ(cpu.state.gpr[ESP], 0x8000u - 6) << "SP is restored before the frame is pushed";
  EXPECT_EQ(bus.peek(0x8000 - 6), 0x00) << "the pushed IP is LEAVE's own";
  EXPECT_EQ(bus.peek(0x8000 - 5), 0x10);
}

// SDM Vol. 3, "Interrupt 12—Stack Fault Exception (#SS)": POP beyond the stack limit
// (the 286 raises #GP here: x86lab rule 6, docs/sst286.md).
TEST_F(RealModeLimits, PopWithSpFFFFRaisesSs) {
  EXPECT_EQ(run_with_ffff(ESP, {0x07}), 12u);  // POP ES
}

// SDM "LODS": #GP for an operand outside the DS limit, and a fault leaves SI as it was
// (the 286 advances SI first: x86lab rule 7, docs/sst286.md).
TEST_F(RealModeLimits, LodswAtSiFFFFRaisesGpWithSiUnchanged) {
  EXPECT_EQ(run_with_ffff(ESI, {0xAD}), 13u);  // LODSW
  EXPECT_EQ(cpu.state.gpr[ESI], 0xFFFFu);
}

// SDM Vol. 2, "REP/REPE/REPZ/REPNE/REPNZ" and Vol. 3, "Exception Classifications": a
// fault in a repeated string instruction keeps the registers of the elements done, so
// the instruction can resume; at the first element, DI and CX are unchanged and nothing
// is stored (the 286 counts CX down and advances DI first: x86lab rule 7, docs/sst286.md).
TEST_F(RealModeLimits, RepStoswFaultKeepsDiAndCxOfTheElementsDone) {
  // REP STOSW with AX = 1234h and CX = 5 from `di`; returns the vector taken.
  auto rep_stosw = [&](u32 di) {
    real_mode_at();
    handlers();
    cpu.state.gpr[EAX] = 0x1234;
    cpu.state.gpr[ECX] = 5;
    cpu.state.gpr[EDI] = di;
    code(0x1000, {0xF3, 0xAB});
    for (unsigned i = 0; i < 16 && !cpu.state.halted; ++i) cpu.step();
    EXPECT_TRUE(cpu.state.halted);
    return vector_taken();
  };
  EXPECT_EQ(rep_stosw(0xFFFF), 13u);  // the first element faults
  EXPECT_EQ(cpu.state.gpr[EDI], 0xFFFFu);
  EXPECT_EQ(cpu.state.gpr[ECX], 5u);
  EXPECT_EQ(bus.peek(0xFFFF), 0x00) << "nothing stored";

  cpu.state.halted = false;
  EXPECT_EQ(rep_stosw(0xFFFB), 13u);  // elements at FFFBh and FFFDh fit; the third faults
  EXPECT_EQ(cpu.state.gpr[EDI], 0xFFFFu) << "DI at the faulting element";
  EXPECT_EQ(cpu.state.gpr[ECX], 3u) << "CX less the two elements stored";
  EXPECT_EQ(bus.peek(0xFFFD), 0x34);
  EXPECT_EQ(bus.peek(0xFFFE), 0x12);
  EXPECT_EQ(bus.peek(0xFFFF), 0x00) << "the faulting element stores nothing";
}

}  // namespace
}  // namespace x86lab
