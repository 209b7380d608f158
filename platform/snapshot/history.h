// The history of a run for reverse execution (docs/snapshots.md "History", docs/gdb.md
// "Reverse execution"): machine snapshots (machine_state.h) taken every few million
// steps while the debugger runs the machine, in memory, with a bound on the bytes they
// hold. Unchanged RAM pages are shared between neighbours; over the bound, snapshots are
// dropped so that the recent past stays dense and the older past thins out (the gap
// around a snapshot grows with its age), but the first one (the start of the history)
// and the newest are always kept. Going to step t is then: restore the latest snapshot
// at or before t and run forward t - s steps, which the machine's determinism makes
// exact (platform/debugger/debugger.h, go_to_step).
#pragma once
#include <string>
#include <vector>

#include "platform/snapshot/machine_state.h"

namespace x86lab {

class SnapshotHistory {
 public:
  // Steps between periodic snapshots. Going back replays at most this many steps from
  // a periodic snapshot (about 0.3 s at the Linux boot's 56 MIPS, bench/results.md);
  // a capture compares the touched RAM with the previous snapshot's (a few ms for
  // 64 MiB), so the capture costs about 2% of the run (assumption, from those two).
  static constexpr u64 kDefaultIntervalSteps = u64{1} << 24;
  // --history-mib's default: the whole Linux boot (64 MiB guest, 6.55 G steps) fills
  // 543.9 MiB of it and the process peaks at 705 MiB RSS (bench/results.md,
  // bench/reverse_worst_case.sh), under 1 GiB.
  static constexpr u64 kDefaultBudgetMib = 768;

  // `budget_bytes` > 0: the bound on the bytes the snapshots hold (RAM pages, sections,
  // page lists); `interval_steps` > 0: steps between periodic snapshots.
  explicit SnapshotHistory(u64 budget_bytes = kDefaultBudgetMib << 20, u64 interval_steps = kDefaultIntervalSteps);

  // Whether a periodic snapshot is due at step `steps` (none yet, or `interval` steps
  // past the newest).
  bool due(u64 steps) const { return snapshots_.empty() || steps >= snapshots_.back().steps + interval_; }
  // The step at which the next periodic snapshot is due (0 without any).
  u64 next_due() const { return snapshots_.empty() ? 0 : snapshots_.back().steps + interval_; }
  // Captures `machine` (between instructions) at its Cpu::steps(), in step order, one
  // snapshot per step (an existing one at the same step is kept), then thins the
  // history to the budget.
  void capture(Machine& machine);
  // The latest snapshot at or before step `steps`, or null (before the history begins).
  const MachineState* at_or_before(u64 steps) const;
  // Drops the snapshots at and after step `steps`: the machine was changed there (a
  // register or memory write, a reset), so the run from there is not the one they recorded.
  void discard_from(u64 steps);
  void clear();

  bool empty() const { return snapshots_.empty(); }
  std::size_t size() const { return snapshots_.size(); }
  u64 first_step() const { return snapshots_.empty() ? 0 : snapshots_.front().steps; }
  u64 last_step() const { return snapshots_.empty() ? 0 : snapshots_.back().steps; }
  // The steps of the snapshots, oldest first.
  std::vector<u64> steps() const;
  // Bytes the snapshots hold now (each shared page once).
  u64 bytes() const { return bytes_; }
  u64 budget_bytes() const { return budget_; }
  u64 interval_steps() const { return interval_; }
  // "history: steps 0 to 123456789 in 12 snapshots, 85.2 of 768 MiB, every 16777216 steps"
  std::string describe() const;

 private:
  // Bytes that dropping `state` would free: its sections and page list, and the pages
  // no other snapshot shares.
  static u64 own_bytes(const MachineState& state);
  void thin();
  void erase(std::size_t index);

  std::vector<MachineState> snapshots_;  // ascending by steps
  u64 budget_, interval_;
  u64 bytes_ = 0;
};

}  // namespace x86lab
