// The x87 register file and its memory images (Intel SDM Vol. 1, "x87 FPU Execution
// Environment", "Saving the x87 FPU's State with FSTENV/FNSTENV and FSAVE/FNSAVE" and
// its four layout figures; Vol. 3, "Processor State After Reset"). The protected-mode
// layouts are also checked against the host CPU by x87_differential_test.cpp.
#include <gtest/gtest.h>

#include <array>

#include "cpu/x87/environment.h"
#include "cpu_fixture.h"

namespace x86lab {
namespace {

u16 word_at(const u8* p) { return static_cast<u16>(p[0] | (p[1] << 8)); }
u32 dword_at(const u8* p) { return word_at(p) | (u32{word_at(p + 2)} << 16); }

FpuState sample_state() {
  FpuState s;
  s.control = 0x0A7F;
  s.status = 0x3800 | fsw::C1;  // TOP = 7
  s.tag = 0xFFFF;
  s.registers[7] = {0xC90FDAA22168C235ull, 0x4000};  // ST(0) = pi
  s.set_tag(7, Tag::Valid);
  s.fip = 0x1234;
  s.fcs = 0xF000;
  s.fop = 0x5E9;
  s.fdp = 0x0456;
  s.fds = 0x0789;
  return s;
}

TEST(X87State, ResetAndFninitValuesAreTheSdms) {
  testing::CpuFixture f;
  // RESET: FCW 0040h, FSW 0, FTW 5555h (every register +0.0, tagged zero).
  EXPECT_EQ(f.cpu.state.fpu.control, 0x0040);
  EXPECT_EQ(f.cpu.state.fpu.status, 0);
  EXPECT_EQ(f.cpu.state.fpu.tag, 0x5555);
  f.real_mode_at(0x1000);
  f.code(0x1000, {0xDB, 0xE3});  // FNINIT: FCW 037Fh, FSW 0, FTW FFFFh
  f.steps(1);
  EXPECT_EQ(f.cpu.state.fpu.control, 0x037F);
  EXPECT_EQ(f.cpu.state.fpu.status, 0);
  EXPECT_EQ(f.cpu.state.fpu.tag, 0xFFFF);
}

TEST(X87State, RealMode32BitEnvironmentHoldsLinearPointersAndTheOpcode) {
  std::array<u8, 28> image{};
  x87::store_environment(sample_state(), x87::ImageLayout::Real32, image.data());
  const u32 ip = 0xF0000 + 0x1234, dp = 0x7890 + 0x0456;
  EXPECT_EQ(dword_at(&image[0]), 0xFFFF0A7Fu);
  EXPECT_EQ(dword_at(&image[4]), 0xFFFF3A00u);
  EXPECT_EQ(dword_at(&image[8]), 0xFFFF3FFFu);
  EXPECT_EQ(dword_at(&image[12]), 0xFFFF0000u | (ip & 0xFFFF));
  EXPECT_EQ(dword_at(&image[16]), ((ip >> 16) << 12) | 0x5E9u);
  EXPECT_EQ(dword_at(&image[20]), 0xFFFF0000u | (dp & 0xFFFF));
  EXPECT_EQ(dword_at(&image[24]), (dp >> 16) << 12);
}

TEST(X87State, RealMode16BitEnvironmentHoldsTwentyBitPointers) {
  std::array<u8, 14> image{};
  x87::store_environment(sample_state(), x87::ImageLayout::Real16, image.data());
  EXPECT_EQ(word_at(&image[6]), 0x1234);          // FIP[15:0] of F1234h
  EXPECT_EQ(word_at(&image[8]), 0xF000 | 0x5E9);  // FIP[19:16] << 12 | FOP
  EXPECT_EQ(word_at(&image[10]), 0x7CE6);         // FDP of 07CE6h
  EXPECT_EQ(word_at(&image[12]), 0x0000);
}

TEST(X87State, Protected16BitEnvironmentHoldsSelectorsAndOffsets) {
  std::array<u8, 14> image{};
  x87::store_environment(sample_state(), x87::ImageLayout::Protected16, image.data());
  EXPECT_EQ(word_at(&image[0]), 0x0A7F);
  EXPECT_EQ(word_at(&image[6]), 0x1234);
  EXPECT_EQ(word_at(&image[8]), 0xF000);
  EXPECT_EQ(word_at(&image[10]), 0x0456);
  EXPECT_EQ(word_at(&image[12]), 0x0789);
}

TEST(X87State, SaveAndRestoreRoundTripInEveryLayout) {
  for (auto layout : {x87::ImageLayout::Real16, x87::ImageLayout::Protected16, x87::ImageLayout::Real32,
                      x87::ImageLayout::Protected32}) {
    const FpuState before = sample_state();
    std::array<u8, 108> image{};
    x87::store_state(before, layout, image.data());
    FpuState after;
    x87::load_state(after, layout, image.data());
    EXPECT_EQ(after.control, before.control);
    EXPECT_EQ(after.status, before.status);
    EXPECT_EQ(after.tag, before.tag);
    EXPECT_EQ(after.st(0), before.st(0));
    const bool real = layout == x87::ImageLayout::Real16 || layout == x87::ImageLayout::Real32;
    // Real-mode images keep linear addresses: the selector becomes 0 and the offset linear.
    EXPECT_EQ(after.fip, real ? 0xF1234u : 0x1234u);
    EXPECT_EQ(after.fdp, real ? 0x7CE6u : 0x0456u);
  }
}

TEST(X87State, FldenvRecomputesTagsFromTheRegisters) {
  FpuState s = sample_state();
  std::array<u8, 28> image{};
  x87::store_environment(s, x87::ImageLayout::Protected32, image.data());
  image[8] = 0x00;  // the image calls every register valid (00)...
  image[9] = 0x00;
  x87::load_environment(s, x87::ImageLayout::Protected32, image.data());
  EXPECT_EQ(s.tag_of(7), Tag::Valid);  // pi
  EXPECT_EQ(s.tag_of(0), Tag::Zero);   // ...but R0 holds +0.0
}

}  // namespace
}  // namespace x86lab
