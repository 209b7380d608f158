// The P6 local APIC timer: a 32-bit down counter on the processor's bus clock divided
// by the divide configuration, one-shot or periodic (Intel SDM Vol. 3, "Advanced
// Programmable Interrupt Controller (APIC)", "APIC Timer"). Evaluated lazily from the
// virtual clock as the 8254 is (pit.cpp): one clock event armed for the next expiry.
#include "platform/devices/apic/local_apic.h"

namespace x86lab {

namespace {
constexpr u64 kNone = ~u64{0};
}

// Divide configuration bits 3, 1:0 (SDM figure "Divide Configuration Register"):
// 000 -> 2, 001 -> 4, 010 -> 8, 011 -> 16, 100 -> 32, 101 -> 64, 110 -> 128, 111 -> 1.
u32 LocalApic::divisor() const {
  const u32 code = (divide_configuration_ >> 1 & 4) | (divide_configuration_ & 3);
  return code == 7 ? 1 : 2u << code;
}

u64 LocalApic::timer_elapsed() const {
  return (clock_.ticks_at(clock_.now(), config_.bus_hz) - timer_start_tick_) / divisor();
}

// The count falls from timer_base_ by one per divided tick; at 0 a one-shot timer stays
// there, a periodic one reloads the initial count (so it reads the initial count at
// each expiry and never 0).
u32 LocalApic::current_count() const {
  const u64 elapsed = timer_elapsed();
  if (elapsed < timer_base_) return static_cast<u32>(timer_base_ - elapsed);
  if (!(lvt_[0] & lapic::kLvtPeriodic) || initial_count_ == 0 || timer_next_ == kNone) return 0;
  return static_cast<u32>(initial_count_ - (elapsed - timer_base_) % initial_count_);
}

std::optional<u64> LocalApic::timer_expiry_cycle() const {
  if (timer_next_ == kNone) return std::nullopt;
  return clock_.cycle_of_tick(timer_start_tick_ + timer_next_ * divisor(), config_.bus_hz);
}

// Counting goes on from `count` as of now (a write of the initial count, or a change
// of the divider or mode, which keeps the current count). Our choice: the divided
// clock's phase restarts at the write. A count of 0 stops the timer.
void LocalApic::restart_timer(u32 count) {
  timer_start_tick_ = clock_.ticks_at(clock_.now(), config_.bus_hz);
  timer_base_ = count;
  timer_next_ = count ? u64{count} : kNone;
  schedule_timer();
}

void LocalApic::schedule_timer() {
  if (timer_next_ == kNone) {
    clock_.cancel(timer_event_id_);
    return;
  }
  clock_.schedule(timer_event_id_, clock_.cycle_of_tick(timer_start_tick_ + timer_next_ * divisor(), config_.bus_hz));
}

// An expiry: the LVT timer entry's vector into IRR unless masked or the APIC is
// globally disabled (the count runs on either way). Expiries missed while the CPU ran past them merge into one request, as
// a second request of a vector already in IRR does.
void LocalApic::timer_event() {
  const u64 elapsed = timer_elapsed();
  if (timer_next_ == kNone || elapsed < timer_next_) {
    schedule_timer();
    return;
  }
  const u32 lvt = lvt_[0];
  if (!(lvt & lapic::kLvtMask) && (apic_base_ & lapic::kApicBaseEnable)) {
    ++cpu_.counters().apic_timer_interrupts;
    emit(cpu_.tracer(), [&] {
      return events::LapicTimer{.vector = static_cast<u8>(lvt), .periodic = (lvt & lapic::kLvtPeriodic) != 0,
                                .initial_count = initial_count_, .apic_id = apic_id(), .cycle = clock_.now()};
    });
    emit(cpu_.tracer(), events::LapicAccept{.vector = static_cast<u8>(lvt), .delivery_mode = 0, .level = false,
                                            .source = events::ApicSource::Timer, .apic_id = apic_id()});
    request(static_cast<u8>(lvt), false, lapic::kReceiveIllegalVector);
  }
  if ((lvt & lapic::kLvtPeriodic) && initial_count_)
    timer_next_ = timer_base_ + ((elapsed - timer_base_) / initial_count_ + 1) * u64{initial_count_};
  else
    timer_next_ = kNone;
  schedule_timer();
}

}  // namespace x86lab
