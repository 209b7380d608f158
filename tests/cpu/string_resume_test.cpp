// A repeated string instruction stopped part-way (Intel SDM Vol. 2, "REP/REPE/REPZ/
// REPNE/REPNZ"; Vol. 3, "Debug Exceptions" and "Exception Classifications"): by an
// interrupt or a single-step trap between iterations, RF = 1 in the pushed EFLAGS so the
// instruction resumes; by a fault in an element, the registers and EFLAGS of the
// elements done, as the instruction resumes at the faulting element.
#include "../segmentation/protected_fixture.h"

namespace x86lab {
namespace {

using testing::gate;
using testing::kCode;
using testing::ProtectedModeFixture;

constexpr u32 kRf = 1u << 16;
constexpr u32 kFrameEip = 0x8000 - 12, kFrameEflags = 0x8000 - 4;

// REP STOSB of `count` bytes at EDI = 20000h from 1000h, IF = 1, an interrupt controller
// with the handler at 1400h.
struct RepStos : ::testing::Test, ProtectedModeFixture {
  testing::OneShotInterrupt pic;
  void start(u32 count) {
    connect_interrupt(pic);
    cpu.state.eflags |= flag::IF;
    cpu.state.gpr[ECX] = count;
    cpu.state.gpr[EDI] = 0x20000;
    code(0x1000, {0xF3, 0xAA, 0x90});  // rep stosb; nop
  }
};

TEST_F(RepStos, AnInterruptBetweenIterationsPushesRfSetAndTheInstructionsEip) {
  start(3000);
  cpu.step();  // one batch of iterations: the instruction is not done
  ASSERT_EQ(cpu.state.eip, 0x1000u);
  pic.raised = true;
  cpu.step();
  ASSERT_EQ(cpu.state.eip, 0x1400u);
  EXPECT_EQ(peek32(kFrameEip), 0x1000u);
  EXPECT_EQ(peek32(kFrameEflags) & kRf, kRf);
  EXPECT_EQ(cpu.state.eflags & kRf, 0u) << "the handler runs with RF = 0";
}

TEST_F(RepStos, AnInterruptAfterTheLastIterationPushesRfClear) {
  start(1500);
  cpu.step();
  cpu.step();  // the rest: done
  ASSERT_EQ(cpu.state.eip, 0x1002u);
  ASSERT_EQ(cpu.state.gpr[ECX], 0u);
  pic.raised = true;
  cpu.step();
  ASSERT_EQ(cpu.state.eip, 0x1400u);
  EXPECT_EQ(peek32(kFrameEip), 0x1002u);
  EXPECT_EQ(peek32(kFrameEflags) & kRf, 0u);
}

TEST_F(RepStos, ASingleStepTrapBetweenIterationsPushesRfSet) {
  put_idt(1, gate(kCode, 0x1500, 0x8E));
  start(3);
  cpu.state.eflags = (cpu.state.eflags & ~flag::IF) | flag::TF;
  cpu.step();  // one iteration under TF
  ASSERT_EQ(cpu.state.gpr[ECX], 2u);
  cpu.step();  // the #DB trap
  ASSERT_EQ(cpu.state.eip, 0x1500u);
  EXPECT_EQ(peek32(kFrameEip), 0x1000u);
  EXPECT_EQ(peek32(kFrameEflags) & (kRf | flag::TF), kRf | flag::TF);
}

TEST_F(RepStos, ASingleStepTrapAfterTheLastIterationPushesRfClear) {
  put_idt(1, gate(kCode, 0x1500, 0x8E));
  start(1);
  cpu.state.eflags = (cpu.state.eflags & ~flag::IF) | flag::TF;
  cpu.step();
  cpu.step();
  ASSERT_EQ(cpu.state.eip, 0x1500u);
  EXPECT_EQ(peek32(kFrameEip), 0x1002u);
  EXPECT_EQ(peek32(kFrameEflags) & kRf, 0u);
}


// REPE CMPSW in real mode, CX = 3, SI = 100h, DI = FFFDh: the first element compares
// equal, the second (a word at ES:FFFFh) is outside the ES limit: #GP. CX and DI show
// the element done; EFLAGS are those from before the instruction (CF = SF = 1, ZF = 0),
// not the first comparison's (ZF = PF = 1), as an Intel host shows for REPE CMPSB
// faulting on an unmapped page (cpu/exec_string.cpp, repeat_comparisons).
struct RepeCmpsw : ::testing::Test, testing::CpuFixture {
  RepeCmpsw() {
    real_mode_at();
    cpu.state.gpr[ECX] = 3;
    cpu.state.gpr[ESI] = 0x100;
    cpu.state.gpr[EDI] = 0xFFFD;
    for (u32 at : {0x100u, 0xFFFDu}) {
      bus.poke(at, 0x34);
      bus.poke(at + 1, 0x12);
    }
    cpu.state.eflags |= flag::CF | flag::SF;
    code(0x1000, {0xF3, 0xA7});  // repe cmpsw
  }
  static constexpr u32 kStatus = flag::CF | flag::ZF | flag::SF | flag::PF | flag::AF | flag::OF;
};

TEST_F(RepeCmpsw, AFaultInTheSecondElementKeepsTheFlagsFromBeforeTheInstruction) {
  cpu.step();
  ASSERT_EQ(cpu.fault_chain().size(), 1u);
  EXPECT_EQ(cpu.fault_chain()[0].vector, 13);
  EXPECT_EQ(cpu.state.gpr[ECX], 2u);
  EXPECT_EQ(cpu.state.gpr[EDI], 0xFFFFu);
  const u16 pushed = static_cast<u16>(bus.peek(0x8000 - 2) | bus.peek(0x8000 - 1) << 8);
  EXPECT_EQ(pushed & kStatus, flag::CF | flag::SF);
}

// Three readable elements, the third different: 1235h against 1234h.
struct RepeCmpswReadable : RepeCmpsw {
  RepeCmpswReadable() {
    cpu.state.gpr[EDI] = 0x200;
    for (u32 at : {0x102u, 0x200u, 0x202u, 0x204u}) {
      bus.poke(at, 0x34);
      bus.poke(at + 1, 0x12);
    }
    bus.poke(0x104, 0x35);
    bus.poke(0x105, 0x12);
  }
};

// Under TF the instruction stops after each iteration for the trap; the host's traps
// between iterations show the flags from before the instruction.
TEST_F(RepeCmpswReadable, StoppedForASingleStepTrapItShowsTheFlagsFromBeforeTheInstruction) {
  cpu.state.eflags |= flag::TF;
  cpu.step();
  EXPECT_EQ(cpu.state.gpr[ECX], 2u);
  EXPECT_EQ(cpu.state.eip, 0x1000u);
  EXPECT_EQ(cpu.state.eflags & kStatus, flag::CF | flag::SF);
}

// Completed, EFLAGS are the last comparison's: 1235h - 1234h = 1 clears all six.
TEST_F(RepeCmpswReadable, CompletedItHasTheLastComparisonsFlags) {
  cpu.step();
  EXPECT_EQ(cpu.state.gpr[ECX], 0u);
  EXPECT_EQ(cpu.state.eip, 0x1002u);
  EXPECT_EQ(cpu.state.eflags & kStatus, 0u);
}

}  // namespace
}  // namespace x86lab
