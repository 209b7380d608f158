// The debugger (platform/debugger/) headless: every step mode and breakpoint kind on
// small real-mode programs poked into RAM. Expected EIPs and values come from the
// programs' own listings (nasm -l, reproduced beside the bytes).
#include <gtest/gtest.h>

#include <thread>

#include "tests/platform/debugger_fixture.h"

namespace x86lab {
namespace {

using debugger_test::Fixture;

TEST(DebuggerStep, StepIntoExecutesOneInstructionAndEntersCalls) {
  Fixture f;
  EXPECT_EQ(f.debugger->step_into().kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x1003u);
  EXPECT_EQ(f.state().gpr[EAX], 1u);
  f.debugger->step_into();
  EXPECT_EQ(f.state().eip, 0x1036u);
  EXPECT_EQ(f.state().gpr[ESP], 0x7FFEu);  // the return address 1006h pushed
}

TEST(DebuggerStep, StepOverRunsACallToItsReturn) {
  Fixture f;
  f.debugger->step_into();
  EXPECT_EQ(f.debugger->step_over().kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x1006u);
  EXPECT_EQ(f.state().gpr[ESP], 0x8000u);
  EXPECT_EQ(f.state().gpr[EAX], 1u);  // func saved and restored AX
  // An ordinary instruction: one step.
  f.debugger->step_over();
  EXPECT_EQ(f.state().eip, 0x1007u);
}

TEST(DebuggerStep, StepOverRunsIntNThroughItsHandler) {
  Fixture f;
  f.debugger->run_to(0x1007);
  f.debugger->step_over();
  EXPECT_EQ(f.state().eip, 0x1009u);
  EXPECT_EQ(f.state().gpr[ESP], 0x8000u);
}

TEST(DebuggerStep, StepIntoIntNStopsAtTheHandler) {
  Fixture f;
  f.debugger->run_to(0x1007);
  f.debugger->step_into();
  EXPECT_EQ(f.state().eip, 0x103Cu);
  EXPECT_EQ(f.state().gpr[ESP], 0x8000u - 6);  // FLAGS, CS, IP
}

TEST(DebuggerStep, StepOverRunsARepStringInstructionToTheEnd) {
  Fixture f;
  const u8 source[] = {1, 2, 3, 4, 5, 6};
  f.machine->bus.load(0x3000, source);
  EXPECT_EQ(f.debugger->run_to(0x1012).kind, StopKind::Step);
  f.debugger->step_over();
  EXPECT_EQ(f.state().eip, 0x1014u);
  EXPECT_EQ(f.state().gpr[ECX] & 0xFFFF, 0u);
  EXPECT_EQ(f.machine->bus.peek(0x3104), 5);
  EXPECT_EQ(f.machine->bus.peek(0x3105), 0);  // CX = 5 bytes only
}

TEST(DebuggerStep, StepOutReturnsToTheCaller) {
  Fixture f;
  f.debugger->step_into();
  f.debugger->step_into();  // at func (1036h)
  f.debugger->step_into();  // push ax: deeper than at entry
  EXPECT_EQ(f.debugger->step_out().kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x1006u);
  EXPECT_EQ(f.state().gpr[ESP], 0x8000u);
}

TEST(DebuggerStep, RunToStopsAtTheLinearAddress) {
  Fixture f;
  const StopInfo stop = f.debugger->run_to(0x101B);
  EXPECT_EQ(stop.kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x101Bu);
  EXPECT_EQ(f.state().gpr[EBX] & 0xFFFF, 2u);
}

TEST(DebuggerRun, RunWithoutBreakpointsEndsWithTheMachine) {
  Fixture f;
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::MachineEnded);
  EXPECT_EQ(stop.end->reason, RunResult::Reason::Halted);
  EXPECT_EQ(f.state().eip, 0x1036u);  // after the HLT at 1035h
  EXPECT_TRUE(f.debugger->ended());
  EXPECT_EQ(f.debugger->run().kind, StopKind::MachineEnded);  // at once
}

TEST(DebuggerRun, MaxStepsPausesAfterThatManySteps) {
  Fixture f;
  EXPECT_EQ(f.debugger->run(3).kind, StopKind::Paused);
  EXPECT_EQ(f.state().eip, 0x1037u);  // mov ax,1; call; push ax
}

TEST(DebuggerRun, ResetPutsTheCpuAtTheResetVector) {
  Fixture f;
  f.debugger->run();
  f.debugger->reset();
  EXPECT_FALSE(f.debugger->ended());
  EXPECT_EQ(f.state().eip, 0xFFF0u);
  EXPECT_EQ(f.state().segments[CS].selector, 0xF000);
  EXPECT_EQ(f.debugger->pc_linear(), 0xFFFFFFF0u);
}

TEST(DebuggerRun, PauseFromAnotherThreadStopsARunningMachine) {
  const u8 spin[] = {0xEB, 0xFE};  // 1000 jmp $
  Fixture f(spin);
  std::atomic<bool> stopped{false};
  std::thread pauser([&] {
    while (!stopped.load()) {
      f.debugger->pause();
      std::this_thread::yield();
    }
  });
  const StopInfo stop = f.debugger->run();
  stopped = true;
  pauser.join();
  EXPECT_EQ(stop.kind, StopKind::Paused);
  EXPECT_EQ(f.state().eip, 0x1000u);
}

// With --realtime a halted guest waits for wall time to catch up with the virtual
// clock at each HLT; a pause from another thread (gdb's Ctrl-C) must cut that wait
// short instead of waiting for the end of the slice. Here the PIT ticks every 10 ms
// (11932 counts of 1.193182 MHz), so the 4096 steps of one slice (about six steps a
// tick: HLT, the delivery, the handler's three instructions, JMP) would take about
// 6.8 s of wall time; the pause comes after 50 ms.
TEST(DebuggerRun, PauseCutsARealtimeWaitOfAHaltedGuestShort) {
  const u8 idle[] = {
      0xB0, 0x34, 0xE6, 0x43,  // 1000 mov al, 34h; out 43h, al  (channel 0, lobyte/hibyte, mode 2)
      0xB0, 0x9C, 0xE6, 0x40,  // 1004 mov al, 9Ch; out 40h, al
      0xB0, 0x2E, 0xE6, 0x40,  // 1008 mov al, 2Eh; out 40h, al  (11932)
      0xB0, 0x11, 0xE6, 0x20,  // 100C ICW1: edge, cascade, ICW4
      0xB0, 0x08, 0xE6, 0x21,  // 1010 ICW2: vectors 08h-0Fh
      0xB0, 0x04, 0xE6, 0x21,  // 1014 ICW3
      0xB0, 0x01, 0xE6, 0x21,  // 1018 ICW4: 8086 mode
      0xB0, 0xFE, 0xE6, 0x21,  // 101C OCW1: IRQ0 only
      0xFB,                    // 1020 sti
      0xF4,                    // 1021 idle: hlt
      0xEB, 0xFD,              // 1022 jmp idle
      0xB0, 0x20, 0xE6, 0x20,  // 1024 handler: mov al, 20h; out 20h, al (EOI)
      0xCF,                    // 1028 iret
  };
  Fixture f(idle, /*realtime=*/true);
  const u8 vector8[] = {0x24, 0x10, 0x00, 0x00};
  f.machine->bus.load(0x08 * 4, vector8);
  std::thread pauser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    f.debugger->pause();
  });
  const StopInfo stop = f.debugger->run();
  pauser.join();
  EXPECT_EQ(stop.kind, StopKind::Paused);
  EXPECT_LT(f.machine->cpu.steps(), Debugger::kSliceSteps);  // 4096 or more without the cut
  EXPECT_GT(f.machine->cpu.steps(), 17u);                    // past the set-up: it idled
  EXPECT_GE(f.state().eip, 0x1021u);
}

TEST(DebuggerBreakpoint, LinearBreakpointStopsBeforeTheInstruction) {
  Fixture f;
  const u32 id = f.breakpoints().add(Breakpoint::at_linear(0x1014));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Breakpoint);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(stop.hit->address, 0x1014u);
  EXPECT_EQ(f.state().eip, 0x1014u);
  EXPECT_EQ(f.machine->bus.peek(0x2000), 0);  // not executed yet
  EXPECT_EQ(f.breakpoints().find(id)->hits, 1u);
}

TEST(DebuggerBreakpoint, CsEipBreakpointMatchesSelectorAndOffset) {
  Fixture f;
  f.breakpoints().add(Breakpoint::at_cs_eip(0x0008, 0x1017));  // other CS: never
  const u32 id = f.breakpoints().add(Breakpoint::at_cs_eip(0x0000, 0x1017));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Breakpoint);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(f.state().eip, 0x1017u);
}

TEST(DebuggerBreakpoint, ContinuingFromABreakpointPassesItOnceAndConditionsFilter) {
  Fixture f;
  const u32 id = f.breakpoints().add(Breakpoint::at_linear(0x1032));  // dec cx, CX = 4, 3, 2, 1
  f.debugger->run();
  EXPECT_EQ(f.state().gpr[ECX], 4u);
  f.debugger->run();
  EXPECT_EQ(f.state().gpr[ECX], 3u);
  f.breakpoints().set_condition(id, parse_condition("ecx&0xFFFF==1"));
  const StopInfo stop = f.debugger->run();
  EXPECT_EQ(stop.kind, StopKind::Breakpoint);
  EXPECT_EQ(f.state().gpr[ECX], 1u);
  EXPECT_EQ(f.breakpoints().find(id)->hits, 3u);
}

TEST(DebuggerBreakpoint, StepOverStopsAtABreakpointInsideTheCall) {
  Fixture f;
  f.debugger->step_into();
  f.breakpoints().add(Breakpoint::at_linear(0x103A));
  EXPECT_EQ(f.debugger->step_over().kind, StopKind::Breakpoint);
  EXPECT_EQ(f.state().eip, 0x103Au);
}

TEST(DebuggerBreakpoint, SoftwareInterruptVectorStopsAtTheHandler) {
  Fixture f;
  f.breakpoints().add(Breakpoint::on_vector(0x40, 0x40, kSourceSoftware));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->kind, BreakpointKind::Vector);
  EXPECT_EQ(stop.hit->address, 0x40u);
  EXPECT_EQ(stop.hit->eip, 0x1009u);  // the return EIP pushed
  EXPECT_EQ(f.state().eip, 0x103Cu);
}

TEST(DebuggerBreakpoint, ExceptionVectorStopsAtTheHandlerOnlyForExceptions) {
  // 1000 xor bl,bl; 1002 div bl (#DE); 1004 hlt; 1005 handler: add sp,6; 1008 hlt
  const u8 program[] = {0x30, 0xDB, 0xF6, 0xF3, 0xF4, 0x83, 0xC4, 0x06, 0xF4};
  Fixture f(program);
  const u8 vector0[] = {0x05, 0x10, 0x00, 0x00};
  f.machine->bus.load(0, vector0);
  f.breakpoints().add(Breakpoint::on_vector(0, 0, kSourceSoftware));  // INT 0 only: no hit
  const u32 id = f.breakpoints().add(Breakpoint::on_vector(0, 31, kSourceException));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(stop.hit->address, 0u);
  EXPECT_EQ(stop.hit->eip, 0x1002u);  // a fault pushes the faulting instruction
  EXPECT_EQ(f.state().eip, 0x1005u);
}

TEST(DebuggerBreakpoint, SegmentLoadAndSelectorBreakpointsStopAfterTheLoad) {
  Fixture f;
  f.breakpoints().add(Breakpoint::on_segment_load(DS));
  StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->address, 0x50u);
  EXPECT_EQ(stop.hit->reg, DS);
  EXPECT_EQ(stop.hit->eip, 0x1029u);
  EXPECT_EQ(f.state().eip, 0x102Bu);
  EXPECT_EQ(f.state().segments[DS].cache.base, 0x500u);
  stop = f.debugger->run();
  EXPECT_EQ(stop.hit->address, 0u);
  EXPECT_EQ(f.state().eip, 0x102Fu);

  Fixture g;
  g.breakpoints().add(Breakpoint::on_selector(0x50, 0xFFFF));
  g.debugger->run();
  EXPECT_EQ(g.state().eip, 0x102Bu);
  EXPECT_EQ(g.debugger->run().kind, StopKind::MachineEnded);  // selector 0 does not match
}

TEST(DebuggerBreakpoint, LockedAccessBreakpointsNameTheAccessKind) {
  Fixture f;
  f.breakpoints().add(Breakpoint::on_locked(AccessKind::LockPrefix));
  f.breakpoints().add(Breakpoint::on_locked(AccessKind::XchgMemory));
  StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->access, AccessKind::XchgMemory);
  EXPECT_EQ(stop.hit->eip, 0x101Du);
  EXPECT_EQ(f.state().eip, 0x1021u);
  stop = f.debugger->run();
  EXPECT_EQ(stop.hit->access, AccessKind::LockPrefix);
  EXPECT_EQ(f.state().eip, 0x1026u);
}

TEST(DebuggerBreakpoint, DescriptorTableWriteMatchesTheEntry) {
  Fixture f;
  f.state().gdtr = {0x2000, 0x17};  // entries 0-2 at 2000h
  f.breakpoints().add(Breakpoint::on_descriptor_write(DescriptorTable::Gdt, 1));  // 2008h-200Fh: never written
  const u32 id = f.breakpoints().add(Breakpoint::on_descriptor_write(DescriptorTable::Gdt, 0));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(stop.hit->address, 0x2000u);
  EXPECT_EQ(f.state().eip, 0x1017u);
}

// Issue 39: Linux 6.1 writes gdt_page through the direct map while GDTR holds its
// fixmap alias. Here 4 MiB pages map linear 0 and 400000h to physical 0; GDTR holds
// the alias 402000h and the program writes the table through linear 2000h.
TEST(DebuggerBreakpoint, DescriptorTableWriteMatchesThePhysicalBytesThroughAnyAlias) {
  Fixture f;
  const u8 pde[] = {0x83, 0x00, 0x00, 0x00, 0x83, 0x00, 0x00, 0x00};
  f.machine->bus.load(0x8000, pde);
  CpuState& s = f.state();
  s.cr4 |= cr4::PSE;
  s.cr3 = 0x8000;
  s.cr0 |= cr0::PE | cr0::PG;
  s.gdtr = {0x402000, 0x17};  // entries 0-2 at physical 2000h
  s.eip = 0x1014;             // mov [0x2000], ax (the INT 40h before it would need an IDT now)
  f.machine->cpu.sync_paging();
  f.breakpoints().add(Breakpoint::on_descriptor_write(DescriptorTable::Gdt, 1));  // 2008h-200Fh: never written
  const u32 id = f.breakpoints().add(Breakpoint::on_descriptor_write(DescriptorTable::Gdt, 0));
  EXPECT_NE(f.breakpoints().find(id)->describe().find("gdt entry 0 (its physical bytes, through any linear alias)"),
            std::string::npos);
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(stop.hit->address, 0x2000u);  // the linear address the write used
  EXPECT_EQ(stop.hit->physical, 0x2000u);
  EXPECT_EQ(f.state().eip, 0x1017u);

  // The same table with its alias page not present: no table bytes, no stop for them
  // (the xchg and lock inc at 2004h-2007h write entry 0 through linear 0).
  Fixture g;
  const u8 pde_low_only[] = {0x83, 0x00, 0x00, 0x00};
  g.machine->bus.load(0x8000, pde_low_only);
  g.state().cr4 |= cr4::PSE;
  g.state().cr3 = 0x8000;
  g.state().cr0 |= cr0::PE | cr0::PG;
  g.state().gdtr = {0x402000, 0x17};
  g.state().eip = 0x1014;
  g.machine->cpu.sync_paging();
  g.breakpoints().add(Breakpoint::on_descriptor_write(DescriptorTable::Gdt));
  EXPECT_NE(g.debugger->run().kind, StopKind::Event);
}

TEST(DebuggerBreakpoint, IoPortBreakpointReportsPortAndValue) {
  Fixture f;
  f.breakpoints().add(Breakpoint::on_port(0x80, 0x80, WatchAccess::Read));  // OUT is no read
  f.breakpoints().add(Breakpoint::on_port(0x70, 0x80, WatchAccess::Write));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->address, 0x80u);
  EXPECT_TRUE(stop.hit->write);
  EXPECT_EQ(stop.hit->value, 2u);  // AL
  EXPECT_EQ(f.state().eip, 0x101Du);
}

TEST(DebuggerWatch, WriteWatchpointStopsAfterTheWritingInstruction) {
  Fixture f;
  f.breakpoints().add(Breakpoint::watch_range(0x2001, 1, WatchAccess::Write));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->address, 0x2000u);  // the access: 2 bytes at 2000h
  EXPECT_EQ(stop.hit->size, 2);
  EXPECT_EQ(stop.hit->value, 2u);
  EXPECT_EQ(stop.hit->eip, 0x1014u);
  EXPECT_EQ(f.state().eip, 0x1017u);
}

TEST(DebuggerWatch, ReadAndAccessWatchpoints) {
  Fixture f;
  f.breakpoints().add(Breakpoint::watch_range(0x2000, 2, WatchAccess::Read));
  f.debugger->run();
  EXPECT_EQ(f.state().eip, 0x101Bu);  // after mov bx,[2000h], not after the write
  EXPECT_EQ(f.state().gpr[EBX], 2u);

  Fixture g;
  g.breakpoints().add(Breakpoint::watch_range(0x2006, 2, WatchAccess::Access));
  const StopInfo stop = g.debugger->run();  // lock inc: a locked read-modify-write
  EXPECT_EQ(stop.hit->access, AccessKind::LockPrefix);
  EXPECT_EQ(g.state().eip, 0x1026u);
}

TEST(DebuggerWatch, PhysicalWatchpointSeesThroughPaging) {
  Fixture f;
  // A page directory at 8000h with 4 MiB pages: linear 0 and 400000h both map physical 0.
  const u8 pde[] = {0x83, 0x00, 0x00, 0x00, 0x83, 0x00, 0x00, 0x00};
  f.machine->bus.load(0x8000, pde);
  CpuState& s = f.state();
  s.cr4 |= cr4::PSE;
  s.cr3 = 0x8000;
  s.cr0 |= cr0::PE | cr0::PG;
  s.segments[DS].cache.base = 0x400000;
  s.eip = 0x1014;  // mov [0x2000], ax (the INT 40h before it would need an IDT now)
  f.machine->cpu.sync_paging();
  f.breakpoints().add(Breakpoint::watch_range(0x2000, 2, WatchAccess::Write));  // linear 2000h: not written
  const u32 id = f.breakpoints().add(Breakpoint::watch_range(0x2000, 2, WatchAccess::Write, true));
  const StopInfo stop = f.debugger->run();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(stop.hit->address, 0x402000u);
  EXPECT_EQ(stop.hit->physical, 0x2000u);
}

TEST(DebuggerMemory, DisplayReadsSetNoAccessedBitAndWalkNoTables) {
  Fixture f;
  const u8 pde[] = {0x03, 0x90, 0x00, 0x00};  // page table at 9000h, not yet accessed
  const u8 pte[] = {0x03, 0x10, 0x00, 0x00};  // linear 0 -> physical 1000h
  f.machine->bus.load(0x8000, pde);
  f.machine->bus.load(0x9000, pte);
  CpuState& s = f.state();
  s.cr3 = 0x8000;
  s.cr0 |= cr0::PE | cr0::PG;
  f.machine->cpu.sync_paging();
  const u64 walks = f.machine->counters.page_walks;
  std::array<u8, 4> bytes{};
  EXPECT_EQ(f.debugger->read_linear(0x0000, bytes), 4u);
  EXPECT_EQ(bytes[0], 0xB8);  // the program's first byte, through the page table
  EXPECT_EQ(f.debugger->read_linear(0x0FFE, bytes), 2u);  // the next page is not present
  EXPECT_EQ(f.machine->bus.peek(0x8000), 0x03);  // no Accessed bit
  EXPECT_EQ(f.machine->bus.peek(0x9000), 0x03);
  EXPECT_EQ(f.machine->counters.page_walks, walks);
  const u8 patch[] = {0x90};
  EXPECT_EQ(f.debugger->write_linear(0x0001, patch), 1u);
  EXPECT_EQ(f.machine->bus.peek(0x1001), 0x90);
}

TEST(DebuggerHistory, HistoryKeepsRetiredInstructionsAndDeliveries) {
  Fixture f;
  f.debugger->enable_history(true);
  f.debugger->run_to(0x1009);
  const auto& history = f.debugger->history();
  std::vector<u32> eips;
  for (const HistoryEntry& entry : history) eips.push_back(entry.vector >= 0 ? 0xFFFF0000u | entry.vector : entry.eip);
  // mov, call, push, mov, pop, ret, inc, (delivery 40h), int 40h, iret: an event an
  // instruction causes is recorded before the instruction retires.
  const std::vector<u32> expected = {0x1000, 0x1003, 0x1036, 0x1037, 0x103A, 0x103B, 0x1006, 0xFFFF0040, 0x1007, 0x103C};
  EXPECT_EQ(eips, expected);
  EXPECT_EQ(history.back().mnemonic, "IRET");
  EXPECT_EQ(history.front().length, 3);
  EXPECT_EQ(history.front().bytes[0], 0xB8);
}

}  // namespace
}  // namespace x86lab
