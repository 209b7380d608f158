// Virtual clock arithmetic (128-bit products, so no rounding drift over long runs)
// and the event list, a handful of entries scanned linearly.
#include "platform/clock.h"

#include <stdexcept>

namespace x86lab {

VirtualClock::VirtualClock(ModeledClock& cpu_clock, u64 cpu_hz) : cpu_clock_(cpu_clock), cpu_hz_(cpu_hz) {
  if (cpu_hz < 1'000'000) throw std::invalid_argument("CPU frequency below 1 MHz");
}

u64 VirtualClock::ticks_at(u64 cycle, u64 device_hz) const {
  return static_cast<u64>(static_cast<unsigned __int128>(cycle) * device_hz / cpu_hz_);
}

u64 VirtualClock::cycle_of_tick(u64 tick, u64 device_hz) const {
  // Smallest c with c * device_hz >= tick * cpu_hz.
  const unsigned __int128 product = static_cast<unsigned __int128>(tick) * cpu_hz_;
  const unsigned __int128 cycle = (product + device_hz - 1) / device_hz;
  return cycle > kNever - 1 ? kNever - 1 : static_cast<u64>(cycle);
}

VirtualClock::EventId VirtualClock::add_event(std::string name, std::function<void()> handler) {
  events_.push_back({std::move(name), std::move(handler), kNever});
  return static_cast<EventId>(events_.size() - 1);
}

void VirtualClock::schedule(EventId id, u64 deadline) {
  events_[id].deadline = deadline;
  if (deadline < next_deadline_) {
    next_deadline_ = deadline;
    if (listener_) listener_(deadline);
  } else {
    recompute_next();
  }
}

void VirtualClock::cancel(EventId id) {
  events_[id].deadline = kNever;
  recompute_next();
}

void VirtualClock::recompute_next() {
  next_deadline_ = kNever;
  for (const Event& event : events_)
    if (event.deadline < next_deadline_) next_deadline_ = event.deadline;
}

unsigned VirtualClock::run_due() {
  unsigned ran = 0;
  while (next_deadline_ <= now()) {
    // The earliest due event; ties go to the one registered first.
    EventId due = 0;
    for (EventId id = 0; id < events_.size(); ++id)
      if (events_[id].deadline == next_deadline_) {
        due = id;
        break;
      }
    events_[due].deadline = kNever;
    recompute_next();
    events_[due].handler();
    ++ran;
  }
  return ran;
}

void VirtualClock::advance_to(u64 cycle) {
  if (cycle > cpu_clock_.cycles() && cycle != kNever) cpu_clock_.set_cycles(cycle);
}

void VirtualClock::transfer_state(StateArchive& a) {
  a.field(cpu_clock_.subcycles, "modeled clock");
  a.array(cpu_clock_.charged, "cycles charged by part");
  a.field(cpu_clock_.skipped_subcycles, "halted cycles");
  std::vector<u64> deadlines;
  for (const Event& event : events_) deadlines.push_back(event.deadline);
  a.same_size_sequence(deadlines, "device events");
  if (!a.loading()) return;
  for (std::size_t i = 0; i < events_.size(); ++i) events_[i].deadline = deadlines[i];
  recompute_next();
}

}  // namespace x86lab
