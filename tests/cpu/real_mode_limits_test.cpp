// Real-mode segment-limit faults (Intel SDM Vol. 3, "Interrupt 12—Stack Fault Exception
// (#SS)" and "Interrupt 13—General Protection Exception (#GP)"): which vector a word at
// offset FFFFh raises. The 80286 data (sst286_test.cpp) has these cases; it differs.
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
// stack operation, LEAVE named among them, raises #SS (the 286 raises #GP: a known
// difference, docs/sst286.md, which also notes the LEAVE page's older #GP wording).
TEST_F(RealModeLimits, LeaveWithBpFFFFRaisesSs) {
  EXPECT_EQ(run_with_ffff(EBP, {0xC9}), 12u);  // LEAVE
  EXPECT_EQ(cpu.state.gpr[ESP], 0x8000u - 6) << "SP is restored before the frame is pushed";
  EXPECT_EQ(bus.peek(0x8000 - 6), 0x00) << "the pushed IP is LEAVE's own";
  EXPECT_EQ(bus.peek(0x8000 - 5), 0x10);
}

// SDM Vol. 3, "Interrupt 12—Stack Fault Exception (#SS)": POP beyond the stack limit
// (the 286 raises #GP here: a known difference, docs/sst286.md).
TEST_F(RealModeLimits, PopWithSpFFFFRaisesSs) {
  EXPECT_EQ(run_with_ffff(ESP, {0x07}), 12u);  // POP ES
}

// SDM "LODS": #GP for an operand outside the DS limit, and a fault leaves SI as it was
// (the 286 advances SI first: a known difference, docs/sst286.md).
TEST_F(RealModeLimits, LodswAtSiFFFFRaisesGpWithSiUnchanged) {
  EXPECT_EQ(run_with_ffff(ESI, {0xAD}), 13u);  // LODSW
  EXPECT_EQ(cpu.state.gpr[ESI], 0xFFFFu);
}

}  // namespace
}  // namespace x86lab
