// The x87's exception paths into the CPU (Intel SDM Vol. 3, "Interrupt 7—Device Not
// Available Exception (#NM)", "Interrupt 16—x87 FPU Floating-Point Error (#MF)",
// "CR0.NE"; Vol. 1, Appendix D "MS-DOS Compatibility Sub-mode in the P6 Family"):
// CR0.EM/MP/TS with escape opcodes and WAIT, pending unmasked exceptions at waiting
// and no-wait instructions with CR0.NE = 1 (#MF) and 0 (FERR#, IGNNE#, the freeze),
// and the FPU pointers the handlers read.
#include <gtest/gtest.h>

#include <vector>

#include "cpu/x87/environment.h"
#include "cpu_fixture.h"

namespace x86lab {
namespace {

constexpr u32 kCode = 0x1000, kData = 0x2000;
constexpr u32 kNmHandler = 0x3000, kMfHandler = 0x3100;

// FLDCW [2000h] (ZE unmasked); FLD1; FLDZ; FDIVP ST(1), ST: 1 / 0 flags an unmasked #Z.
const std::initializer_list<u8> kDivideByZero = {0xD9, 0x2E, 0x00, 0x20, 0xD9, 0xE8, 0xD9, 0xEE, 0xDE, 0xF9};
constexpr u32 kAfterDivide = kCode + 10;
constexpr u32 kDivideAt = kCode + 8;

struct PinsLog {
  std::vector<bool> ferr_changes;
  bool ignne_asserted = false;
  X87ErrorPins pins() {
    return {[this](bool asserted) { ferr_changes.push_back(asserted); }, [this] { return ignne_asserted; }};
  }
};

struct X87Exceptions : ::testing::Test, testing::CpuFixture {
  void SetUp() override {
    real_mode_at(kCode);
    cpu.state.cr0 = cr0::ET | cr0::NE;
    // IVT: #NM and #MF to handlers that halt.
    for (auto [vector, handler] : {std::pair{7u, kNmHandler}, std::pair{16u, kMfHandler}}) {
      bus.poke(vector * 4, static_cast<u8>(handler));
      bus.poke(vector * 4 + 1, static_cast<u8>(handler >> 8));
      bus.poke(vector * 4 + 2, 0);
      bus.poke(vector * 4 + 3, 0);
      bus.poke(handler, 0xF4);
    }
    bus.poke(kData, 0x7B);  // control word 037Bh: every exception masked but #Z
    bus.poke(kData + 1, 0x03);
    cpu.state.fpu.control = 0x037F;
    cpu.state.fpu.tag = 0xFFFF;
  }
  u16 pushed_ip() { return static_cast<u16>(bus.peek(0x7FFA) | (bus.peek(0x7FFB) << 8)); }
  u64 delivered(unsigned vector) const { return counters.exceptions_by_vector[vector]; }
  // Runs the divide by zero and leaves EIP after it, with the exception pending.
  void divide_by_zero() {
    code(kCode, kDivideByZero);
    steps(4);
    ASSERT_EQ(cpu.state.eip, kAfterDivide);
    ASSERT_TRUE(cpu.state.fpu.status & fsw::ES);
  }
};

TEST_F(X87Exceptions, EscapeOpcodeWithCr0EmRaisesNm) {
  cpu.state.cr0 |= cr0::EM;
  code(kCode, {0xD9, 0xE8});  // FLD1
  steps(1);
  EXPECT_EQ(delivered(7), 1u);
  EXPECT_EQ(cpu.state.eip, kNmHandler);
  EXPECT_EQ(pushed_ip(), kCode);  // a fault: the escape instruction restarts
  EXPECT_EQ(cpu.state.fpu.tag, 0xFFFF);  // nothing was pushed
}

TEST_F(X87Exceptions, EscapeOpcodeWithCr0TsRaisesNmWhateverMpSays) {
  for (u32 mp : {0u, cr0::MP}) {
    SetUp();
    cpu.state.cr0 |= cr0::TS | mp;
    code(kCode, {0xDB, 0xE3});  // FNINIT: even a no-wait instruction
    steps(1);
    EXPECT_EQ(cpu.state.eip, kNmHandler) << "MP=" << mp;
  }
  EXPECT_EQ(delivered(7), 2u);
}

TEST_F(X87Exceptions, WaitWithCr0MpAndTsRaisesNm) {
  cpu.state.cr0 |= cr0::MP | cr0::TS;
  code(kCode, {0x9B});
  steps(1);
  EXPECT_EQ(delivered(7), 1u);
  EXPECT_EQ(pushed_ip(), kCode);
}

TEST_F(X87Exceptions, WaitWithCr0TsButNotMpRunsOn) {
  cpu.state.cr0 |= cr0::TS;
  code(kCode, {0x9B});
  steps(1);
  EXPECT_EQ(delivered(7), 0u);
  EXPECT_EQ(cpu.state.eip, kCode + 1);
}

TEST_F(X87Exceptions, WaitIgnoresCr0Em) {
  cpu.state.cr0 |= cr0::EM | cr0::MP;
  code(kCode, {0x9B});
  steps(1);
  EXPECT_EQ(delivered(7), 0u);
  EXPECT_EQ(cpu.state.eip, kCode + 1);
}

TEST_F(X87Exceptions, UnmaskedExceptionRaisesMfAtTheNextWaitingInstructionWithCr0Ne) {
  divide_by_zero();
  EXPECT_EQ(delivered(16), 0u);  // the faulting FDIVP itself completes
  code(kAfterDivide, {0xD9, 0xE8});  // FLD1
  steps(1);
  EXPECT_EQ(delivered(16), 1u);
  EXPECT_EQ(cpu.state.eip, kMfHandler);
  EXPECT_EQ(pushed_ip(), kAfterDivide);  // the waiting instruction, not yet executed
  EXPECT_TRUE(cpu.state.fpu.status & fsw::ZE);
}

TEST_F(X87Exceptions, FwaitRaisesMfForAPendingException) {
  divide_by_zero();
  code(kAfterDivide, {0x9B});
  steps(1);
  EXPECT_EQ(delivered(16), 1u);
  EXPECT_EQ(pushed_ip(), kAfterDivide);
}

TEST_F(X87Exceptions, NoWaitInstructionsRunWithAnExceptionPending) {
  divide_by_zero();
  // FNSTSW AX; FNSTCW [2002h]; FNSTENV [2010h]; FNCLEX
  code(kAfterDivide, {0xDF, 0xE0, 0xD9, 0x3E, 0x02, 0x20, 0xD9, 0x36, 0x10, 0x20, 0xDB, 0xE2});
  steps(4);
  EXPECT_EQ(delivered(16), 0u);
  EXPECT_EQ(cpu.state.eip, kAfterDivide + 12);
  EXPECT_TRUE(cpu.reg<u16>(EAX) & fsw::ES);
  EXPECT_FALSE(cpu.state.fpu.status & (fsw::ES | fsw::ZE));
}

TEST_F(X87Exceptions, NmComesBeforeMf) {
  divide_by_zero();
  cpu.state.cr0 |= cr0::TS;
  code(kAfterDivide, {0xD9, 0xE8});
  steps(1);
  EXPECT_EQ(delivered(7), 1u);
  EXPECT_EQ(delivered(16), 0u);
}

TEST_F(X87Exceptions, FpuPointersNameTheInstructionThatFlaggedTheException) {
  divide_by_zero();
  const FpuState& s = cpu.state.fpu;
  EXPECT_EQ(s.fip, kDivideAt);
  EXPECT_EQ(s.fcs, 0);
  EXPECT_EQ(s.fop, 0x6F9);  // DE F9: (DE & 7) << 8 | F9
  // FNSTENV in real mode, 16-bit: FIP and FOP as the SDM's real-mode layout has them.
  code(kAfterDivide, {0xD9, 0x36, 0x10, 0x20});
  steps(1);
  EXPECT_EQ(bus.peek(kData + 0x16), static_cast<u8>(kDivideAt));       // FIP[7:0]
  EXPECT_EQ(bus.peek(kData + 0x17), static_cast<u8>(kDivideAt >> 8));  // FIP[15:8]
  EXPECT_EQ(bus.peek(kData + 0x18), 0xF9);                             // FOP[7:0]
  EXPECT_EQ(bus.peek(kData + 0x19), 0x06);                             // FIP[19:16] << 4 | FOP[10:8]
}

TEST_F(X87Exceptions, MemoryOperandSetsTheDataPointer) {
  code(kCode, {0xD9, 0x06, 0x34, 0x12});  // FLD dword [1234h]
  cpu.state.segments[DS].selector = 0x0100;
  cpu.state.segments[DS].cache.set_real_mode(0x1000);
  steps(1);
  EXPECT_EQ(cpu.state.fpu.fdp, 0x1234u);
  EXPECT_EQ(cpu.state.fpu.fds, 0x0100);
  EXPECT_EQ(cpu.state.fpu.fop, 0x106);
}

TEST_F(X87Exceptions, WithCr0NeClearFerrFollowsTheExceptionAndTheNextWaitingInstructionFreezes) {
  PinsLog pins;
  cpu.set_x87_error_pins(pins.pins());
  cpu.state.cr0 &= ~cr0::NE;
  divide_by_zero();
  EXPECT_EQ(pins.ferr_changes, std::vector<bool>{true});  // asserted when FDIVP flagged #Z (P6: immediately)
  code(kAfterDivide, {0xD9, 0xE8});
  const unsigned top = cpu.state.fpu.top();
  steps(1);
  EXPECT_EQ(delivered(16), 0u);
  EXPECT_TRUE(cpu.state.halted);  // frozen before FLD1 until IRQ 13 arrives
  EXPECT_EQ(cpu.state.eip, kAfterDivide);
  EXPECT_EQ(cpu.state.fpu.top(), top);  // FLD1 did not run
  cpu.set_x87_error_pins({});
}

// FERR# wired to IRQ 13 as on a PC: the slave 8259A's vector 75h.
struct Irq13 : testing::OneShotInterrupt {
  Irq13() : OneShotInterrupt(0x75) {}
  X87ErrorPins pins() {
    return {[this](bool asserted) { raised = raised || asserted; }, {}};  // IGNNE# not connected
  }
};

TEST_F(X87Exceptions, TheInterruptFromFerrWakesTheFrozenCpuAndReturnsToTheWaitingInstruction) {
  Irq13 irq13;
  cpu.set_x87_error_pins(irq13.pins());
  cpu.state.cr0 &= ~cr0::NE;
  bus.poke(0x75 * 4, 0x00);  // IRQ 13 handler at 0:3200h: HLT
  bus.poke(0x75 * 4 + 1, 0x32);
  bus.poke(0x3200, 0xF4);
  divide_by_zero();
  code(kAfterDivide, {0xD9, 0xE8});
  steps(1);
  ASSERT_TRUE(cpu.state.halted);
  cpu.set_interrupt_controller(&irq13);
  cpu.state.eflags |= flag::IF;
  cpu.notify_interrupt();
  steps(1);
  EXPECT_EQ(cpu.state.eip, 0x3200u);
  EXPECT_EQ(pushed_ip(), kAfterDivide);  // IRET returns to the frozen FLD1
  cpu.set_interrupt_controller(nullptr);
  cpu.set_x87_error_pins({});
}

TEST_F(X87Exceptions, WithCr0NeClearAndIgnneAssertedTheWaitingInstructionRunsOn) {
  PinsLog pins;
  pins.ignne_asserted = true;
  cpu.set_x87_error_pins(pins.pins());
  cpu.state.cr0 &= ~cr0::NE;
  divide_by_zero();
  code(kAfterDivide, {0xD9, 0xE8});
  steps(1);
  EXPECT_FALSE(cpu.state.halted);
  EXPECT_EQ(cpu.state.eip, kAfterDivide + 2);
  EXPECT_EQ(delivered(16), 0u);
  cpu.set_x87_error_pins({});
}

TEST_F(X87Exceptions, FnclexDeassertsFerr) {
  PinsLog pins;
  cpu.set_x87_error_pins(pins.pins());
  divide_by_zero();
  code(kAfterDivide, {0xDB, 0xE2});
  steps(1);
  EXPECT_EQ(pins.ferr_changes, (std::vector<bool>{true, false}));
  cpu.set_x87_error_pins({});
}

TEST_F(X87Exceptions, MaskingThePendingExceptionWithFnstenvDeassertsFerr) {
  PinsLog pins;
  cpu.set_x87_error_pins(pins.pins());
  divide_by_zero();
  code(kAfterDivide, {0xD9, 0x36, 0x10, 0x20});  // FNSTENV [2010h] masks every exception
  steps(1);
  EXPECT_EQ(pins.ferr_changes, (std::vector<bool>{true, false}));
  EXPECT_TRUE(cpu.state.fpu.status & fsw::ZE);  // the flag stays; only ES follows the masks
  EXPECT_FALSE(cpu.state.fpu.status & fsw::ES);
  cpu.set_x87_error_pins({});
}

}  // namespace
}  // namespace x86lab
