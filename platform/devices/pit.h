// The 8254 programmable interval timer of a PC: three 16-bit down counters clocked at
// 1.193182 MHz, counter 0's OUT on IRQ 0, counter 2's GATE and OUT through port 61h
// (Intel 82C54 data sheet: "Modes of Operation", "Read-Back Command", "Counter Latch
// Command"). Counters are evaluated lazily from the virtual clock; only counter 0
// schedules events (its OUT edges drive IRQ 0).
#pragma once
#include "trace/state_archive.h"
#include <array>
#include <functional>

#include "mmu/port_bus.h"
#include "platform/clock.h"

namespace x86lab {

class Pit8254 : public BusDevice {
 public:
  static constexpr u64 kInputHz = 1'193'182;  // 14.31818 MHz / 12

  // `out0_changed` receives counter 0's OUT level whenever it changes (IRQ 0).
  Pit8254(VirtualClock& clock, std::function<void(bool)> out0_changed);

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "pit"; }

  // GATE input of `counter` (only counter 2's is wired, to port 61h bit 0).
  void set_gate(unsigned counter, bool level);
  bool gate(unsigned counter) const { return counters_[counter].gate; }
  // OUT of `counter` now.
  bool out(unsigned counter);
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  struct Counter {
    u8 mode = 0;             // 0-5
    u8 access = 3;           // RW field: 1 = LSB, 2 = MSB, 3 = LSB then MSB
    bool bcd = false;
    u32 modulus = 0x10000;   // N as counted (0 written means 65536, or 10000 in BCD)
    bool counting = false;   // a count is loaded (or will be at load_edge)
    u64 load_edge = 0;       // input-clock edge at which the count element holds N
    bool frozen = false;     // GATE low in modes 0/4 (suspended) or 2/3 (held)
    u64 frozen_elapsed = 0;  // edges counted when frozen
    bool has_pending = false;  // modes 2/3: a count written while counting
    u32 pending_modulus = 0;
    u64 pending_edge = 0;      // the period end at which it is loaded
    u32 trigger_modulus = 0;   // modes 1/5: the count loaded by the next GATE trigger
    bool armed = false;        // modes 1/5: a count was written
    bool gate = true;
    bool out_initial = false;  // OUT after the control word, before counting
    bool null_count = false;
    bool write_msb_next = false;
    u8 write_lsb = 0;
    bool read_msb_next = false;
    bool count_latched = false;
    u16 latched_count = 0;
    bool latch_msb_next = false;
    bool status_latched = false;
    u8 latched_status = 0;
  };
  u64 edge_now() const { return clock_.ticks_at(clock_.now(), kInputHz); }
  void sync(Counter& c, u64 edge);
  // Edges counted since the load, or nullopt while not counting.
  bool elapsed(const Counter& c, u64 edge, u64& j) const;
  u32 count_at(Counter& c, u64 edge);
  bool out_at(Counter& c, u64 edge);
  // The next edge after `edge` at which OUT may change, or VirtualClock::kNever.
  u64 next_out_edge(Counter& c, u64 edge);
  u16 encoded_count(const Counter& c, u32 count) const;
  u8 status(Counter& c, u64 edge);
  void write_control(u8 value);
  void write_count(unsigned index, u8 value);
  void load_count(Counter& c, u32 raw, u64 edge);
  u8 read_counter(unsigned index);
  void update_counter0();

  VirtualClock& clock_;
  std::function<void(bool)> out0_changed_;
  std::array<Counter, 3> counters_{};
  VirtualClock::EventId event0_;
  bool out0_reported_ = false;
  u64 event0_edge_ = UINT64_MAX;  // the input-clock edge event0_ is scheduled for (UINT64_MAX: none)
};

}  // namespace x86lab
