// Regression tests for what the CPU fuzz target (tests/fuzz/cpu_fuzzer.cpp) found, one
// test per finding, each checking the value the SDM gives.
#include "tests/cpu/cpu_fixture.h"

namespace x86lab {
namespace {

using testing::CpuFixture;

// SDM Vol. 1, "EFLAGS Register": bit 1 is reserved and always 1, so POPF of 0 followed
// by PUSHF pushes 0002h in real mode.
TEST(FuzzFindings, PopfOfZeroKeepsEflagsBitOneSet) {
  CpuFixture f;
  f.real_mode_at();
  f.code(0x1000, {0x6A, 0x00, 0x9D, 0x9C, 0x58});  // push 0; popf; pushf; pop ax
  f.steps(4);
  EXPECT_EQ(f.cpu.reg<u16>(EAX), 0x0002);
  EXPECT_EQ(f.cpu.state.eflags, 0x00000002u);
}

// A flat 32-bit protected-mode machine at CPL 3 whose #AC gate leads to a CPL-3
// handler: GDT 08h ring-0 code, 10h ring-0 data, 1Bh ring-3 code, 23h ring-3 data.
void enter_ring3_with_alignment_checks(CpuFixture& f, u32 esp) {
  auto put64 = [&](u32 address, u64 value) {
    for (unsigned i = 0; i < 8; ++i) f.bus.poke(address + i, static_cast<u8>(value >> (8 * i)));
  };
  put64(0x808, 0x00CF9B000000FFFFull);
  put64(0x810, 0x00CF93000000FFFFull);
  put64(0x818, 0x00CFFB000000FFFFull);
  put64(0x820, 0x00CFF3000000FFFFull);
  put64(0x1000 + 17 * 8, 0x0000EF00001B3000ull);  // #AC: 32-bit trap gate, DPL 3, 1Bh:3000h
  CpuState& s = f.cpu.state;
  s.gdtr = {0x800, 0x27};
  s.idtr = {0x1000, 0x7FF};
  f.cpu.write_cr0(s.cr0 | cr0::PE | cr0::AM);
  SegmentationContext context = f.cpu.segmentation_context();
  DescriptorSlot code = read_descriptor(context, Selector{0x1B});
  load_code_segment(context, s.segments[CS], code, 0x1B, 3);
  s.cpl = 3;
  context.cpl = 3;
  load_stack_segment(context, s.segments[SS], 0x23);
  for (u8 seg : {DS, ES, FS, GS}) f.cpu.load_segment(seg, 0x23);
  f.cpu.write_eflags(flag::AC, flag::kImplemented);
  s.gpr[ESP] = esp;
  s.eip = 0x2000;
}

// SDM "Interrupt 17 - Alignment Check Exception (#AC)" and Table 6-4: #AC is benign, so
// an #AC raised by the pushes of its own delivery is handled serially, again and again.
// Each step makes one attempt and returns; the instruction never retires.
TEST(FuzzFindings, AlignmentCheckWhileDeliveringAlignmentCheckReturnsFromEachStep) {
  CpuFixture f;
  enter_ring3_with_alignment_checks(f, 0x7001);
  f.code(0x2000, {0x8B, 0x05, 0x01, 0x30, 0x00, 0x00});  // mov eax, [3001h]: unaligned at CPL 3
  f.steps(2);
  EXPECT_EQ(f.cpu.state.eip, 0x2000u);
  EXPECT_EQ(f.cpu.state.gpr[ESP], 0x7001u);
  EXPECT_EQ(f.cpu.state.cpl, 3);
  EXPECT_FALSE(f.cpu.state.shutdown);
  EXPECT_GE(f.counters.exceptions_by_vector[17], 2u);
}

// The same machine with an aligned stack delivers the #AC to the handler, with error
// code 0 pushed last (SDM "Interrupt 17": error code 0).
TEST(FuzzFindings, AlignmentCheckWithAnAlignedStackReachesTheHandler) {
  CpuFixture f;
  enter_ring3_with_alignment_checks(f, 0x7000);
  f.code(0x2000, {0x8B, 0x05, 0x01, 0x30, 0x00, 0x00});
  f.steps(1);
  EXPECT_EQ(f.cpu.state.eip, 0x3000u);
  EXPECT_EQ(f.cpu.state.gpr[ESP], 0x7000u - 16);
  EXPECT_EQ(f.bus.peek(0x7000 - 16), 0);  // error code
  EXPECT_EQ(f.bus.peek(0x7000 - 12), 0x00);  // return EIP 2000h
  EXPECT_EQ(f.bus.peek(0x7000 - 11), 0x20);
}

}  // namespace
}  // namespace x86lab
