// Text of `info lapic` and `info ioapic` (apic_monitor.h).
#include "ui/gdb/apic_monitor.h"

#include <cstdio>

#include "platform/debugger/text_format.h"
#include "trace/events.h"

namespace x86lab {

namespace {

const char* mode_name(u8 mode) { return events::kApicDeliveryModeNames[mode & 7].data(); }

std::string vector_list(const char* name, const std::vector<u8>& vectors) {
  std::string line = format("%s:", name);
  if (vectors.empty()) return line + " none\n";
  for (const u8 v : vectors) line += format(" %02X", v);
  return line + "\n";
}

// DFR bits 31:28: 1111b flat, 0000b cluster (SDM "Destination Format Register").
const char* dfr_model(u32 dfr) {
  switch (dfr >> 28) {
    case 0xF: return "flat";
    case 0x0: return "cluster";
    default: return "undefined";
  }
}

std::string lvt_line(const LvtEntryView& e, bool periodic) {
  std::string line = format("LVT %-7s %08X vector=%02X", e.name.data(), e.raw, e.vector);
  if (e.has_delivery_mode) line += format(" mode=%s", mode_name(e.delivery_mode));
  line += e.masked ? " masked" : " unmasked";
  if (e.name == "timer") line += periodic ? " periodic" : " one-shot";
  if (e.has_trigger)
    line += format(" %s remote-irr=%d polarity=%s", e.level ? "level" : "edge", e.remote_irr,
                   e.polarity_low ? "low" : "high");
  if (e.delivery_pending) line += " send-pending";
  return line + "\n";
}

}  // namespace

std::string describe_local_apic(const LocalApicView& v) {
  std::string text = format("local APIC id=%02X version=%08X (version %02X, max LVT entry %u)\n", v.apic_id,
                            v.version, v.version & 0xFF, v.version >> 16 & 0xFF);
  text += format("IA32_APIC_BASE=%08llX base=%08X %s%s\n", static_cast<unsigned long long>(v.apic_base),
                 v.base_address, v.global_enable ? "enabled" : "disabled (globally)", v.bsp ? " bsp" : "");
  text += format("SVR=%08X %s spurious-vector=%02X focus-checking=%s\n", v.svr,
                 v.software_enable ? "software-enabled" : "software-disabled", v.spurious_vector,
                 v.focus_checking_disabled ? "off" : "on");
  text += format("TPR=%02X APR=%02X PPR=%02X\n", v.tpr, v.apr, v.ppr);
  text += format("LDR=%08X DFR=%08X (%s)\n", v.ldr, v.dfr, dfr_model(v.dfr));
  text += vector_list("IRR", v.irr) + vector_list("ISR", v.isr) + vector_list("TMR", v.tmr);
  text += format("ESR=%08X\n", v.esr);
  static constexpr const char* kShorthands[4] = {"none", "self", "all-including-self", "all-excluding-self"};
  const IcrView icr = decode_icr(v.icr_low, v.icr_high);
  text += format("ICR=%08X:%08X vector=%02X mode=%s dest=%s:%02X shorthand=%s %s %s\n", v.icr_high, v.icr_low,
                 icr.vector, mode_name(icr.delivery_mode), icr.logical ? "logical" : "physical", icr.destination,
                 kShorthands[icr.shorthand], icr.level ? "level" : "edge", icr.assert ? "assert" : "deassert");
  for (const LvtEntryView& e : v.lvt) text += lvt_line(e, v.timer_periodic);
  text += format("timer %s divide=%u (DCR=%X) initial=%08X current=%08X", v.timer_periodic ? "periodic" : "one-shot",
                 v.divisor, v.divide_configuration, v.initial_count, v.current_count);
  if (v.next_expiry_cycle)
    text += format(" next-expiry=cycle %llu (in %llu)\n", static_cast<unsigned long long>(*v.next_expiry_cycle),
                   static_cast<unsigned long long>(*v.next_expiry_cycle > v.now_cycle ? *v.next_expiry_cycle - v.now_cycle
                                                                                      : 0));
  else
    text += " stopped\n";
  return text;
}

std::string describe_io_apic(const IoApicView& v) {
  std::string text = format("I/O APIC id=%X (IOAPICID=%08X) IOAPICVER=%08X (version %02X, max entry %u) IOAPICARB=%08X\n",
                            v.id_register >> 24 & 0xF, v.id_register, v.version_register, v.version_register & 0xFF,
                            v.version_register >> 16 & 0xFF, v.arbitration);
  text += format("IOREGSEL=%02X\n", v.io_register_select);
  for (std::size_t pin = 0; pin < v.entries.size(); ++pin) {
    const IoApic::RedirectionEntry& e = v.entries[pin].entry;
    text += format("pin %2zu %016llX vector=%02X mode=%s dest=%s:%02X %s %s remote-irr=%d %s%s input=%s\n", pin,
                   static_cast<unsigned long long>(e.bits), e.vector(), mode_name(static_cast<u8>(e.delivery_mode())),
                   e.logical() ? "logical" : "physical", e.destination(), e.polarity_low() ? "active-low" : "active-high",
                   e.level_triggered() ? "level" : "edge", e.remote_irr(), e.masked() ? "masked" : "unmasked",
                   e.delivery_pending() ? " send-pending" : "", v.entries[pin].input_high ? "high" : "low");
  }
  return text;
}

}  // namespace x86lab
