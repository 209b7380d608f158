// The text of the monitors' `info lapic` and `info ioapic` (docs/gdb.md, "Monitor
// commands"): the views of platform/debugger/apic_inspect.h, one register a line,
// decoded as the SDM's "Advanced Programmable Interrupt Controller (APIC)" chapter and
// the 82093AA data sheet's "Register Description" lay the fields out.
#pragma once
#include <string>

#include "platform/debugger/apic_inspect.h"

namespace x86lab {

// APIC ID, version, IA32_APIC_BASE, SVR, TPR/APR/PPR, LDR/DFR, IRR/ISR/TMR (the set
// vectors in hex), ESR, ICR, the five LVT entries and the timer (mode, divide, counts,
// next expiry in modeled cycles). Values in hex unless named as cycles.
std::string describe_local_apic(const LocalApicView& view);
// IOAPICID, IOAPICVER, IOAPICARB, IOREGSEL and the 24 redirection entries, one a line,
// with each input pin's level.
std::string describe_io_apic(const IoApicView& view);

}  // namespace x86lab
