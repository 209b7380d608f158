// Periodic snapshots with a memory bound (history.h).
#include "platform/snapshot/history.h"

#include <algorithm>
#include <cstdio>

namespace x86lab {

SnapshotHistory::SnapshotHistory(u64 budget_bytes, u64 interval_steps)
    : budget_(std::max<u64>(budget_bytes, 1)), interval_(std::max<u64>(interval_steps, 1)) {}

u64 SnapshotHistory::own_bytes(const MachineState& s) {
  u64 bytes = sizeof(MachineState) + s.bios.size() + s.machine.size() + s.cpu.size() + s.mmu.size() + s.devices.size() +
              s.clock.size() + s.counters.size() + s.ram.size() * sizeof(RamPage);
  for (const RamPage& page : s.ram)
    if (page.bytes.use_count() == 1) bytes += kPageBytes;
  return bytes;
}

void SnapshotHistory::capture(Machine& machine) {
  const u64 now = machine.cpu.steps();
  const auto at = std::lower_bound(snapshots_.begin(), snapshots_.end(), now,
                                   [](const MachineState& s, u64 steps) { return s.steps < steps; });
  if (at != snapshots_.end() && at->steps == now) return;
  const MachineState* previous = at == snapshots_.begin() ? nullptr : &*(at - 1);
  MachineState state = capture_machine_state(machine, previous);
  bytes_ += own_bytes(state);  // its new pages are held by it alone
  snapshots_.insert(at, std::move(state));
  thin();
}

const MachineState* SnapshotHistory::at_or_before(u64 steps) const {
  const auto after = std::upper_bound(snapshots_.begin(), snapshots_.end(), steps,
                                      [](u64 value, const MachineState& s) { return value < s.steps; });
  return after == snapshots_.begin() ? nullptr : &*(after - 1);
}

void SnapshotHistory::erase(std::size_t index) {
  bytes_ -= own_bytes(snapshots_[index]);
  snapshots_.erase(snapshots_.begin() + static_cast<std::ptrdiff_t>(index));
}

void SnapshotHistory::discard_from(u64 steps) {
  while (!snapshots_.empty() && snapshots_.back().steps >= steps) erase(snapshots_.size() - 1);
}

void SnapshotHistory::clear() {
  snapshots_.clear();
  bytes_ = 0;
}

// Drops, while over the budget, the inner snapshot whose removal leaves the smallest gap
// relative to how far back the gap lies: gap (next - previous) over age (newest -
// previous). Repeated, this keeps the gaps roughly proportional to their age, so the
// snapshots are about exponentially spaced back from the newest.
void SnapshotHistory::thin() {
  while (bytes_ > budget_ && snapshots_.size() > 2) {
    const u64 newest = snapshots_.back().steps;
    std::size_t best = 1;
    double best_cost = 0;
    for (std::size_t i = 1; i + 1 < snapshots_.size(); ++i) {
      const u64 previous = snapshots_[i - 1].steps;
      const double cost =
          static_cast<double>(snapshots_[i + 1].steps - previous) / static_cast<double>(newest - previous);
      if (i == 1 || cost < best_cost) best = i, best_cost = cost;
    }
    erase(best);
  }
}

std::vector<u64> SnapshotHistory::steps() const {
  std::vector<u64> out;
  for (const MachineState& s : snapshots_) out.push_back(s.steps);
  return out;
}

std::string SnapshotHistory::describe() const {
  char text[200];
  std::snprintf(text, sizeof text, "history: steps %llu to %llu in %zu snapshots, %.1f of %llu MiB, every %llu steps",
                static_cast<unsigned long long>(first_step()), static_cast<unsigned long long>(last_step()), size(),
                static_cast<double>(bytes_) / (1 << 20), static_cast<unsigned long long>(budget_ >> 20),
                static_cast<unsigned long long>(interval_));
  return text;
}

}  // namespace x86lab
