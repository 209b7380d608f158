// The GUI session without a window: commands from the windows drive the debugger
// (platform/debugger), the state at the last stop is kept for highlights, memory edits
// wait for a pause, and the trace ring sees what ran.
#include <gtest/gtest.h>

#include "ui/gui/session.h"

namespace x86lab::gui {
namespace {

// A 64 KiB ROM whose reset vector (FFFFFFF0h) holds: inc ax; inc ax; jmp short FFF0h.
SessionOptions rom_session() {
  SessionOptions options;
  options.config.memory_mib = 1;
  options.config.bios.assign(0x10000, 0xF4);
  const u8 code[] = {0x40, 0x40, 0xEB, 0xFC};
  std::copy(std::begin(code), std::end(code), options.config.bios.begin() + 0xFFF0);
  options.scenarios = "/nonexistent";
  return options;
}

TEST(GuiSession, StepIntoMovesEipAndKeepsTheStateOfTheLastStop) {
  Session session(rom_session());
  EXPECT_EQ(session.run_state(), RunState::Paused);
  session.apply({CommandKind::StepInto});
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF1u);
  EXPECT_EQ(session.machine().cpu.state.gpr[EAX] & 0xFFFF, 1u);
  EXPECT_EQ(session.previous().eip, 0xFFF0u);  // the reset EIP (SDM "Processor State After Reset")
  EXPECT_EQ(session.status(), "step done");
  ASSERT_FALSE(session.trace().events().empty());
  EXPECT_EQ(session.trace().last_instruction_events().front().kind, EventKind::Instruction);
}

TEST(GuiSession, BreakpointsToggleAndRunStopsAtThem) {
  Session session(rom_session());
  EXPECT_TRUE(session.toggle_breakpoint(0xFFFFFFF2u));
  EXPECT_NE(session.breakpoint_at(0xFFFFFFF2u), 0u);
  session.apply({CommandKind::Run});
  EXPECT_EQ(session.run_state(), RunState::Running);
  for (int frame = 0; frame < 100 && session.run_state() == RunState::Running; ++frame) session.tick(1.0);
  EXPECT_EQ(session.run_state(), RunState::Paused);
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF2u);
  EXPECT_EQ(session.status(), "breakpoint 1 (linear) at F000:0000FFF2");
  EXPECT_FALSE(session.toggle_breakpoint(0xFFFFFFF2u));
  EXPECT_EQ(session.breakpoint_at(0xFFFFFFF2u), 0u);
}

TEST(GuiSession, RunFromABreakpointMovesOnAndStopsThereAfterOneLoop) {
  Session session(rom_session());
  session.toggle_breakpoint(0xFFFFFFF2u);
  session.apply({CommandKind::Run});
  for (int frame = 0; frame < 100 && session.run_state() == RunState::Running; ++frame) session.tick(1.0);
  EXPECT_EQ(session.machine().counters.instructions, 2u);  // inc, inc
  session.apply({CommandKind::Run});
  for (int frame = 0; frame < 100 && session.run_state() == RunState::Running; ++frame) session.tick(1.0);
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF2u);
  EXPECT_EQ(session.machine().counters.instructions, 5u);  // jmp, inc, inc
}

TEST(GuiSession, ASliceEndingJustBeforeABreakpointDoesNotPassOverIt) {
  // One step per frame: the second slice ends at FFF2h, where the breakpoint is; the
  // third must stop there (Debugger::run passes over a breakpoint where it starts).
  SessionOptions options = rom_session();
  options.max_slice_steps = 1;
  Session session(std::move(options));
  session.toggle_breakpoint(0xFFFFFFF2u);
  session.apply({CommandKind::Run});
  for (int frame = 0; frame < 10 && session.run_state() == RunState::Running; ++frame) session.tick(1.0);
  EXPECT_EQ(session.run_state(), RunState::Paused);
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF2u);
  EXPECT_EQ(session.machine().counters.instructions, 2u);
  EXPECT_EQ(session.status(), "breakpoint 1 (linear) at F000:0000FFF2");
}

// A ROM whose reset vector holds: call FFF5h; inc ax; hlt; FFF5h: `callee` (2 bytes).
SessionOptions call_session(u8 callee0, u8 callee1) {
  SessionOptions options = rom_session();
  const u8 code[] = {0xE8, 0x02, 0x00, 0x40, 0xF4, callee0, callee1};
  std::copy(std::begin(code), std::end(code), options.config.bios.begin() + 0xFFF0);
  options.max_slice_steps = 100;
  return options;
}

TEST(GuiSession, StepOverRunsInSlicesBetweenFramesToTheReturn) {
  Session session(call_session(0xC3, 0x90));  // FFF5h: ret
  session.apply({CommandKind::StepOver});
  EXPECT_EQ(session.run_state(), RunState::Busy);
  EXPECT_EQ(session.status(), "running (step over; Pause stops it)");
  EXPECT_EQ(session.machine().counters.instructions, 0u);  // nothing runs before the frame's tick
  for (int frame = 0; frame < 10 && session.run_state() == RunState::Busy; ++frame) session.tick(1.0);
  EXPECT_EQ(session.run_state(), RunState::Paused);
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF3u);
  EXPECT_EQ(session.machine().counters.instructions, 2u);  // call, ret
  EXPECT_EQ(session.status(), "step done");
}

TEST(GuiSession, StepOverACallThatNeverReturnsStaysBusyUntilPause) {
  Session session(call_session(0xEB, 0xFE));  // FFF5h: jmp $
  session.apply({CommandKind::StepOver});
  for (int frame = 0; frame < 50; ++frame) session.tick(1.0);
  EXPECT_EQ(session.run_state(), RunState::Busy);
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF5u);
  // At most max_slice_steps per frame: the frame loop never waits on the guest.
  EXPECT_LE(session.machine().counters.instructions, 50u * 100);
  EXPECT_GE(session.machine().counters.instructions, 50u);
  session.apply({CommandKind::Pause});
  EXPECT_EQ(session.run_state(), RunState::Paused);
  const u64 paused_at = session.machine().counters.instructions;
  session.tick(1.0);
  EXPECT_EQ(session.machine().counters.instructions, paused_at);
  session.apply({CommandKind::StepInto});
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF5u);
  EXPECT_EQ(session.status(), "step done");
}

TEST(GuiSession, MemoryEditsApplyOnlyWhilePaused) {
  Session session(rom_session());
  session.apply({CommandKind::WriteMemory, 0x500, false, {0x12, 0x34}});
  EXPECT_EQ(session.machine().bus.peek(0x500), 0x12);
  EXPECT_EQ(session.machine().bus.peek(0x501), 0x34);
  session.apply({CommandKind::Run});
  session.apply({CommandKind::WriteMemory, 0x600, true, {0x56}});
  EXPECT_EQ(session.machine().bus.peek(0x600), 0x00);
}

TEST(GuiSession, ResetReturnsToTheResetVector) {
  Session session(rom_session());
  session.step_into(3);
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF0u);  // after the jmp
  EXPECT_EQ(session.machine().cpu.state.gpr[EAX] & 0xFFFF, 2u);
  session.step_into(1);
  session.apply({CommandKind::Restart});
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF0u);
  EXPECT_EQ(session.machine().cpu.state.segments[CS].cache.base, 0xFFFF0000u);
  EXPECT_EQ(session.previous().eip, 0xFFF1u);
}

TEST(GuiSession, RestartBuildsTheMachineAgainAndKeepsTheBreakpoints) {
  Session session(rom_session());
  session.apply({CommandKind::WriteMemory, 0x500, false, {0x12}});
  session.toggle_breakpoint(0xFFFFFFF2u);
  session.run();
  ASSERT_EQ(session.machine().counters.instructions, 2u);
  session.apply({CommandKind::Restart});
  EXPECT_EQ(session.machine().counters.instructions, 0u);  // counters as at start
  EXPECT_EQ(session.machine().cpu.clock().cycles(), 0u);
  EXPECT_EQ(session.machine().bus.peek(0x500), 0x00);     // RAM as at start
  EXPECT_EQ(session.run_state(), RunState::Paused);
  ASSERT_EQ(session.debugger().breakpoints().all().size(), 1u);
  EXPECT_EQ(session.debugger().breakpoints().all()[0].hits, 0u);
  session.run();
  EXPECT_EQ(session.status(), "breakpoint 1 (linear) at F000:0000FFF2");
}

// A Multiboot kernel restarts at its entry point with its image loaded again, not at an
// empty reset vector (issue 27): echo_kernel.elf enters in protected mode at its ELF entry.
TEST(GuiSession, RestartOfAKernelStartsItAgainAtItsEntry) {
  SessionOptions options;
  options.config.memory_mib = 4;
  options.config.kernel.kernel_path = std::string(X86LAB_ROM_DIR) + "/multiboot/echo_kernel.elf";
  options.scenarios = "/nonexistent";
  Session session(std::move(options));
  const CpuState start = session.machine().cpu.state;
  ASSERT_TRUE(start.cr0 & 1u);  // Multiboot: protected mode, flat segments (Multiboot spec "Machine state")
  const u32 entry_byte = session.machine().bus.peek(start.eip);
  session.step_into(20);
  ASSERT_NE(session.machine().cpu.state.eip, start.eip);
  session.apply({CommandKind::Restart});
  EXPECT_EQ(session.machine().cpu.state.eip, start.eip);
  EXPECT_EQ(session.machine().cpu.state.cr0, start.cr0);
  EXPECT_EQ(session.machine().cpu.state.gpr[EAX], 0x2BADB002u);  // the Multiboot magic again
  EXPECT_EQ(session.machine().bus.peek(start.eip), entry_byte);
  EXPECT_EQ(session.machine().counters.instructions, 0u);
}

TEST(GuiSession, TheBreakpointsWindowAddsEnablesAndRemovesEventBreakpoints) {
  Session session(rom_session());
  session.apply({CommandKind::AddBreakpoint, 0, false, {}, "vector 13"});
  session.apply({CommandKind::AddBreakpoint, 0, false, {}, "io 0x60 0x64"});
  auto all = session.debugger().breakpoints().all();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].kind, BreakpointKind::Vector);
  EXPECT_EQ(all[1].kind, BreakpointKind::IoPort);
  session.apply({CommandKind::EnableBreakpoint, all[0].id, false});
  EXPECT_FALSE(session.debugger().breakpoints().find(all[0].id)->enabled);
  session.apply({CommandKind::EnableBreakpoint, all[0].id, true});
  EXPECT_TRUE(session.debugger().breakpoints().find(all[0].id)->enabled);
  session.apply({CommandKind::RemoveBreakpoint, all[1].id});
  EXPECT_EQ(session.debugger().breakpoints().all().size(), 1u);
  session.apply({CommandKind::AddBreakpoint, 0, false, {}, "io 0x60 0x10000"});
  EXPECT_EQ(session.message(), "breakpoint 'io 0x60 0x10000': ports are 0-0xffff");
  EXPECT_EQ(session.debugger().breakpoints().all().size(), 1u);
}

TEST(GuiSession, SerialInputIsQueuedForTheGuest) {
  Session session(rom_session());
  session.apply({CommandKind::SerialInput, 0, false, {}, "ls\r"});
  EXPECT_EQ(session.serial().pending_input(), 3u);
}

TEST(GuiSession, AnUnknownScenarioVariantLeavesAMessage) {
  Session session(rom_session());
  session.apply({CommandKind::LaunchVariant, 0, false, {}, "tls", "flipping"});
  EXPECT_EQ(session.message(), "no scenario variant 'tls/flipping' in '/nonexistent'");
  EXPECT_EQ(session.machine().cpu.state.eip, 0xFFF0u);  // the machine is unchanged
}

}  // namespace
}  // namespace x86lab::gui
