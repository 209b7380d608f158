// The virtual clock: device time is the modeled cycle count (ModeledClock::cycles)
// divided by the CPU frequency, and device events are scheduled on it (DESIGN.md
// section 5, "Time and cost"). Nothing here reads the wall clock, so the same inputs
// give the same order of events.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "trace/modeled_clock.h"
#include "trace/state_archive.h"

namespace x86lab {

class VirtualClock {
 public:
  using EventId = unsigned;
  static constexpr u64 kNever = ~u64{0};

  // `cpu_hz`: modeled CPU frequency in Hz (cycles per second), at least 1 MHz.
  VirtualClock(ModeledClock& cpu_clock, u64 cpu_hz);

  // The current time in cycles.
  u64 now() const { return cpu_clock_.cycles(); }
  u64 cpu_hz() const { return cpu_hz_; }

  // Ticks of a device clock of `device_hz` Hz elapsed at cycle `cycle`:
  // floor(cycle * device_hz / cpu_hz).
  u64 ticks_at(u64 cycle, u64 device_hz) const;
  // The first cycle at which ticks_at(cycle, device_hz) >= tick.
  u64 cycle_of_tick(u64 tick, u64 device_hz) const;
  // Nanoseconds elapsed at `cycle`, and the first cycle at or after `ns` nanoseconds.
  u64 ns_at(u64 cycle) const { return ticks_at(cycle, 1'000'000'000); }
  u64 cycle_of_ns(u64 ns) const { return cycle_of_tick(ns, 1'000'000'000); }

  // Registers an event handler; `name` is for diagnostics. Handlers run from
  // run_due() with now() >= their deadline and may reschedule any event.
  EventId add_event(std::string name, std::function<void()> handler);
  // Arms `id` to run at cycle `deadline` (replacing an earlier arming).
  void schedule(EventId id, u64 deadline);
  void cancel(EventId id);
  bool scheduled(EventId id) const { return events_[id].deadline != kNever; }
  u64 deadline(EventId id) const { return events_[id].deadline; }

  // The earliest armed deadline, or kNever.
  u64 next_deadline() const { return next_deadline_; }
  // Runs every event whose deadline is at or before now(), earliest first (ties in
  // registration order). Returns the number of handlers run.
  unsigned run_due();
  // Moves time forward to `cycle` (HLT waiting for the next event). Never goes back.
  void advance_to(u64 cycle);

  // Called with the new next_deadline() whenever an arming makes it earlier, so the
  // CPU can end its current slice in time (Cpu::set_cycle_limit).
  void set_deadline_listener(std::function<void(u64)> listener) { listener_ = std::move(listener); }

  // Saves, checks or loads the CPU's modeled clock and every event's deadline (a
  // machine snapshot; the events are those of the same devices, registered in the
  // same order). A load does not call the deadline listener.
  void transfer_state(StateArchive& archive);

 private:
  struct Event {
    std::string name;
    std::function<void()> handler;
    u64 deadline = kNever;
  };
  void recompute_next();

  ModeledClock& cpu_clock_;
  u64 cpu_hz_;
  std::vector<Event> events_;
  u64 next_deadline_ = kNever;
  std::function<void(u64)> listener_;
};

}  // namespace x86lab
