// Side-effect-free views of the local APIC and the I/O APIC for debugger front ends
// (the monitors' `info lapic` and `info ioapic`, the GUI): each register as software
// would read it, decoded (Intel SDM Vol. 3, "Advanced Programmable Interrupt Controller
// (APIC)"; Intel 82093AA I/O APIC data sheet, "Register Description").
#pragma once
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "platform/machine.h"

namespace x86lab {

// One LVT entry (SDM figure "Local Vector Table (LVT)") decoded. Fields an entry does
// not have (the timer's and error's delivery mode, trigger and remote IRR; the
// performance counter's trigger) are false/0 and `has_*` says so.
struct LvtEntryView {
  std::string_view name;  // "timer", "perfmon", "lint0", "lint1", "error"
  u32 raw = 0;
  u8 vector = 0;
  u8 delivery_mode = 0;    // bits 10:8 (kApicDeliveryModeNames); 0 when has_delivery_mode is false
  bool has_delivery_mode = false;
  bool has_trigger = false;  // LINT0/LINT1: trigger mode, remote IRR and polarity
  bool masked = false, delivery_pending = false;
  bool level = false, remote_irr = false, polarity_low = false;
};

// Decodes an LVT entry of the given shape (the timer and error entries have no delivery
// mode; only LINT0/LINT1 have trigger mode, remote IRR and polarity).
LvtEntryView decode_lvt_entry(std::string_view name, u32 raw, bool has_delivery_mode, bool has_trigger);

// The ICR (SDM "Interrupt Command Register (ICR)") decoded.
struct IcrView {
  u8 vector = 0, delivery_mode = 0;  // bits 7:0, 10:8 (kApicDeliveryModeNames)
  bool logical = false;              // bit 11: destination mode
  bool delivery_pending = false;     // bit 12
  bool assert = false;               // bit 14: level (1 assert)
  bool level = false;                // bit 15: trigger mode (1 level)
  u8 shorthand = 0;                  // bits 19:18: 0 none, 1 self, 2 all incl. self, 3 all excl. self
  u8 destination = 0;                // high bits 31:24
};
IcrView decode_icr(u32 low, u32 high);

// The timer's divisor (1-128) from divide configuration bits 3, 1:0
// (SDM figure "Divide Configuration Register").
u32 timer_divisor(u32 divide_configuration);

struct LocalApicView {
  u8 apic_id = 0;            // ID register bits 27:24
  u32 version = 0;           // version register
  u64 apic_base = 0;         // IA32_APIC_BASE (MSR 1Bh)
  u32 base_address = 0;      // its bits 31:12
  bool global_enable = false, bsp = false;  // its bits 11 and 8
  u32 svr = 0;
  bool software_enable = false;  // SVR bit 8
  bool focus_checking_disabled = false;  // SVR bit 9
  u8 spurious_vector = 0;    // SVR bits 7:0
  u8 tpr = 0, apr = 0, ppr = 0;
  u32 ldr = 0, dfr = 0;
  std::vector<u8> irr, isr, tmr;  // the set vectors, ascending
  u32 esr = 0;               // as last latched by an ESR write (a read changes nothing)
  u32 icr_low = 0, icr_high = 0;
  std::array<LvtEntryView, 5> lvt;  // timer, perfmon, LINT0, LINT1, error
  // Timer (SDM "APIC Timer"): mode from the LVT timer entry, divide configuration
  // register and its divisor (1-128), counts, and the modeled cycle of the next expiry.
  bool timer_periodic = false;
  u32 divide_configuration = 0, divisor = 0;
  u32 initial_count = 0, current_count = 0;
  std::optional<u64> next_expiry_cycle;  // none: the timer is stopped
  u64 now_cycle = 0;                     // the modeled clock now
};

// The machine's local APIC; reads nothing through the bus (no ESR bit, no count latch).
LocalApicView inspect_local_apic(const Machine& machine);

// One 82093AA redirection entry, decoded by its own accessors (IoApic::RedirectionEntry:
// vector, delivery mode, destination mode, polarity, trigger, remote IRR, mask), with its
// input pin's level.
struct RedirectionEntryView {
  IoApic::RedirectionEntry entry;
  bool input_high = false;  // the pin's electrical level now
};

struct IoApicView {
  u32 id_register = 0;      // IOAPICID (the ID in bits 27:24)
  u32 version_register = 0; // IOAPICVER
  u32 arbitration = 0;      // IOAPICARB
  u8 io_register_select = 0;
  std::array<RedirectionEntryView, IoApic::kPins> entries;
};

// The machine's I/O APIC (PcDevices::io_apic), without an IOWIN access.
IoApicView inspect_io_apic(const Machine& machine);

}  // namespace x86lab
