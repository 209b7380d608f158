// POP SS from a 16-bit stack that loads a 32-bit stack segment (Intel SDM Vol. 2, "POP":
// the pop and its increment use the stack-address size in force when the instruction
// starts, "the StackAddrSize of the current stack"; the new SS's B bit applies from the
// next instruction). test386's POST 09h checks the same.
#include <gtest/gtest.h>

#include "../segmentation/protected_fixture.h"

namespace x86lab {
namespace {

using testing::descriptor;
using testing::ProtectedModeFixture;

constexpr u16 kStack16 = 0x40;  // a 16-bit (B = 0) flat data segment with a 64 KiB limit

// Protected mode with SS = kStack16 loaded by `mov ax, 40h; mov ss, ax` at 1000h, then
// the bytes of `pop` at 1006h, with ESP = `esp` and the dword at SS:SP = kStack (B = 1).
void pop_ss_from_a_16_bit_stack(ProtectedModeFixture& f, std::initializer_list<u8> pop, u32 esp) {
  f.put(kStack16, descriptor(0, 0xFFFF, 0x92, 0x0));
  f.cpu.state.gdtr.limit = 0x47;
  f.code(0x1000, {0x66, 0xB8, kStack16, 0x00, 0x8E, 0xD0});  // mov ax, 40h; mov ss, ax
  f.code(0x1006, pop);
  f.poke32(esp & 0xFFFF, testing::kStack);
  f.steps(2);
  ASSERT_FALSE(f.cpu.stack32());
  f.cpu.state.gpr[ESP] = esp;
  f.cpu.step();
  ASSERT_EQ(f.cpu.state.segments[SS].selector, testing::kStack);
  ASSERT_TRUE(f.cpu.stack32());
}

TEST(PopSegment, O32PopSsFromA16BitStackWrapsSpAndKeepsTheUpperHalfOfEsp) {
  ProtectedModeFixture f;
  pop_ss_from_a_16_bit_stack(f, {0x17}, 0xABCDFFFCu);  // pop ss (32-bit operand in 32-bit code)
  EXPECT_EQ(f.cpu.state.gpr[ESP], 0xABCD0000u);
  EXPECT_EQ(f.cpu.state.eip, 0x1007u);
}

TEST(PopSegment, O16PopSsFromA16BitStackWrapsSpAndKeepsTheUpperHalfOfEsp) {
  ProtectedModeFixture f;
  pop_ss_from_a_16_bit_stack(f, {0x66, 0x17}, 0xABCDFFFEu);  // o16 pop ss
  EXPECT_EQ(f.cpu.state.gpr[ESP], 0xABCD0000u);
}

TEST(PopSegment, PopSsWithoutAWrapStepsOnlySp) {
  ProtectedModeFixture f;
  pop_ss_from_a_16_bit_stack(f, {0x66, 0x17}, 0x12347FF0u);
  EXPECT_EQ(f.cpu.state.gpr[ESP], 0x12347FF2u);
}

}  // namespace
}  // namespace x86lab
