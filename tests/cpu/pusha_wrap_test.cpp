// PUSHA/PUSHAD on a 16-bit stack whose pushes would straddle the wrap of SP from 0 to
// FFFEh (Intel SDM Vol. 2, "PUSHA/PUSHAD—Push All General-Purpose Registers", its
// real-address, virtual-8086 and protected-mode exception lists): the fault comes before
// any register is written.
#include "../segmentation/protected_fixture.h"

namespace x86lab {
namespace {

using testing::descriptor;
using testing::gate;
using testing::kTssBSelector;
using testing::ProtectedModeFixture;

constexpr u32 kStackBase = 0x20000;
constexpr u8 kPoison = 0xA5;

// Fills the 64 KiB stack segment at kStackBase with kPoison and gives the eight
// registers distinct values.
void prepare(testing::CpuFixture& f, u32 sp) {
  for (u32 i = 0; i < 0x10000; ++i) f.bus.poke(kStackBase + i, kPoison);
  for (unsigned r = 0; r < 8; ++r) f.cpu.state.gpr[r] = 0x11111111u * (r + 1);
  f.cpu.state.gpr[ESP] = sp;
}
// Whether any of the stack bytes from `from` to `to` (offsets) is no longer kPoison.
bool written(const testing::CpuFixture& f, u32 from, u32 to) {
  for (u32 i = from; i <= to; ++i)
    if (f.bus.peek(kStackBase + i) != kPoison) return true;
  return false;
}

// Real mode, SS = 2000h, SP = `sp`: runs PUSHA (or PUSHAD with `o32`) and returns the
// vector of the fault it raised (its delivery pushes FLAGS, CS, IP below SP).
u8 real_mode_pusha(testing::CpuFixture& f, u32 sp, bool o32 = false) {
  f.real_mode_at();
  f.cpu.state.segments[SS].selector = 0x2000;
  f.cpu.state.segments[SS].cache.set_real_mode(kStackBase);
  prepare(f, sp);
  if (o32) f.code(0x1000, {0x66, 0x60});
  else f.code(0x1000, {0x60});
  f.cpu.step();
  EXPECT_EQ(f.cpu.fault_chain().size(), 1u);
  return f.cpu.fault_chain().empty() ? 0 : f.cpu.fault_chain()[0].vector;
}

// "#GP If the ESP or SP register contains 7, 9, 11, 13, or 15." With SP = 15 the
// delivery's frame takes offsets 9-14; the pushes of PUSHA would have gone to 1-14.
TEST(Pusha, InRealModeWithSp15RaisesGpBeforeWritingAnyRegister) {
  testing::CpuFixture f;
  EXPECT_EQ(real_mode_pusha(f, 15), 13);
  EXPECT_EQ(f.cpu.state.gpr[ESP], 15u - 6) << "SP as at the start, less the delivery's frame";
  EXPECT_FALSE(written(f, 0, 8));
  EXPECT_FALSE(written(f, 0xFFF0, 0xFFFF));
}

TEST(Pusha, InRealModeWithSp7Through15OddRaisesGp) {
  for (u32 sp : {7u, 9u, 11u, 13u}) {
    testing::CpuFixture f;
    EXPECT_EQ(real_mode_pusha(f, sp), 13) << "SP = " << sp;
    EXPECT_FALSE(written(f, 0xFFF0, 0xFFFF)) << "SP = " << sp;
  }
}

// PUSHAD from SP = 9 would put a doubleword at FFFDh; the same #GP.
TEST(Pusha, PushadInRealModeWithSp9RaisesGp) {
  testing::CpuFixture f;
  EXPECT_EQ(real_mode_pusha(f, 9, true), 13);
  EXPECT_FALSE(written(f, 0xFFE0, 0xFFFF));
}

// An even SP wraps without straddling: the eight words go to 6, 4, 2, 0, FFFEh ... FFF8h.
TEST(Pusha, InRealModeWithSp8WrapsAndPushesAllEight) {
  testing::CpuFixture f;
  f.real_mode_at();
  f.cpu.state.segments[SS].cache.set_real_mode(kStackBase);
  prepare(f, 8);
  f.code(0x1000, {0x60});
  f.cpu.step();
  EXPECT_EQ(f.cpu.fault_chain().size(), 0u);
  EXPECT_EQ(f.cpu.state.gpr[ESP], 0xFFF8u);
  EXPECT_EQ(f.bus.peek(kStackBase + 6), 0x11);       // AX
  EXPECT_EQ(f.bus.peek(kStackBase + 0xFFF8), 0x88);  // DI
}

// Protected mode, a 16-bit expand-up stack segment of limit FFFFh: "#SS(0) If the
// starting or ending stack address is outside the stack segment limit". The #SS goes
// through a task gate (task B has its own stack), so nothing is pushed on this stack.
TEST(Pusha, InProtectedModeOnA16BitStackWithSp15RaisesSsBeforeWritingAnyRegister) {
  ProtectedModeFixture f;
  f.put(testing::kStack, descriptor(kStackBase, 0xFFFF, 0x92, 0x0));
  SegmentationContext context = f.cpu.segmentation_context();
  load_stack_segment(context, f.cpu.state.segments[SS], testing::kStack);
  f.put_idt(12, gate(kTssBSelector, 0, 0x85));
  prepare(f, 15);
  f.code(0x1000, {0x66, 0x60});  // o16 pusha
  f.cpu.step();
  ASSERT_EQ(f.cpu.fault_chain().size(), 1u);
  EXPECT_EQ(f.cpu.fault_chain()[0].vector, 12);
  EXPECT_EQ(f.cpu.fault_chain()[0].error_code, 0u);
  EXPECT_EQ(f.cpu.state.eip, 0x1300u) << "in task B";
  EXPECT_FALSE(written(f, 0, 0xFFFF));
}

}  // namespace
}  // namespace x86lab
