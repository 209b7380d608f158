// The debugger's bounded slices (Debugger::begin_* and continue_for, the GUI's way to
// step over, step out and run to without blocking a frame): the same stops as the
// blocking forms however the steps are split, "still running" while the budget runs
// out, and pause() ending an operation that would never stop by itself. Expected EIPs
// and instruction counts come from the programs' listings (debugger_fixture.h).
#include <gtest/gtest.h>

#include "tests/platform/debugger_fixture.h"

namespace x86lab {
namespace {

using debugger_test::Fixture;

// bits 16, org 0x1000:
constexpr u8 kNeverReturns[] = {
    0xB8, 0x01, 0x00,  // 1000 mov ax, 1
    0xE8, 0x0A, 0x00,  // 1003 call spin (1010)
    0x40,              // 1006 inc ax
    0xF4,              // 1007 hlt
    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
    0xEB, 0xFE,        // 1010 spin: jmp spin
};

// Runs the operation begun in slices of `slice` steps; every slice but the last must
// report "still running". Returns the last stop; `slices` counts the calls.
StopInfo run_in_slices(Debugger& debugger, u64 slice, int& slices) {
  StopInfo stop;
  for (slices = 1; slices < 10000; ++slices) {
    stop = debugger.continue_for(slice);
    if (!debugger.operation_running()) return stop;
    EXPECT_EQ(stop.kind, StopKind::Paused);
  }
  ADD_FAILURE() << "the operation did not stop";
  return stop;
}

TEST(DebuggerSlices, StepOverACallThatReturnsStopsAfterItOneStepPerSlice) {
  Fixture f;
  f.debugger->step_into();  // at 1003 call func
  const u64 before = f.machine->counters.instructions;
  f.debugger->begin_step_over();
  EXPECT_TRUE(f.debugger->operation_running());
  EXPECT_EQ(f.machine->counters.instructions, before);  // begin_* executes nothing
  int slices = 0;
  const StopInfo stop = run_in_slices(*f.debugger, 1, slices);
  EXPECT_EQ(stop.kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x1006u);
  EXPECT_EQ(f.state().gpr[ESP], 0x8000u);
  EXPECT_EQ(f.state().gpr[EAX] & 0xFFFF, 1u);
  // call, push ax, mov ax 2, pop ax, ret: five instructions, one per slice, and a last
  // slice that finds EIP at the return address before executing anything.
  EXPECT_EQ(f.machine->counters.instructions - before, 5u);
  EXPECT_EQ(slices, 6);
  EXPECT_EQ(f.debugger->last_stop().kind, StopKind::Step);
}

TEST(DebuggerSlices, StepOverACallThatNeverReturnsRunsOnUntilPaused) {
  Fixture f(kNeverReturns);
  f.debugger->step_into();  // at 1003 call spin
  f.debugger->begin_step_over();
  for (int frame = 0; frame < 20; ++frame) {
    const StopInfo stop = f.debugger->continue_for(1000);
    ASSERT_EQ(stop.kind, StopKind::Paused);
    ASSERT_TRUE(f.debugger->operation_running());
  }
  EXPECT_EQ(f.state().eip, 0x1010u);
  EXPECT_EQ(f.machine->counters.instructions, 1u + 20 * 1000);  // mov, then every budget used up
  f.debugger->pause();
  const StopInfo stop = f.debugger->continue_for(1000);
  EXPECT_EQ(stop.kind, StopKind::Paused);
  EXPECT_FALSE(f.debugger->operation_running());
  EXPECT_EQ(f.machine->counters.instructions, 1u + 20 * 1000);  // the pause came before any step
  // The machine is usable afterwards; without an operation continue_for does nothing.
  EXPECT_EQ(f.debugger->continue_for(1000).kind, StopKind::Paused);
  EXPECT_EQ(f.machine->counters.instructions, 1u + 20 * 1000);
  EXPECT_EQ(f.debugger->step_into().kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x1010u);
}

TEST(DebuggerSlices, CancelEndsAnOperationWhereTheLastSliceLeftIt) {
  Fixture f(kNeverReturns);
  f.debugger->step_into();
  f.debugger->begin_step_over();
  f.debugger->continue_for(7);
  f.debugger->cancel_operation();
  EXPECT_FALSE(f.debugger->operation_running());
  EXPECT_EQ(f.machine->counters.instructions, 8u);
  EXPECT_EQ(f.state().eip, 0x1010u);
  EXPECT_EQ(f.state().gpr[ESP], 0x7FFEu);  // inside the call: the return address 1006h pushed
}

TEST(DebuggerSlices, StepOutInSlicesReturnsToTheCaller) {
  Fixture f;
  f.debugger->step_into();
  f.debugger->step_into();  // at func (1036h)
  f.debugger->step_into();  // push ax: deeper than at entry
  f.debugger->begin_step_out();
  int slices = 0;
  const StopInfo stop = run_in_slices(*f.debugger, 1, slices);
  EXPECT_EQ(stop.kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x1006u);
  EXPECT_EQ(f.state().gpr[ESP], 0x8000u);
  EXPECT_EQ(f.machine->counters.instructions, 6u);  // mov, call, push, mov ax 2, pop, ret
}

TEST(DebuggerSlices, RunToGivesTheSameMachineWhateverTheSliceSize) {
  Fixture whole;
  ASSERT_EQ(whole.debugger->run_to(0x101B).kind, StopKind::Step);
  for (const u64 slice : {1u, 2u, 3u, 1000u}) {
    Fixture f;
    f.debugger->begin_run_to(0x101B);
    int slices = 0;
    const StopInfo stop = run_in_slices(*f.debugger, slice, slices);
    EXPECT_EQ(stop.kind, StopKind::Step) << slice;
    EXPECT_EQ(f.state().eip, 0x101Bu) << slice;
    EXPECT_EQ(f.state().gpr[EBX] & 0xFFFF, 2u) << slice;
    EXPECT_EQ(f.machine->counters.instructions, whole.machine->counters.instructions) << slice;
    EXPECT_EQ(f.machine->cpu.clock().cycles(), whole.machine->cpu.clock().cycles()) << slice;
  }
}

TEST(DebuggerSlices, ACodeBreakpointAtASliceBoundaryStopsTheRun) {
  // One step per slice: the run reaches 1009h (after int 40h returns) at the start of a
  // slice; only the run's very first instruction may pass over a breakpoint.
  Fixture f;
  const u32 id = f.breakpoints().add(Breakpoint::at_linear(0x1009));
  f.debugger->begin_run();
  int slices = 0;
  const StopInfo stop = run_in_slices(*f.debugger, 1, slices);
  ASSERT_EQ(stop.kind, StopKind::Breakpoint);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(f.state().eip, 0x1009u);
  // mov, call, push, mov, pop, ret, inc, int 40h, iret
  EXPECT_EQ(f.machine->counters.instructions, 9u);
}

TEST(DebuggerSlices, ARunBoundedInStepsEndsPausedWhenTheyAreUsed) {
  Fixture f(kNeverReturns);
  f.debugger->begin_run(10);
  int slices = 0;
  const StopInfo stop = run_in_slices(*f.debugger, 3, slices);
  EXPECT_EQ(stop.kind, StopKind::Paused);
  EXPECT_EQ(f.machine->counters.instructions, 10u);
  EXPECT_EQ(slices, 4);  // 3 + 3 + 3 + 1
}

}  // namespace
}  // namespace x86lab
