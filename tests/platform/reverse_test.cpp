// Reverse execution (platform/debugger/reverse.cpp) and the snapshot history
// (platform/snapshot/history.h) on the debugger tests' real-mode program
// (debugger_fixture.h, whose nasm listing gives the EIPs and values): the machine put
// back at step t equals a fresh machine run forward to t, section by section and page
// by page; reverse continue stops where the listing says the breakpoint, watchpoint or
// segment load is; the history keeps to its budget and still goes back exactly.
#include <gtest/gtest.h>

#include "tests/platform/debugger_fixture.h"

namespace x86lab {
namespace {

using debugger_test::Fixture;
using debugger_test::everything;


// A fixture with a history of snapshots every `interval` steps.
struct ReverseFixture : Fixture {
  SnapshotHistory history;
  explicit ReverseFixture(u64 interval, u64 budget_bytes = u64{64} << 20) : history(budget_bytes, interval) {
    debugger->set_snapshot_history(&history);
  }
};

// The state of a fresh machine after `steps` steps.
std::vector<u8> fresh_at(u64 steps) {
  Fixture f;
  if (steps) f.debugger->run(steps);
  EXPECT_EQ(f.machine->cpu.steps(), steps);
  return everything(*f.machine);
}

TEST(ReverseExecution, GoingBackToEveryStepEqualsAFreshRunToIt) {
  ReverseFixture f(4);
  EXPECT_EQ(f.debugger->run().kind, StopKind::MachineEnded);  // the HLT with IF = 0
  const u64 end = f.debugger->position();
  ASSERT_GT(end, 20u);
  EXPECT_EQ(f.history.first_step(), 0u);
  EXPECT_GT(f.history.size(), 4u);
  for (u64 t = end - 1; t + 1 > 0; --t) {
    ASSERT_TRUE(f.debugger->go_to_step(t));
    ASSERT_EQ(f.debugger->position(), t);
    EXPECT_EQ(everything(*f.machine), fresh_at(t)) << "at step " << t;
  }
  // And forward again from the start: the same end.
  EXPECT_EQ(f.debugger->run().kind, StopKind::MachineEnded);
  EXPECT_EQ(f.debugger->position(), end);
}

TEST(ReverseExecution, ReverseStepAfterThreeStepsEqualsTheSecondStep) {
  ReverseFixture f(1000);
  f.debugger->step_into();
  f.debugger->step_into();
  const std::vector<u8> second = everything(*f.machine);
  EXPECT_EQ(f.state().eip, 0x1036u);  // in func, after mov ax, 1 and call func
  f.debugger->step_into();
  EXPECT_EQ(f.state().eip, 0x1037u);  // push ax
  EXPECT_EQ(f.debugger->reverse_step().kind, StopKind::Step);
  EXPECT_EQ(f.state().eip, 0x1036u);
  EXPECT_EQ(f.state().gpr[ESP], 0x7FFEu);
  EXPECT_EQ(everything(*f.machine), second);
  f.debugger->reverse_step();
  EXPECT_EQ(f.state().eip, 0x1003u);
  f.debugger->reverse_step();
  EXPECT_EQ(f.state().eip, 0x1000u);
  EXPECT_EQ(f.debugger->reverse_step().kind, StopKind::HistoryBegin);  // step 0: the first snapshot
  EXPECT_EQ(f.state().eip, 0x1000u);
}

TEST(ReverseExecution, ReverseContinueStopsAtTheLastCodeBreakpointPassed) {
  ReverseFixture f(5);
  const u32 id = f.breakpoints().add(Breakpoint::at_linear(0x1017));  // mov bx, [0x2000]
  EXPECT_EQ(f.debugger->run().kind, StopKind::Breakpoint);
  const u64 at_breakpoint = f.debugger->position();
  EXPECT_EQ(f.debugger->run().kind, StopKind::MachineEnded);
  const StopInfo stop = f.debugger->reverse_continue();
  ASSERT_EQ(stop.kind, StopKind::Breakpoint);
  EXPECT_EQ(stop.hit->id, id);
  EXPECT_EQ(f.state().eip, 0x1017u);
  EXPECT_EQ(f.debugger->position(), at_breakpoint);
  EXPECT_EQ(f.breakpoints().find(id)->hits, 1u);  // the search's hits are not counted
  // From the breakpoint itself: nothing earlier, so the start of the history.
  EXPECT_EQ(f.debugger->reverse_continue().kind, StopKind::HistoryBegin);
  EXPECT_EQ(f.debugger->position(), 0u);
  EXPECT_EQ(f.state().eip, 0x1000u);
}

TEST(ReverseExecution, AReverseWatchpointStopsBeforeTheWritingInstruction) {
  ReverseFixture f(3);
  EXPECT_EQ(f.debugger->run().kind, StopKind::MachineEnded);
  f.breakpoints().add(Breakpoint::watch_range(0x2000, 2, WatchAccess::Write));
  const StopInfo stop = f.debugger->reverse_continue();
  ASSERT_EQ(stop.kind, StopKind::Event);
  EXPECT_EQ(stop.hit->kind, BreakpointKind::Watch);
  EXPECT_EQ(f.state().eip, 0x1014u);         // mov [0x2000], ax: not executed yet
  EXPECT_EQ(f.machine->bus.peek(0x2000), 0);  // the old value; AX = 2 (1 + inc) is written by it
  EXPECT_EQ(f.state().gpr[EAX] & 0xFFFF, 2u);
  f.debugger->step_into();
  EXPECT_EQ(f.machine->bus.peek(0x2000), 2);
}

TEST(ReverseExecution, ReverseContinueStopsAtSegmentLoadsNewestFirst) {
  ReverseFixture f(2);
  EXPECT_EQ(f.debugger->run().kind, StopKind::MachineEnded);
  f.breakpoints().add(Breakpoint::on_segment_load(DS));
  EXPECT_EQ(f.debugger->reverse_continue().kind, StopKind::Event);
  EXPECT_EQ(f.state().eip, 0x102Du);  // mov ds, dx with DX = 0
  EXPECT_EQ(f.state().segments[DS].selector, 0x50u);
  EXPECT_EQ(f.debugger->reverse_continue().kind, StopKind::Event);
  EXPECT_EQ(f.state().eip, 0x1029u);  // mov ds, dx with DX = 50h
  EXPECT_EQ(f.state().segments[DS].selector, 0u);
  EXPECT_EQ(f.debugger->reverse_continue().kind, StopKind::HistoryBegin);
}

TEST(ReverseExecution, AChangedStateDropsTheRecordedFuture) {
  ReverseFixture f(2);
  f.debugger->run();
  const std::size_t all = f.history.size();
  f.debugger->go_to_step(5);
  const u8 byte = 7;
  f.debugger->write_physical(0x3000, std::span(&byte, 1));
  EXPECT_LT(f.history.size(), all);
  EXPECT_LE(f.history.last_step(), 4u);
}

// A loop that changes one RAM page on every pass.
constexpr u8 kLoop[] = {
    0xFE, 0x06, 0x00, 0x20,  // 1000 inc byte [0x2000]
    0xEB, 0xFA,              // 1004 jmp 1000
};

TEST(SnapshotHistory, KeepsToItsBudgetWithTheFirstAndTheNewestAndThinsTheOldPast) {
  constexpr u64 kInterval = 30;
  Fixture probe(kLoop);
  SnapshotHistory one(u64{1} << 30, kInterval);
  one.capture(*probe.machine);
  const u64 each = one.bytes() / 2;  // a snapshot's own bytes (about half are RAM pages shared with the next)
  const u64 budget = 12 * each;
  Fixture f(kLoop);
  SnapshotHistory history(budget, kInterval);
  f.debugger->set_snapshot_history(&history);
  f.debugger->run(30000);  // 1000 intervals
  EXPECT_LE(history.bytes(), budget);
  const std::vector<u64> steps = history.steps();
  ASSERT_GE(steps.size(), 4u);
  EXPECT_EQ(steps.front(), 0u);                   // the start of the history
  EXPECT_EQ(steps.back(), 30000u);               // the newest
  EXPECT_EQ(steps[steps.size() - 1] - steps[steps.size() - 2], kInterval);  // the recent past dense
  EXPECT_GT(steps[2] - steps[1], 20 * kInterval);  // the old past sparse
  // Going back into the thinned past is still exact.
  for (u64 t : {u64{0}, u64{1}, u64{777}, u64{13337}, u64{29999}}) {
    ASSERT_TRUE(f.debugger->go_to_step(t));
    Fixture fresh(kLoop);
    if (t) fresh.debugger->run(t);
    EXPECT_EQ(everything(*f.machine), everything(*fresh.machine)) << "at step " << t;
  }
}

}  // namespace
}  // namespace x86lab
