// Debugger execution control and hooks (see debugger.h).
#include "platform/debugger/debugger.h"

#include <algorithm>
#include <cstdio>

#include "cpu/decoder.h"

namespace x86lab {

namespace {

std::string hex(u32 value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%0*X", digits, value);
  return buffer;
}

}  // namespace

bool Debugger::decode_at_pc(Instruction& insn) const {
  std::array<u8, kMaxInstructionBytes> bytes{};
  const std::size_t got = read_linear(pc_linear(), bytes);
  return got != 0 && decode_bytes(bytes.data(), static_cast<unsigned>(got), machine_.cpu.state.segments[CS].cache.db, insn) &&
         insn.form;
}

// The debugger's hooks: the CPU's step monitor (code breakpoints, step modes, counted
// breakpoints) and the tracer tap (event breakpoints, watchpoints, history).
class Debugger::Hooks final : public StepMonitor, public TraceSink {
 public:
  explicit Hooks(Debugger& debugger) : d_(debugger), own_tracer_(none_filter(), TraceTriggers{}) {}

  Mode mode = Mode::Run;
  u32 target = 0;               // RunTo/StepOver: linear address to stop at
  u32 stack0 = 0;               // StepOver/StepOut: stack pointer when the step began
  u64 resume_step = 0;          // Cpu::steps() when the run began: code breakpoints skip it
  bool returned = false;        // StepOut: the RET-family instruction has been reached
  bool counted = false;         // match_counts is armed
  std::optional<StopInfo> stop;  // a stop found by a hook

  // A new operation: its first instruction passes over a code breakpoint.
  void begin(Cpu& cpu) {
    returned = false;
    stack0 = cpu.stack_pointer();
    resume(cpu);
    resume_step = cpu.steps();
  }
  // Another slice of the operation: every instruction, the first too, meets the breakpoints.
  void resume(Cpu& cpu) {
    stop.reset();
    resume_step = UINT64_MAX;
    counts_ = CountSnapshot::of(cpu.counters());
    last_cs_ = cpu.state.segments[CS].selector;
    last_eip_ = cpu.state.eip;
  }

  // Installs the tap on the machine's tracer, or on a tracer of our own that passes
  // no event to any sink; false removes it.
  void set_tap(Cpu& cpu, bool on) {
    if (on) {
      if (!cpu.tracer()) cpu.set_tracer(&own_tracer_);
      cpu.tracer()->set_tap(this);
    } else if (cpu.tracer()) {
      cpu.tracer()->set_tap(nullptr);
      if (cpu.tracer() == &own_tracer_) cpu.set_tracer(nullptr);
    }
  }

  void before_step() override {
    Cpu& cpu = d_.machine_.cpu;
    if (stop) return;  // a hook already asked for the pause
    if (counted) {
      const CountSnapshot now = CountSnapshot::of(cpu.counters());
      if (auto hit = d_.breakpoints_.match_counts(counts_, now, cpu.state)) {
        hit->cs = last_cs_;
        hit->eip = last_eip_;
        return request({StopKind::Event, hit, std::nullopt});
      }
      counts_ = now;
    }
    last_cs_ = cpu.state.segments[CS].selector;
    last_eip_ = cpu.state.eip;
    const bool first = cpu.steps() == resume_step;
    if (mode == Mode::StepOut) {
      if (returned) return request({StopKind::Step, std::nullopt, std::nullopt});
      // A return (its table row's kReturn) at or above the starting stack level.
      Instruction insn;
      returned = d_.decode_at_pc(insn) && (insn.form->attributes & kReturn) && cpu.stack_pointer() >= stack0;
    }
    if (first) return;
    if (auto hit = d_.breakpoints_.match_code(cpu.state)) return request({StopKind::Breakpoint, hit, std::nullopt});
    if ((mode == Mode::RunTo || mode == Mode::StepOver) && d_.pc_linear() == target &&
        (mode == Mode::RunTo || cpu.stack_pointer() >= stack0))
      request({StopKind::Step, std::nullopt, std::nullopt});
  }

  void write(const Event& event) override {
    Cpu& cpu = d_.machine_.cpu;
    if (d_.history_on_) note_history(event);
    // A vector breakpoint stops after the delivery that reached its handler. Another
    // delivery event in the same step (the pause takes effect at the step's end) means
    // the one that hit failed: a fault during it became #DF, was delivered serially, or
    // shut the processor down. Its stop is withdrawn; the new event may stop instead.
    if (stop && event.kind == EventKind::Exception && stop->hit && stop->hit->kind == BreakpointKind::Vector)
      stop.reset();
    if (stop || event.kind == EventKind::Instruction) return;
    if (auto hit = d_.breakpoints_.match_event(event, cpu.state)) {
      if (hit->kind != BreakpointKind::Vector) {
        hit->cs = cpu.state.segments[CS].selector;
        hit->eip = cpu.instruction_eip();
      }
      request({StopKind::Event, hit, std::nullopt});
    }
  }
  void finish() override {}

 private:
  static TraceFilter none_filter() {
    TraceFilter filter;
    filter.kinds.reset();
    return filter;
  }
  void request(StopInfo info) {
    stop = std::move(info);
    d_.machine_.request_pause();
  }
  void note_history(const Event& event) {
    HistoryEntry entry;
    entry.instruction = event.instruction;
    if (event.kind == EventKind::Instruction) {
      entry.cs = static_cast<u16>(event.a);
      entry.eip = event.b;
      entry.linear = event.c;
      entry.length = event.size;
      entry.cpl = event.detail;
      entry.bytes = event.bytes;
      entry.mnemonic = event.text;
    } else if (event.kind == EventKind::Exception && !(event.flags & kEventShutdown)) {
      entry.cs = static_cast<u16>(event.b);
      entry.eip = event.c;
      entry.linear = d_.machine_.cpu.state.segments[CS].cache.base + event.c;
      entry.cpl = d_.machine_.cpu.state.cpl;
      entry.mnemonic = "delivery";
      entry.vector = event.detail;
    } else {
      return;
    }
    d_.record(entry);
  }

  Debugger& d_;
  Tracer own_tracer_;
  CountSnapshot counts_;
  u16 last_cs_ = 0;
  u32 last_eip_ = 0;
};

std::string StopInfo::describe() const {
  switch (kind) {
    case StopKind::Paused: return "paused";
    case StopKind::Step: return "step done";
    case StopKind::HistoryBegin: return "reached the start of the recorded history";
    case StopKind::MachineEnded: {
      static constexpr const char* kReasons[] = {"exit port", "halted", "halted with no interrupt that could wake it",
                                                 "instruction limit", "shutdown (triple fault)", "stopped", "paused"};
      return std::string("machine ended: ") + (end ? kReasons[static_cast<int>(end->reason)] : "?") + ", exit status " +
             std::to_string(end ? end->exit_status : 0);
    }
    case StopKind::Breakpoint:
    case StopKind::Event: break;
  }
  if (!hit) return "stopped";
  const BreakpointHit& h = *hit;
  std::string text = std::string(kind == StopKind::Breakpoint ? "breakpoint " : "event breakpoint ") +
                     std::to_string(h.id) + " (" + std::string(name_of(h.kind)) + ")";
  switch (h.kind) {
    case BreakpointKind::Vector:
      text += " vector " + std::to_string(h.address);
      if (h.has_error_code) text += " error code " + hex(static_cast<u32>(h.value), 4) + "h";
      break;
    case BreakpointKind::SegmentLoad:
    case BreakpointKind::Selector: text += " selector " + hex(h.address, 4) + "h"; break;
    case BreakpointKind::LockedAccess:
      text += ' ';
      text += name_of(h.access);
      break;
    case BreakpointKind::IoPort:
      text += std::string(h.write ? " write" : " read") + " port " + hex(h.address, 4) + "h value " +
              hex(static_cast<u32>(h.value), 2 * h.size) + "h";
      break;
    case BreakpointKind::Watch:
    case BreakpointKind::DescriptorWrite:
      text += std::string(h.write ? " write" : " read") + " at linear " + hex(h.address, 8) + "h (physical " +
              hex(h.physical, 8) + "h, " + std::to_string(h.size) + " bytes, " + std::string(name_of(h.access)) +
              ") value " + hex(static_cast<u32>(h.value), 2 * h.size) + "h";
      break;
    default: break;
  }
  return text + " at " + hex(h.cs, 4) + ":" + hex(h.eip, 8);
}

Debugger::Debugger(Machine& machine, std::size_t history_capacity)
    : machine_(machine), hooks_(std::make_unique<Hooks>(*this)), history_(history_capacity) {
  machine_.set_pace_interrupt(&pause_requested_);  // a pause cuts a --realtime wait short
}

Debugger::~Debugger() {
  disarm();
  machine_.set_pace_interrupt(nullptr);
}

void Debugger::enable_history(bool on) {
  history_on_ = on && history_.capacity() > 0;
  if (!on) history_.clear();
}

void Debugger::set_recorder(Tracer* recorder, u64 tail_steps, std::function<void()> gap) {
  disarm();
  recorder_ = recorder;
  recorder_tail_ = tail_steps;
  gap_ = std::move(gap);
}

void Debugger::arm() {
  Cpu& cpu = machine_.cpu;
  hooks_->counted = breakpoints_.has_counted();
  const bool monitor = hooks_->mode != Mode::Run || breakpoints_.has_code() || hooks_->counted;
  if (recorder_ && !cpu.tracer()) cpu.set_tracer(recorder_);
  cpu.set_step_monitor(monitor ? hooks_.get() : nullptr);
  hooks_->set_tap(cpu, history_on_ || breakpoints_.has_events());
}

void Debugger::disarm() {
  Cpu& cpu = machine_.cpu;
  cpu.set_step_monitor(nullptr);
  hooks_->set_tap(cpu, false);
  if (recorder_ && cpu.tracer() == recorder_) cpu.set_tracer(nullptr);
}

// Disarmed, so a tracer still attached is another's (the machine's --trace files).
u64 Debugger::observed_tail() const {
  const bool monitor = hooks_->mode != Mode::Run || breakpoints_.has_code() || breakpoints_.has_counted();
  if (monitor || breakpoints_.has_events() || machine_.cpu.tracer()) return UINT64_MAX;
  u64 tail = recorder_ ? recorder_tail_ : 0;
  if (history_on_) tail = std::max<u64>(tail, history_.capacity());
  return tail;
}

StopInfo Debugger::finish(StopInfo stop) {
  last_stop_ = stop;
  return stop;
}

void Debugger::begin(Mode mode, u32 target, u64 steps, bool step) {
  hooks_->mode = mode;
  hooks_->target = target;
  hooks_->begin(machine_.cpu);
  operation_ = Operation{steps, step};
  begun_ = true;
}

// The steps before the recorders' tail run unobserved: only the tail's could make a
// hook stop the slice (observed_tail), and what the guest computes is the same either way.
StopInfo Debugger::run_slice(u64 max_steps, bool& budget_out) {
  Cpu& cpu = machine_.cpu;
  if (!begun_) hooks_->resume(cpu);
  begun_ = false;
  const u64 tail = observed_tail();
  bool observing = false, gap = false;
  StopInfo result;
  budget_out = false;
  u64 left = max_steps;
  for (;;) {
    capture_if_due();
    if (pause_requested_.exchange(false, std::memory_order_relaxed)) {
      result = {StopKind::Paused, std::nullopt, std::nullopt};
      break;
    }
    if (left == 0) {
      budget_out = true;
      result = {StopKind::Paused, std::nullopt, std::nullopt};
      break;
    }
    const bool observe = left <= tail;
    if (observe && !observing) arm();
    observing = observe;
    const u64 before = cpu.steps();
    u64 chunk = observe ? std::min(left, kSliceSteps) : left - tail;
    if (snapshots_) chunk = std::min(chunk, snapshots_->next_due() - before);  // > 0: just captured
    const RunResult run = machine_.run_for(chunk);
    const u64 ran = cpu.steps() - before;
    left -= std::min(left, ran);
    if (!observe && ran && !gap) {
      gap = true;
      history_.clear();
      if (gap_) gap_();
    }
    if (hooks_->stop) {
      result = *hooks_->stop;
      break;
    }
    if (run.reason != RunResult::Reason::Paused) {
      ended_ = run;
      result = {StopKind::MachineEnded, std::nullopt, run};
      break;
    }
  }
  disarm();
  return result;
}

StopInfo Debugger::continue_for(u64 max_steps) {
  if (!operation_) return last_stop_;
  if (ended_) {
    operation_.reset();
    return finish({StopKind::MachineEnded, std::nullopt, ended_});
  }
  Operation& operation = *operation_;
  const u64 before = machine_.cpu.steps();
  bool budget_out = false;
  StopInfo stop = run_slice(std::min(max_steps, operation.steps_left), budget_out);
  if (operation.steps_left != UINT64_MAX) operation.steps_left -= std::min(operation.steps_left, machine_.cpu.steps() - before);
  if (budget_out && operation.steps_left > 0) return finish(stop);  // still running
  if (budget_out && operation.step) stop.kind = StopKind::Step;
  operation_.reset();
  hooks_->mode = Mode::Run;
  return finish(stop);
}

// (Here, beside the hooks it drives; the rest of reverse execution is in reverse.cpp.)
std::optional<Debugger::FoundStop> Debugger::last_stop_before(u64 end, bool& paused) {
  Cpu& cpu = machine_.cpu;
  std::optional<FoundStop> found;
  hooks_->mode = Mode::Run;
  begun_ = false;  // the first slice meets a code breakpoint at the snapshot's step too
  // One step past `end`: a segment load or locked access seen through the counters
  // stops at the next step boundary's check (Breakpoints::match_counts), so one in the
  // step before `end` is found only there. Stops at or after `end` are not kept.
  while (cpu.steps() <= end) {
    bool budget_out = false;
    const StopInfo stop = run_slice(end + 1 - cpu.steps(), budget_out);
    if (budget_out || stop.kind == StopKind::MachineEnded) break;
    if (stop.kind == StopKind::Paused) {
      paused = true;
      break;
    }
    // A code breakpoint stops before its instruction; an event after the instruction
    // or delivery that caused it, and going backwards the machine stops before that.
    const bool code = stop.kind == StopKind::Breakpoint;
    const u64 at = code ? cpu.steps() : cpu.steps() - 1;
    if (at < end) found = FoundStop{at, stop};
    if (code) {
      hooks_->begin(cpu);  // pass over it
      begun_ = true;
    }
  }
  return found;
}

void Debugger::begin_run(u64 max_steps) { begin(Mode::Run, 0, max_steps, false); }

void Debugger::begin_step_over() {
  Instruction insn;
  // An instruction that cannot be decoded here is stepped into (it faults when executed).
  if (!decode_at_pc(insn)) return begin(Mode::Run, 0, 1, true);
  // Calls and interrupts (the row's kCall) and REP string instructions run to the next
  // instruction; anything else is one step.
  const bool call = insn.form->attributes & kCall;
  const bool rep_string = insn.rep && (insn.form->attributes & kStringOp);
  if (!call && !rep_string) return begin(Mode::Run, 0, 1, true);
  begin(Mode::StepOver, pc_linear() + insn.length, UINT64_MAX, false);
}

void Debugger::begin_step_out() { begin(Mode::StepOut, 0, UINT64_MAX, false); }

void Debugger::begin_run_to(u32 linear) { begin(Mode::RunTo, linear, UINT64_MAX, false); }

StopInfo Debugger::run(u64 max_steps) {
  begin_run(max_steps);
  return continue_for(UINT64_MAX);
}

StopInfo Debugger::step_into(u64 count) {
  begin(Mode::Run, 0, count, true);
  return continue_for(UINT64_MAX);
}

StopInfo Debugger::step_over() {
  begin_step_over();
  return continue_for(UINT64_MAX);
}

StopInfo Debugger::step_out() {
  begin_step_out();
  return continue_for(UINT64_MAX);
}

StopInfo Debugger::run_to(u32 linear) {
  begin_run_to(linear);
  return continue_for(UINT64_MAX);
}

void Debugger::reset() {
  machine_.reset_cpu();
  state_changed();
  ended_.reset();
  last_stop_ = {};
}

u32 Debugger::pc_linear() const {
  const CpuState& state = machine_.cpu.state;
  return state.segments[CS].cache.base + state.eip;
}

std::size_t Debugger::read_linear(u32 linear, std::span<u8> out) const {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto byte = machine_.mmu.peek_linear(linear + static_cast<u32>(i));
    if (!byte) return i;
    out[i] = *byte;
  }
  return out.size();
}

std::size_t Debugger::write_linear(u32 linear, std::span<const u8> bytes) {
  state_changed();
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (!machine_.mmu.poke_linear(linear + static_cast<u32>(i), bytes[i])) return i;
  return bytes.size();
}

void Debugger::read_physical(u32 physical, std::span<u8> out) const {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = machine_.bus.peek(physical + static_cast<u32>(i));
}

void Debugger::write_physical(u32 physical, std::span<const u8> bytes) {
  state_changed();
  for (std::size_t i = 0; i < bytes.size(); ++i) machine_.bus.poke(physical + static_cast<u32>(i), bytes[i]);
}

}  // namespace x86lab
