// Reverse execution on the snapshot history (debugger.h "reverse execution",
// platform/snapshot/history.h): going back is restoring a snapshot and running forward
// the exact number of steps, which the machine's determinism makes identical to the
// first time; a reverse continue replays the intervals between snapshots, newest
// first, with the breakpoints armed and keeps the last stop of the first interval that
// has one.
#include <algorithm>

#include "platform/debugger/debugger.h"

namespace x86lab {

namespace {
// Going back this far or more from a periodic snapshot leaves one more snapshot a few
// steps before the target, so that the next steps back (gdb's reverse-step and
// reverse-next step back one instruction at a time) replay little (assumption: a
// capture of a 64 MiB guest costs about as much as replaying this many steps).
constexpr u64 kNearSnapshotDistance = u64{1} << 20;
constexpr u64 kNearSnapshotLead = u64{1} << 12;
}  // namespace

void Debugger::restore(const MachineState& state) {
  restore_machine_state(machine_, state);
  ended_.reset();
  history_.clear();  // the instructions it showed are the abandoned future
}

void Debugger::replay_to(u64 target) {
  disarm();
  Cpu& cpu = machine_.cpu;
  const u64 start = cpu.steps();
  // A long replay backwards leaves a snapshot shortly before the target.
  const u64 near = target - start >= kNearSnapshotDistance ? target - kNearSnapshotLead : UINT64_MAX;
  while (cpu.steps() < target) {
    capture_if_due();
    const u64 before = cpu.steps();
    if (before == near && snapshots_) snapshots_->capture(machine_);
    u64 chunk = target - before;
    if (snapshots_) chunk = std::min(chunk, snapshots_->next_due() - before);
    if (before < near) chunk = std::min(chunk, near - before);
    const RunResult run = machine_.run_for(chunk);
    if (run.reason != RunResult::Reason::Paused) {
      ended_ = run;
      last_stop_ = {StopKind::MachineEnded, std::nullopt, run};
      return;
    }
    if (cpu.steps() == before && pause_requested_.load(std::memory_order_relaxed)) return;  // a --realtime wait cut short
  }
  capture_if_due();
}

bool Debugger::go_to_step(u64 target) {
  operation_.reset();
  const u64 now = position();
  const MachineState* from = snapshots_ ? snapshots_->at_or_before(target) : nullptr;
  if (target < now && !from) return false;
  if (from && (target < now || from->steps > now)) restore(*from);
  replay_to(target);
  if (!ended_) last_stop_ = {StopKind::Step, std::nullopt, std::nullopt};
  return true;
}

StopInfo Debugger::reverse_step() {
  const u64 now = position();
  if (!snapshots_ || snapshots_->empty() || now <= snapshots_->first_step() || !go_to_step(now - 1))
    return finish({StopKind::HistoryBegin, std::nullopt, std::nullopt});
  return finish({StopKind::Step, std::nullopt, std::nullopt});
}

StopInfo Debugger::reverse_continue() {
  operation_.reset();
  if (!snapshots_ || snapshots_->empty()) return finish({StopKind::HistoryBegin, std::nullopt, std::nullopt});
  const u64 begin = snapshots_->first_step();
  const Breakpoints saved = breakpoints_;  // the search counts hits and removes temporary ones
  const bool history_was_on = history_on_;
  history_on_ = false;
  u64 end = position();
  std::optional<FoundStop> found;
  bool paused = false;
  while (end > begin && !found && !paused) {
    const MachineState* from = snapshots_->at_or_before(end - 1);
    if (!from) break;
    restore(*from);
    found = last_stop_before(end, paused);
    breakpoints_ = saved;
    end = from->steps;
  }
  history_on_ = history_was_on;
  if (paused) return finish({StopKind::Paused, std::nullopt, std::nullopt});
  if (!found) {
    go_to_step(begin);
    return finish({StopKind::HistoryBegin, std::nullopt, std::nullopt});
  }
  go_to_step(found->position);
  return finish(found->stop);
}

void Debugger::state_changed() {
  if (snapshots_) snapshots_->discard_from(position());
}

}  // namespace x86lab
