// The inspector's steps on the fast path (issue 27): `step N` and Run leave the state
// and counters of `x86lab run --max-instructions N` (a Machine run to that limit), and
// the Trace ring and the history, recorded only for the last steps, hold exactly the
// last events of a run traced from its start (what `x86lab run --trace text:` writes).
#include <gtest/gtest.h>

#include <sstream>

#include "ui/gui/session.h"

namespace x86lab::gui {
namespace {

// timer_kernel.elf: 8254 interrupts through the 8259A, HLT between them, port I/O in
// its loops, about 49,000 steps to its exit port.
MachineConfig timer_kernel() {
  MachineConfig config;
  config.memory_mib = 4;
  config.kernel.kernel_path = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";
  return config;
}

SessionOptions session_options(const MachineConfig& config) {
  SessionOptions options;
  options.config = config;
  options.scenarios = "/nonexistent";
  return options;
}

// The --stats text of a machine.
std::string stats(const Machine& machine) {
  std::ostringstream out;
  machine.counters.print(out, machine.cpu.clock().cycles());
  return out.str();
}

void expect_same_state(const Machine& a, const Machine& b) {
  const CpuState &x = a.cpu.state, &y = b.cpu.state;
  EXPECT_EQ(x.eip, y.eip);
  EXPECT_EQ(x.gpr, y.gpr);
  EXPECT_EQ(x.eflags, y.eflags);
  for (unsigned s = 0; s < 6; ++s) {
    EXPECT_EQ(x.segments[s].selector, y.segments[s].selector) << "segment " << s;
    EXPECT_EQ(x.segments[s].cache.base, y.segments[s].cache.base) << "segment " << s;
  }
  EXPECT_EQ(x.cr0, y.cr0);
  EXPECT_EQ(x.cr3, y.cr3);
  EXPECT_EQ(x.cpl, y.cpl);
  EXPECT_EQ(x.halted, y.halted);
  EXPECT_EQ(a.cpu.steps(), b.cpu.steps());
  EXPECT_EQ(a.counters.instructions, b.counters.instructions);
  EXPECT_EQ(stats(a), stats(b));
}

std::vector<std::string> lines_of(const TraceRing& ring) {
  std::vector<std::string> lines;
  for (const Event& event : ring.events()) lines.push_back(format_event(event));
  return lines;
}

// The machine of `x86lab run --max-instructions N --trace text:...`, traced from its
// first step into a ring as large as the session's, with a debugger keeping the
// history of every step (the tracer is attached for the whole run).
struct Reference {
  explicit Reference(u64 steps) : machine(with_limit(steps)) {
    auto sink = std::make_unique<TraceRing>(4096, &machine.cpu.state);
    ring = sink.get();
    auto tracer = std::make_unique<Tracer>(TraceFilter{}, TraceTriggers{});
    tracer->add_sink(std::move(sink));
    machine.attach_tracer(std::move(tracer));
    debugger.enable_history(true);
    debugger.run();
  }
  static MachineConfig with_limit(u64 steps) {
    MachineConfig config = timer_kernel();
    config.max_instructions = steps;
    return config;
  }
  Machine machine;
  TraceRing* ring = nullptr;
  Debugger debugger{machine};
};

TEST(GuiFastStep, StepNLeavesTheStateCountersTraceAndHistoryOfARunOfNSteps) {
  // Before the first interrupt, among the interrupts and HLTs, and one step short of
  // the ring's tail (everything recorded).
  for (const u64 n : {u64{30000}, u64{45000}, u64{4095}}) {
    SCOPED_TRACE(n);
    Session session(session_options(timer_kernel()));
    session.debugger().enable_history(true);
    const StopInfo stop = session.step_into(n);
    EXPECT_EQ(stop.kind, StopKind::Step);
    const Reference reference(n);
    expect_same_state(session.machine(), reference.machine);
    const std::vector<std::string> recorded = lines_of(session.trace()), traced = lines_of(*reference.ring);
    EXPECT_EQ(recorded.size(), 4096u);
    EXPECT_EQ(recorded, traced);
    const auto& history = session.debugger().history();
    const auto& all = reference.debugger.history();
    ASSERT_EQ(history.size(), all.size());
    for (std::size_t i = 0; i < history.size(); ++i) {
      EXPECT_EQ(history[i].instruction, all[i].instruction) << i;
      EXPECT_EQ(history[i].linear, all[i].linear) << i;
      EXPECT_EQ(history[i].bytes, all[i].bytes) << i;
      EXPECT_EQ(history[i].vector, all[i].vector) << i;
    }
  }
}

// The steps before the tail ran without a tracer (the linked run of Cpu::run): the
// ring's tracer saw only the last 4096 steps' events, where a run traced throughout
// gives several per step for all 45,000.
TEST(GuiFastStep, OnlyTheTailOfAStepNIsTraced) {
  Session session(session_options(timer_kernel()));
  session.step_into(45000);
  ASSERT_NE(session.recorder(), nullptr);
  const Reference reference(45000);
  EXPECT_GT(reference.machine.cpu.tracer()->emitted(), 45000u);
  EXPECT_LT(session.recorder()->emitted(), reference.machine.cpu.tracer()->emitted() / 4);
  EXPECT_EQ(session.machine().cpu.tracer(), nullptr);  // attached only while it records
}

// Frames of any size (the slices of Running adapt to wall time) end the run where a
// run without slices ends it: the exit port, with the same state and counters.
TEST(GuiFastStep, RunningInSlicesOfAnySizeEndsAsOneRun) {
  const Reference reference(UINT64_MAX);
  ASSERT_TRUE(reference.debugger.ended());
  for (const u64 slice : {u64{1000}, u64{5000}, u64{1} << 23}) {
    SCOPED_TRACE(slice);
    SessionOptions options = session_options(timer_kernel());
    options.max_slice_steps = slice;
    Session session(std::move(options));
    session.apply({CommandKind::Run});
    for (int frame = 0; frame < 100000 && session.run_state() == RunState::Running; ++frame) session.tick(1e-9);
    EXPECT_EQ(session.run_state(), RunState::Ended);
    expect_same_state(session.machine(), reference.machine);
  }
}

// Breakpoints turn the fast path off and stop where a traced run stops: an event
// breakpoint on IRQ 0's vector (20h after the kernel's PIC remap) right after the
// delivery, a code breakpoint before the instruction.
TEST(GuiFastStep, BreakpointsStopWhereATracedRunStops) {
  Session session(session_options(timer_kernel()));
  session.apply({CommandKind::AddBreakpoint, 0, false, {}, "vector 32"});
  ASSERT_EQ(session.message(), "");
  const StopInfo stop = session.run();
  EXPECT_EQ(stop.kind, StopKind::Event);
  Machine traced(timer_kernel());
  traced.attach_tracer(std::make_unique<Tracer>(TraceFilter{}, TraceTriggers{}));
  Debugger debugger(traced);
  debugger.breakpoints().add(Breakpoint::on_vector(32, 32));
  EXPECT_EQ(debugger.run().kind, StopKind::Event);
  expect_same_state(session.machine(), traced);

  const u32 eip = session.machine().cpu.state.eip;  // the handler's first instruction
  session.debugger().breakpoints().clear();
  session.toggle_breakpoint(session.machine().cpu.state.segments[CS].cache.base + eip);
  EXPECT_EQ(session.run().kind, StopKind::Breakpoint);  // the next IRQ 0
  debugger.breakpoints().clear();
  debugger.breakpoints().add(Breakpoint::at_linear(traced.cpu.state.segments[CS].cache.base + eip));
  EXPECT_EQ(debugger.run().kind, StopKind::Breakpoint);
  expect_same_state(session.machine(), traced);
  EXPECT_EQ(session.machine().cpu.state.eip, eip);
}

}  // namespace
}  // namespace x86lab::gui
