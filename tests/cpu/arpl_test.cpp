// ARPL with a memory destination in a read-only data segment (Intel SDM Vol. 2, "ARPL";
// the write, and so the #GP(0) for a non-writable segment, happens only when the RPL is
// raised). Measured on an Intel host: a 32-bit process with a read-only LDT data
// segment takes no fault when the RPL is already high enough and SIGSEGV when ARPL has
// to write (docs/test386.md, "ARPL"); test386's POST 17h expects the same.
#include <gtest/gtest.h>

#include "../segmentation/protected_fixture.h"

namespace x86lab {
namespace {

using testing::descriptor;
using testing::gate;
using testing::ProtectedModeFixture;

constexpr u16 kReadOnlyData = 0x40;
constexpr u32 kWord = 0x5000;

// DS = a flat read-only data segment, BX = `source`, the word at DS:5000h = `destination`;
// the code at 1000h loads DS and then runs `arpl [5000h], bx` at 1006h. #GP goes to 1500h.
struct ReadOnlyArplFixture : ProtectedModeFixture {
  ReadOnlyArplFixture(u16 destination, u16 source) {
    put(kReadOnlyData, descriptor(0, 0xFFFFF, 0x90, 0xC));  // P, DPL 0, data, read-only
    cpu.state.gdtr.limit = 0x47;
    put_idt(13, gate(testing::kCode, 0x1500, 0x8E));
    code(0x1000, {0x66, 0xB8, kReadOnlyData, 0x00, 0x8E, 0xD8,     // mov ax, 40h; mov ds, ax
                  0x63, 0x1D, 0x00, 0x50, 0x00, 0x00});           // arpl [5000h], bx
    bus.poke(kWord, static_cast<u8>(destination));
    bus.poke(kWord + 1, static_cast<u8>(destination >> 8));
    cpu.state.gpr[EBX] = source;
    cpu.state.eflags |= flag::ZF;
    steps(3);
  }
  u16 word() const { return static_cast<u16>(bus.peek(kWord) | bus.peek(kWord + 1) << 8); }
};

TEST(Arpl, ARplAlreadyAtLeastTheSourcesInAReadOnlySegmentTakesNoFaultAndClearsZf) {
  ReadOnlyArplFixture f(0x0013, 0x0002);  // RPL 3 >= 2: nothing to write
  EXPECT_EQ(f.cpu.state.eip, 0x100Cu);
  EXPECT_EQ(f.cpu.state.eflags & flag::ZF, 0u);
  EXPECT_EQ(f.word(), 0x0013);
  EXPECT_EQ(f.counters.exceptions_by_vector[13], 0u);
}

TEST(Arpl, ARplThatMustBeRaisedInAReadOnlySegmentTakesGpZeroAndLeavesTheWord) {
  ReadOnlyArplFixture f(0x0010, 0x0002);  // RPL 0 < 2: ARPL writes
  EXPECT_EQ(f.cpu.state.eip, 0x1500u);
  EXPECT_EQ(f.peek32(0x8000 - 16), 0u);       // error code 0
  EXPECT_EQ(f.peek32(0x8000 - 12), 0x1006u);  // the ARPL
  EXPECT_EQ(f.word(), 0x0010);
}

}  // namespace
}  // namespace x86lab
