// INT1 (ICEBP), RDPMC with the P6 performance counters, and WRMSR to the time-stamp
// counter. Sources: Intel SDM Vol. 2 "INT n/INTO/INT3/INT1", "RDPMC", "WRMSR"; Vol. 3
// "Performance Monitoring (P6 Family Processor)", "Time-Stamp Counter".
#include <gtest/gtest.h>

#include "../segmentation/protected_fixture.h"

namespace x86lab {
namespace {

using testing::CpuFixture;
using testing::descriptor;
using testing::gate;
using testing::kCode;
using testing::ProtectedModeFixture;

using testing::kUserCode;
using testing::kUserData;
using testing::Ring3Fixture;

TEST(Int1, IgnoresTheGateDplThatStopsIntN) {
  Ring3Fixture f;
  f.put_idt(1, gate(kCode, 0x1400, 0x8E));  // DPL 0
  f.code(0x1100, {0xF1, 0x90});
  f.enter_ring3();
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1400u);
  EXPECT_EQ(f.cpu.state.cpl, 0);
  EXPECT_EQ(f.peek32(0x9000 - 20), 0x1101u);  // a trap: the next instruction
  EXPECT_EQ(f.peek32(0x9000 - 16), kUserCode);
  EXPECT_EQ(f.counters.exceptions_by_vector[1], 1u);
  EXPECT_EQ(f.cpu.state.dr[6] & 0xF00Fu, 0u);  // DR6 untouched
}

TEST(Int1, IntNOneThroughTheSameGateRaisesGp) {
  Ring3Fixture f;
  f.put_idt(1, gate(kCode, 0x1400, 0x8E));
  f.code(0x1100, {0xCD, 0x01});
  f.enter_ring3();
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x1500u);
  EXPECT_EQ(f.peek32(0x9000 - 24), 1u * 8 + 2);  // #GP(IDT entry 1), no EXT
  EXPECT_EQ(f.peek32(0x9000 - 20), 0x1100u);     // a fault: the INT itself
}

TEST(Int1, ErrorCodesOfItsDeliveryHaveTheExtBit) {
  for (const bool icebp : {true, false}) {
    ProtectedModeFixture f;
    f.put_idt(1, gate(kCode, 0x1400, 0x0E));  // not present
    f.put_idt(11, gate(kCode, 0x1500, 0x8E));
    if (icebp) f.code(0x1000, {0xF1});
    else f.code(0x1000, {0xCD, 0x01});
    f.cpu.step();
    EXPECT_EQ(f.cpu.state.eip, 0x1500u);
    EXPECT_EQ(f.peek32(0x8000 - 16), 1u * 8 + 2 + (icebp ? 1 : 0)) << (icebp ? "INT1" : "INT 1");
  }
}

TEST(Int1, RealModeUsesIvtEntryOne) {
  CpuFixture f;
  f.real_mode_at();
  f.code(4, {0x00, 0x20, 0x00, 0x00});  // IVT[1] = 0000:2000
  f.code(0x1000, {0xF1});
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0x2000u);
  EXPECT_EQ(f.bus.peek(0x8000 - 6) | f.bus.peek(0x8000 - 5) << 8, 0x1001);  // IP of the next instruction
}

// mov ecx, imm32 / mov eax, imm32 / xor edx, edx / wrmsr / nop at 1000h in real mode
// (66h prefixes): 18 bytes, 5 instructions.
void put_wrmsr(CpuFixture& f, u32 msr_index, u32 value) {
  const u8 code[] = {0x66, 0xB9, u8(msr_index), u8(msr_index >> 8), u8(msr_index >> 16), u8(msr_index >> 24),
                     0x66, 0xB8, u8(value), u8(value >> 8), u8(value >> 16), u8(value >> 24),
                     0x66, 0x31, 0xD2, 0x0F, 0x30, 0x90};
  for (unsigned k = 0; k < sizeof code; ++k) f.bus.poke(0x1000 + k, code[k]);
}

TEST(Rdpmc, InstructionsRetiredCountsEachRetiredInstruction) {
  CpuFixture f;
  f.real_mode_at();
  put_wrmsr(f, 0x186, 0x4300C0);  // PerfEvtSel0: INST_RETIRED, USR, OS, EN
  // xor ecx,ecx; rdpmc; mov esi,eax; nop x5; rdpmc
  f.code(0x1012, {0x66, 0x31, 0xC9, 0x0F, 0x33, 0x66, 0x89, 0xC6, 0x90, 0x90, 0x90, 0x90, 0x90, 0x0F, 0x33});
  f.steps(5 + 1 + 1 + 1 + 5 + 1);
  // Between the two reads retire: the first RDPMC, the MOV and five NOPs.
  EXPECT_EQ(f.cpu.state.gpr[EAX] - f.cpu.state.gpr[ESI], 7u);
  EXPECT_EQ(f.cpu.state.gpr[EDX], 0u);
}

TEST(Rdpmc, CounterWritesSignExtendBit31IntoForty) {
  CpuFixture f;
  f.real_mode_at();
  put_wrmsr(f, 0xC1, 0x80000000u);
  f.code(0x1012, {0x0F, 0x32});  // rdmsr (ECX still C1h)
  f.steps(5 + 1);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0x80000000u);
  EXPECT_EQ(f.cpu.state.gpr[EDX], 0xFFu);
}

TEST(Rdpmc, RaisesGpForAThirdCounterAndAtCpl3WithoutPce) {
  {
    ProtectedModeFixture f;
    f.put_idt(13, gate(kCode, 0x1500, 0x8E));
    f.cpu.state.gpr[ECX] = 2;
    f.code(0x1000, {0x0F, 0x33});
    f.cpu.step();
    EXPECT_EQ(f.cpu.state.eip, 0x1500u);
    EXPECT_EQ(f.peek32(0x8000 - 16), 0u);
  }
  for (const bool pce : {false, true}) {
    Ring3Fixture f;
    if (pce) f.cpu.state.cr4 |= cr4::PCE;
    f.code(0x1100, {0x31, 0xC9, 0x0F, 0x33});  // xor ecx,ecx; rdpmc
    f.enter_ring3();
    f.steps(2);
    EXPECT_EQ(f.cpu.state.eip, pce ? 0x1104u : 0x1500u) << "CR4.PCE = " << pce;
  }
}

TEST(Tsc, WrmsrSetsTheTimeStampCounterWithoutMovingModeledTime) {
  CpuFixture f;
  f.real_mode_at();
  f.code(0x1000, {0x66, 0xB9, 0x10, 0, 0, 0, 0x66, 0x31, 0xC0, 0x66, 0xBA, 0x01, 0, 0, 0,  // ecx=10h eax=0 edx=1
                  0x0F, 0x30, 0x0F, 0x31});                                                // wrmsr; rdtsc
  f.steps(5);
  EXPECT_LT(f.cpu.clock().cycles(), 1000u);  // device time goes on from where it was
  EXPECT_EQ(f.cpu.state.gpr[EDX], 1u);
  EXPECT_LT(f.cpu.state.gpr[EAX], f.cpu.clock().cycles());  // 1:00000000h plus the cycles since the WRMSR
}

}  // namespace
}  // namespace x86lab
