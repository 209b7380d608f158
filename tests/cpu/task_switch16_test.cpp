// A task switch into a 16-bit TSS (Intel SDM Vol. 3, "Task Management", "16-Bit
// Task-State Segment (TSS)": the upper halves of the general registers are "not
// maintained"). QUIRK followed here: the i386 loads them as FFFFh, as Bochs 2.7 does and
// test386's ROM128 task-switch test (POST 22h) checks (docs/protected-mode.md).
#include <gtest/gtest.h>

#include "../segmentation/protected_fixture.h"

namespace x86lab {
namespace {

using testing::descriptor;
using testing::kTssB;
using testing::ProtectedModeFixture;

struct Tss16Fixture : ProtectedModeFixture {
  void poke16(u32 address, u16 value) {
    bus.poke(address, static_cast<u8>(value));
    bus.poke(address + 1, static_cast<u8>(value >> 8));
  }
  // TSS B as an available 16-bit TSS: IP 1300h, FLAGS 2, AX..DI from `words`, flat
  // ring-0 selectors, no LDT.
  explicit Tss16Fixture(const std::array<u16, 8>& words) {
    put(testing::kTssBSelector, descriptor(kTssB, 0x2B, 0x81, 0));
    poke16(kTssB + 0x0E, 0x1300);
    poke16(kTssB + 0x10, 0x0002);
    for (unsigned r = 0; r < 8; ++r) poke16(kTssB + 0x12 + 2 * r, words[r]);
    const u16 selectors[4] = {testing::kData, testing::kCode, testing::kData, testing::kData};  // ES CS SS DS
    for (unsigned s = 0; s < 4; ++s) poke16(kTssB + 0x22 + 2 * s, selectors[s]);
    poke16(kTssB + 0x2A, 0);
  }
};

TEST(TaskSwitch16, TheUpperHalvesOfTheEightGeneralRegistersBecomeFFFFh) {
  const std::array<u16, 8> words = {0x1234, 0x5678, 0x9ABC, 0xDEF0, 0x7122, 0x3344, 0x5566, 0x7788};
  Tss16Fixture f(words);
  for (unsigned r = 0; r < 8; ++r) f.cpu.state.gpr[r] = 0x00110000u * (r + 1);
  f.code(0x1000, {0xEA, 0x00, 0x00, 0x00, 0x00, testing::kTssBSelector, 0x00});  // jmp 28h:0
  f.cpu.step();
  ASSERT_EQ(f.cpu.state.tr.selector, testing::kTssBSelector);
  EXPECT_EQ(f.cpu.state.eip, 0x1300u);
  for (unsigned r = 0; r < 8; ++r) EXPECT_EQ(f.cpu.state.gpr[r], 0xFFFF0000u | words[r]) << "register " << r;
}

}  // namespace
}  // namespace x86lab
