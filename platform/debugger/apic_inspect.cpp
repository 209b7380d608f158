// Views of the local APIC and the I/O APIC from their const accessors (apic_inspect.h).
#include "platform/debugger/apic_inspect.h"

namespace x86lab {

namespace {

std::vector<u8> set_vectors(const LocalApic& apic, bool (LocalApic::*test)(u8) const) {
  std::vector<u8> vectors;
  for (unsigned v = 0; v < 256; ++v)
    if ((apic.*test)(static_cast<u8>(v))) vectors.push_back(static_cast<u8>(v));
  return vectors;
}

}  // namespace

// SDM figure "Local Vector Table (LVT)", P6 layout: the timer and error entries have no
// delivery mode; LINT0/LINT1 have trigger mode, remote IRR and polarity.
LvtEntryView decode_lvt_entry(std::string_view name, u32 raw, bool has_mode, bool has_trigger) {
  LvtEntryView e;
  e.name = name;
  e.raw = raw;
  e.vector = static_cast<u8>(raw);
  e.has_delivery_mode = has_mode;
  e.delivery_mode = has_mode ? static_cast<u8>(raw >> 8 & 7) : 0;
  e.has_trigger = has_trigger;
  e.masked = raw & lapic::kLvtMask;
  e.delivery_pending = raw & lapic::kLvtDeliveryStatus;
  if (has_trigger) {
    e.level = raw & lapic::kLvtLevel;
    e.remote_irr = raw & lapic::kLvtRemoteIrr;
    e.polarity_low = raw >> 13 & 1;
  }
  return e;
}

// Divide configuration bits 3, 1:0: 000 -> 2 ... 110 -> 128, 111 -> 1.
u32 timer_divisor(u32 divide_configuration) {
  const u32 code = (divide_configuration >> 1 & 4) | (divide_configuration & 3);
  return code == 7 ? 1 : 2u << code;
}

// ICR low: 19:18 shorthand, 15 trigger (1 level), 14 level (1 assert), 12 delivery
// status, 11 destination mode (1 logical), 10:8 mode, 7:0 vector; high 31:24 destination.
IcrView decode_icr(u32 low, u32 high) {
  IcrView icr;
  icr.vector = static_cast<u8>(low);
  icr.delivery_mode = static_cast<u8>(low >> 8 & 7);
  icr.logical = low >> 11 & 1;
  icr.delivery_pending = low >> 12 & 1;
  icr.assert = low >> 14 & 1;
  icr.level = low >> 15 & 1;
  icr.shorthand = static_cast<u8>(low >> 18 & 3);
  icr.destination = static_cast<u8>(high >> 24);
  return icr;
}

LocalApicView inspect_local_apic(const Machine& machine) {
  const LocalApic& apic = *machine.local_apic;
  LocalApicView v;
  v.apic_id = apic.apic_id();
  v.version = apic.register_value(lapic::kVersion);
  v.apic_base = apic.apic_base();
  v.base_address = static_cast<u32>(v.apic_base & lapic::kApicBaseAddress);
  v.global_enable = v.apic_base & lapic::kApicBaseEnable;
  v.bsp = v.apic_base & lapic::kApicBaseBsp;
  v.svr = apic.register_value(lapic::kSvr);
  v.software_enable = v.svr & 0x100;
  v.focus_checking_disabled = v.svr & 0x200;
  v.spurious_vector = static_cast<u8>(v.svr);
  v.tpr = static_cast<u8>(apic.register_value(lapic::kTpr));
  v.apr = static_cast<u8>(apic.register_value(lapic::kApr));
  v.ppr = static_cast<u8>(apic.register_value(lapic::kPpr));
  v.ldr = apic.register_value(lapic::kLdr);
  v.dfr = apic.register_value(lapic::kDfr);
  v.irr = set_vectors(apic, &LocalApic::irr);
  v.isr = set_vectors(apic, &LocalApic::isr);
  v.tmr = set_vectors(apic, &LocalApic::tmr);
  v.esr = apic.register_value(lapic::kEsr);
  v.icr_low = apic.register_value(lapic::kIcrLow);
  v.icr_high = apic.register_value(lapic::kIcrHigh);
  v.lvt = {decode_lvt_entry("timer", apic.register_value(lapic::kLvtTimer), false, false),
           decode_lvt_entry("perfmon", apic.register_value(lapic::kLvtPerformanceCounter), true, false),
           decode_lvt_entry("lint0", apic.register_value(lapic::kLvtLint0), true, true),
           decode_lvt_entry("lint1", apic.register_value(lapic::kLvtLint1), true, true),
           decode_lvt_entry("error", apic.register_value(lapic::kLvtError), false, false)};
  v.timer_periodic = v.lvt[0].raw & lapic::kLvtPeriodic;
  v.divide_configuration = apic.register_value(lapic::kDivideConfiguration);
  v.divisor = timer_divisor(v.divide_configuration);
  v.initial_count = apic.register_value(lapic::kInitialCount);
  v.current_count = apic.current_count();
  v.next_expiry_cycle = apic.timer_expiry_cycle();
  v.now_cycle = machine.clock.now();
  return v;
}

IoApicView inspect_io_apic(const Machine& machine) {
  const IoApic& io_apic = machine.devices->io_apic;
  IoApicView v;
  v.id_register = io_apic.read_register(IoApic::kIoApicId);
  v.version_register = io_apic.read_register(IoApic::kIoApicVer);
  v.arbitration = io_apic.read_register(IoApic::kIoApicArb);
  v.io_register_select = io_apic.io_register_select();
  for (unsigned pin = 0; pin < IoApic::kPins; ++pin) v.entries[pin] = {io_apic.entry(pin), io_apic.input(pin)};
  return v;
}

}  // namespace x86lab
