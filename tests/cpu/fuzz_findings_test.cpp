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

}  // namespace
}  // namespace x86lab
