// DAA and DAS against the SDM's "Operation" sections and worked examples (Intel SDM
// Vol. 2, "DAA—Decimal Adjust AL after Addition", "DAS—Decimal Adjust AL after
// Subtraction"). The host differential cannot run them (invalid in 64-bit mode).
#include <utility>

#include "cpu_fixture.h"

namespace x86lab {
namespace {

constexpr u32 kOszapc = flag::OF | flag::SF | flag::ZF | flag::AF | flag::PF | flag::CF;

// Runs DAA (27h) or DAS (2Fh) in real mode from AL = `al` and the status flags
// `flags`; returns AL and the status flags after it.
std::pair<u8, u32> adjust(u8 opcode, u8 al, u32 flags) {
  testing::CpuFixture f;
  f.real_mode_at();
  f.cpu.state.gpr[EAX] = al;
  f.cpu.state.eflags |= flags;
  f.code(0x1000, {opcode});
  f.cpu.step();
  return {f.cpu.reg<u8>(EAX), f.cpu.state.eflags & kOszapc};
}

// "CF := old_CF or (Borrow from AL := AL − 6)": 03h - 6 borrows; old AL is not over 99h
// and old CF is 0, so only the borrow sets CF.
TEST(DecimalAdjust, DasSetsCfFromTheBorrowOfTheLowDigitAdjust) {
  const auto [al, flags] = adjust(0x2F, 0x03, flag::AF);
  EXPECT_EQ(al, 0xFD);
  EXPECT_EQ(flags, flag::CF | flag::AF | flag::SF);  // FDh: 7 bits set, PF = 0
}

// The SDM's DAS example: SUB 35h - 47h leaves AL = EEh, OSZAPC = 010111; DAS gives
// AL = 88h, OSZAPC = X10111 (x86lab clears OF: docs/undefined-flags.md).
TEST(DecimalAdjust, DasGivesTheSdmExample) {
  const auto [al, flags] = adjust(0x2F, 0xEE, flag::SF | flag::AF | flag::PF | flag::CF);
  EXPECT_EQ(al, 0x88);
  EXPECT_EQ(flags, flag::SF | flag::AF | flag::PF | flag::CF);
}

// Neither adjust applies: AL stays, AF and CF are cleared.
TEST(DecimalAdjust, DasWithoutAdjustClearsAfAndCf) {
  const auto [al, flags] = adjust(0x2F, 0x42, 0);
  EXPECT_EQ(al, 0x42);
  EXPECT_EQ(flags, flag::PF);
}

// The SDM's first DAA example: ADD 79h + 35h leaves AL = AEh, OSZAPC = 110000; DAA
// gives AL = 14h, OSZAPC = X00111 (its second example's CF = 1 for 2Eh contradicts the
// Operation section, which gives CF = 0 there, and is left out).
TEST(DecimalAdjust, DaaGivesTheSdmExample) {
  const auto [al, flags] = adjust(0x27, 0xAE, flag::OF | flag::SF);
  EXPECT_EQ(al, 0x14);
  EXPECT_EQ(flags, flag::AF | flag::PF | flag::CF);
}

}  // namespace
}  // namespace x86lab
