// The debugger: execution control (run, pause, step into/over/out, run to), breakpoints
// on code, events and data, an instruction history ring and stop reasons, kept apart
// from any window or protocol (DESIGN.md section 6; the GUI and the gdb stub in ui/
// both drive it). Hooks: Cpu::StepMonitor for code breakpoints and step modes (armed
// only while needed, so the run loop's fast path stays one attention check), and a
// Tracer tap for event breakpoints, watchpoints and the history (events are produced
// only while one of those is armed). What records for people (the history, a
// recorder such as the GUI's Trace ring) sees only the last steps of a slice when
// nothing else observes every step, so the rest of the slice runs on the fast path
// (Cpu::run's linked run, docs/performance.md).
//
// Threading: one thread runs the machine and calls every function here; pause() alone
// may be called from any thread or a signal handler (an atomic flag the run loop polls
// between slices of kSliceSteps steps, and the CPU's signal stop, which ends the
// slice at the next instruction boundary; a pause is the only input that depends on
// when it comes, so the machine stays deterministic otherwise). A frame loop that must not
// block runs the same operations in bounded slices (begin_* and continue_for).
#pragma once
#include <atomic>
#include <boost/circular_buffer.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "platform/debugger/breakpoints.h"
#include "platform/machine.h"
#include "platform/snapshot/history.h"

namespace x86lab {

// Why the debugger stopped, and what hit.
enum class StopKind : u8 {
  Paused,           // pause() from another thread, or a budget of steps ran out (run(max_steps))
  Step,             // a step mode (into, over, out) or run_to finished
  Breakpoint,       // a code breakpoint (BreakpointKind::Linear or CsEip): CS:EIP is the instruction, not executed
  Event,            // an event breakpoint or a watchpoint: stopped after the instruction (or delivery) that hit
  MachineEnded,     // the machine's run ended (exit port, halt, shutdown, limit): see StopInfo::end
  HistoryBegin,     // reverse execution reached the first snapshot of the history (reverse.cpp)
};

struct StopInfo {
  StopKind kind = StopKind::Paused;
  std::optional<BreakpointHit> hit;  // Breakpoint and Event: which breakpoint and the event's values
  std::optional<RunResult> end;      // MachineEnded: how the machine's run ended
  // One line for people: "breakpoint 2 at 0008:00101234", "watchpoint 3 write at linear 00105000 (4 bytes)".
  std::string describe() const;
};

// One executed instruction or event delivery, oldest first in Debugger::history().
struct HistoryEntry {
  u64 instruction = 0;         // Counters::instructions when it started
  u16 cs = 0;                  // CS selector
  u32 eip = 0;                 // offset in CS
  u32 linear = 0;              // CS.base + EIP
  u8 length = 0;               // bytes (0 for a delivery)
  u8 cpl = 0;
  std::array<u8, 15> bytes{};  // the instruction's bytes as fetched
  std::string_view mnemonic;   // the instruction's mnemonic; for a delivery "delivery"
  i16 vector = -1;             // a delivery's vector, else -1
};

class Debugger {
 public:
  // Steps between polls of pause() while running: a pause (gdb's Ctrl-C) stops the
  // machine within this many steps of being asked for. A step is one instruction, or a
  // batch of at most 1024 iterations of a REP string instruction, so the bound is at
  // most ~4 million string iterations (tens of milliseconds); a slice costs about as
  // much as a few instructions (tests/gdb/gdb_latency_test.cpp, docs/gdb.md).
  static constexpr u64 kSliceSteps = 1u << 12;

  // Attaches to `machine` (which must outlive the debugger). `history_capacity`
  // entries (0: no history) are kept while history is enabled.
  explicit Debugger(Machine& machine, std::size_t history_capacity = 1024);
  ~Debugger();
  Debugger(const Debugger&) = delete;
  Debugger& operator=(const Debugger&) = delete;

  Machine& machine() { return machine_; }
  const Machine& machine() const { return machine_; }

  // ---- execution control (the machine's thread) ----
  // Runs until a breakpoint, a pause() or the end of the machine's run; with
  // `max_steps`, at most that many steps (instructions and deliveries) and then
  // StopKind::Paused. A code breakpoint at the current CS:EIP is passed over once.
  StopInfo run(u64 max_steps = UINT64_MAX);
  // Executes `count` steps (instructions; a delivery of a pending interrupt takes an
  // instruction's place: a step then stops at the handler's first instruction), as
  // `count` calls of Cpu::step would, and stops with StopKind::Step; a breakpoint met
  // after the first step stops it there (as gdb's `stepi N`), and so does the end of
  // the machine's run.
  StopInfo step_into(u64 count = 1);
  // As step_into, but CALL, INT n/INT3/INTO and a REP/REPE/REPNE string instruction
  // run to the instruction after them (same CS, ESP back at or above its value now).
  // Breakpoints hit on the way stop it.
  StopInfo step_over();
  // Runs until a RET/RETF/IRET executed at a stack depth at or above the current one
  // has returned (the end of the current function); stops on breakpoints on the way.
  StopInfo step_out();
  // Runs until CS.base + EIP == `linear` (or a breakpoint).
  StopInfo run_to(u32 linear);

  // ---- the same operations in bounded slices (a frame loop that must never block) ----
  // begin_* arms an operation without executing anything; continue_for() then runs it
  // for at most `max_steps` steps (instructions and deliveries) at a time. Stopping
  // rules, breakpoints and results are those of the blocking forms above, which are
  // begin_* followed by one unbounded continue_for(); how the steps are split into
  // slices never changes what the guest computes or where the operation stops (a code
  // breakpoint at a slice boundary stops it; only the operation's first instruction
  // passes over one). Beginning an operation abandons one still running.
  void begin_run(u64 max_steps = UINT64_MAX);
  void begin_step_over();
  void begin_step_out();
  void begin_run_to(u32 linear);
  // Whether an operation has begun and not yet stopped.
  bool operation_running() const { return operation_.has_value(); }
  // Runs the operation on. StopKind::Paused with operation_running() still true: the
  // budget of this call ran out ("still running"). Any other result, or a pause()
  // (StopKind::Paused, operation_running() false), ends the operation. Without an
  // operation, returns last_stop() at once.
  StopInfo continue_for(u64 max_steps);
  // Ends the running operation where the last slice left the machine (the GUI's Pause).
  void cancel_operation() { operation_.reset(); }
  // Resets the CPU and its local APIC (Machine::reset_cpu) and clears the stop state; RAM and devices keep their
  // state; breakpoints stay.
  void reset();
  // Asks a running run()/step to stop at the next instruction boundary or REP batch
  // (any thread, async-signal-safe: Machine::pause_from_any_thread), or at once from a
  // --realtime wait for wall time (Machine::set_pace_interrupt). A pause
  // asked for while nothing runs stops the next run before its first step, unless
  // clear_pause() drops it.
  void pause() { Machine::pause_from_any_thread(pause_requested_, machine_.cpu); }
  void clear_pause() { pause_requested_.store(false, std::memory_order_relaxed); }
  // The last stop (Paused before the first run).
  const StopInfo& last_stop() const { return last_stop_; }
  // Whether the machine's run has ended (exit port, shutdown...): further runs return at once.
  bool ended() const { return ended_.has_value(); }

  // ---- breakpoints (breakpoints.h); ids are never reused ----
  Breakpoints& breakpoints() { return breakpoints_; }
  const Breakpoints& breakpoints() const { return breakpoints_; }

  // ---- recording ----
  // The history (below) and `recorder`, a tracer whose sinks keep what ran for people
  // (the GUI's Trace ring; null for none; not owned, attached to the CPU only while a
  // slice records), see every step while something observes every step anyway (a
  // code or event breakpoint, step over, step out, run to, another tracer attached to
  // the CPU); otherwise only the last `tail_steps` steps of each slice an operation
  // runs (continue_for; the history: its capacity), and the steps before them run
  // unobserved on the fast path. `gap` (may be empty) is called when steps ran
  // unrecorded, before any later step is recorded: what the recorder's sinks hold no
  // longer leads up to the current state (the history is emptied then too). What the
  // guest computes never depends on what was recorded.
  void set_recorder(Tracer* recorder, u64 tail_steps, std::function<void()> gap);
  // ---- history ----
  void enable_history(bool on);
  bool history_enabled() const { return history_on_; }
  const boost::circular_buffer<HistoryEntry>& history() const { return history_; }

  // ---- reverse execution (reverse.cpp; docs/gdb.md "Reverse execution") ----
  // Attaches a history of snapshots (null: none, the default): while the debugger runs
  // the machine it captures a snapshot whenever one is due, and the operations below
  // use it. `history` must outlive the debugger or be detached first.
  void set_snapshot_history(SnapshotHistory* history) { snapshots_ = history; }
  SnapshotHistory* snapshot_history() const { return snapshots_; }
  // The machine's position on the timeline: Cpu::steps() (instructions and deliveries
  // since the machine was built or reset).
  u64 position() const { return machine_.cpu.steps(); }
  // Puts the machine where it was (or will be) at step `target`: restores the latest
  // snapshot at or before it when `target` lies behind or a snapshot lies between,
  // then runs forward to `target` with no breakpoint armed. Everything observable
  // (registers, memory, devices, counters) equals the uninterrupted run's at `target`.
  // False, changing nothing, when `target` lies before the history (or there is none
  // and `target` is behind). Forward, it stops early where the machine's run ends or at
  // a pause().
  bool go_to_step(u64 target);
  // One step back: to position() - 1 (StopKind::Step), or StopKind::HistoryBegin at
  // the start of the history.
  StopInfo reverse_step();
  // Back to the latest point before position() where a forward run would have stopped:
  // a code breakpoint (the machine at that instruction, StopKind::Breakpoint), or an
  // event breakpoint or watchpoint (the machine before the instruction or delivery that
  // hit, StopKind::Event: gdb's reverse watchpoint semantics). None: the start of the
  // history, StopKind::HistoryBegin. A pause() during the search stops it where it is
  // (StopKind::Paused). Breakpoints' hit counts are those from before the search.
  StopInfo reverse_continue();
  // The machine's state was changed from outside (a register or memory write, a
  // reset): the recorded future is dropped.
  void state_changed();

  // ---- display reads and debugger writes: no A/D bits, no TLB fill, no device reads ----
  // Linear address of the next instruction (CS.base + EIP).
  u32 pc_linear() const;
  // Copies `out.size()` bytes from linear memory (through paging as the CPU would
  // translate now); returns how many were read before the first unmapped page.
  std::size_t read_linear(u32 linear, std::span<u8> out) const;
  // Decodes the instruction at CS:EIP without side effects; false when its bytes cannot
  // be read or decoded (the table rows give its attributes: kCall, kReturn, kStringOp).
  bool decode_at_pc(Instruction& insn) const;
  // Writes linear memory (dropping decoded code of the pages written); returns how many
  // bytes were written before the first unmapped page.
  std::size_t write_linear(u32 linear, std::span<const u8> bytes);
  void read_physical(u32 physical, std::span<u8> out) const;
  void write_physical(u32 physical, std::span<const u8> bytes);

 private:
  class Hooks;
  friend class Hooks;
  enum class Mode : u8 { Run, StepOver, StepOut, RunTo };
  // An operation begun and not yet stopped.
  struct Operation {
    u64 steps_left;  // the operation's own bound (run(max_steps); 1 for a step into)
    bool step;       // reaching the bound is StopKind::Step (step into), not Paused
  };
  void begin(Mode mode, u32 target, u64 steps, bool step);
  // Runs at most `max_steps` steps of the operation's mode; `budget_out` tells whether
  // it stopped only because they were used.
  StopInfo run_slice(u64 max_steps, bool& budget_out);
  StopInfo finish(StopInfo stop);
  // Arms the monitor, the tap and the recorder as the observed steps of a slice need them.
  void arm();
  void disarm();
  // Steps at the end of a slice that must be observed (the recorders' tail), or
  // UINT64_MAX when every step must.
  u64 observed_tail() const;
  void record(const HistoryEntry& entry) { history_.push_back(entry); }
  // Runs forward to step `target` with nothing armed, capturing snapshots when due.
  void replay_to(u64 target);
  // Captures a snapshot into the history if one is due.
  void capture_if_due() {
    if (snapshots_ && snapshots_->due(machine_.cpu.steps())) snapshots_->capture(machine_);
  }
  // Restores `state` (a snapshot of the history) into the machine.
  void restore(const MachineState& state);
  // From the restored snapshot at position() to step `end`, with the breakpoints armed:
  // the latest stop found before `end` and where it puts the machine (reverse.cpp).
  struct FoundStop {
    u64 position;
    StopInfo stop;
  };
  std::optional<FoundStop> last_stop_before(u64 end, bool& paused);

  Machine& machine_;
  Breakpoints breakpoints_;
  std::unique_ptr<Hooks> hooks_;
  boost::circular_buffer<HistoryEntry> history_;
  bool history_on_ = false;
  Tracer* recorder_ = nullptr;
  u64 recorder_tail_ = 0;
  std::function<void()> gap_;
  std::atomic<bool> pause_requested_{false};
  StopInfo last_stop_;
  std::optional<RunResult> ended_;
  std::optional<Operation> operation_;
  bool begun_ = false;  // the next slice is the operation's first
  SnapshotHistory* snapshots_ = nullptr;
};

}  // namespace x86lab
