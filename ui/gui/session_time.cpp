// The session in time (session.h "Going back in time", timeline.h): reverse execution
// on the session's snapshot history, the Timeline's marks, and snapshot files.
#include <algorithm>

#include "platform/input_error.h"
#include "platform/snapshot/machine_state.h"
#include "trace/events.h"
#include "ui/gui/session.h"

namespace x86lab::gui {

void TimelineSink::write(const Event& event) {
  const u64 step = cpu_.steps();
  switch (event.kind) {
    case EventKind::Exception: {
      const auto delivery = events::from_event<events::Exception>(event);
      if (delivery.source == 0) timeline_.marks.insert({step, TimelineMarkKind::Fault});  // EventSource 0: an exception
      break;
    }
    case EventKind::TaskSwitch: timeline_.marks.insert({step, TimelineMarkKind::TaskSwitch}); break;
    case EventKind::ControlRegister: {
      // CR0.PE (bit 0) and CR0.PG (bit 31) select the operating mode (SDM Vol. 3A
      // "Modes of Operation", "CR0").
      const auto write = events::from_event<events::ControlRegister>(event);
      if (write.which == 0 && ((write.old_value ^ write.new_value) & 0x80000001u))
        timeline_.marks.insert({step, TimelineMarkKind::ModeChange});
      break;
    }
    default: break;
  }
}

void Session::require_history() const {
  if (!snapshots_) throw InputError("going back needs the snapshot history (--history-mib is 0)");
}

void Session::after_jump() {
  trace_->clear();  // its events were of the steps left behind
  timeline_->furthest = std::max(timeline_->furthest, machine_->cpu.steps());
}

StopInfo Session::step_back(u64 count) {
  require_history();
  begin_execution();
  StopInfo stop = debugger_->last_stop();
  for (u64 i = 0; i < count; ++i) {
    stop = debugger_->reverse_step();
    if (stop.kind != StopKind::Step) break;
  }
  after_jump();
  return stop;
}

StopInfo Session::run_back() {
  require_history();
  begin_execution();
  const StopInfo stop = debugger_->reverse_continue();
  after_jump();
  return stop;
}

bool Session::go_to_step(u64 step) {
  require_history();
  begin_execution();
  const bool moved = debugger_->go_to_step(step);
  after_jump();
  return moved;
}

SavedSnapshot Session::save_snapshot(const std::string& path) {
  debugger_->cancel_operation();
  return save_machine_snapshot(*machine_, path);
}

void Session::load_snapshot(const std::string& path) {
  if (options_.fixed_machine) throw InputError("gdb is served on this machine (--gdb): no snapshot can be loaded");
  const MachineState state = read_snapshot_file(path);
  try {
    check_machine_state(*machine_, state);  // refused here, with the machine unchanged
  } catch (const InputError& error) {
    throw InputError("snapshot '" + path + "': " + error.what());
  }
  begin_execution();
  Breakpoints breakpoints = debugger_->breakpoints();
  breakpoints.clear_hits();
  serial_.clear();
  const CpuState before = previous_;
  const ApicSnapshot apic_before = previous_apic_;
  MachineConfig config = config_;
  config.bios = state.bios;
  build(config);
  restore_machine_state(*machine_, state);
  // The history starts at the loaded step (its first snapshot), the timeline there too.
  if (snapshots_) snapshots_->clear();
  timeline_->clear();
  timeline_->furthest = machine_->cpu.steps();
  trace_->clear();
  debugger_->breakpoints() = std::move(breakpoints);
  previous_ = before;
  previous_apic_ = apic_before;
}

}  // namespace x86lab::gui
