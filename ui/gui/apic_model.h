// The APIC window's view model: the local APIC's and the I/O APIC's registers copied
// through their const accessors (no register read, no ESR latch, no clock event), and
// their fields decoded (Intel SDM Vol. 3, "Advanced Programmable Interrupt Controller
// (APIC)"; Intel 82093AA I/O APIC data sheet, "Register Description").
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/debugger/apic_inspect.h"
#include "trace/types.h"

namespace x86lab {
class Machine;
}

namespace x86lab::gui {

using ApicBits = std::array<u32, 8>;  // a 256-bit IRR, ISR or TMR, bit v = vector v

struct LocalApicSnapshot {
  bool present = false;
  u64 apic_base = 0;  // IA32_APIC_BASE (MSR 1Bh)
  u32 id = 0, version = 0, tpr = 0, apr = 0, ppr = 0, ldr = 0, dfr = 0, svr = 0;
  u32 esr = 0;  // the value latched by the last ESR write (what a read returns)
  u32 icr_low = 0, icr_high = 0;
  ApicBits irr{}, isr{}, tmr{};
  std::array<u32, 5> lvt{};  // in LvtIndex order
  u32 initial_count = 0, current_count = 0, divide_configuration = 0;
  // Modeled CPU cycles until the timer's next expiry (0: due now), none when stopped.
  std::optional<u64> cycles_to_expiry;
};

struct IoApicSnapshot {
  u32 id = 0, version = 0, arbitration = 0;  // IOAPICID, IOAPICVER, IOAPICARB as read through IOWIN
  u8 io_register_select = 0;                 // IOREGSEL
  std::array<u64, 24> entries{};             // IOREDTBL0-23
  u32 inputs = 0;                            // INTIN levels, bit n = pin n high
};

struct ApicSnapshot {
  LocalApicSnapshot local;
  IoApicSnapshot io;
};

// Copies both APICs of `machine` (the local APIC's `present` is false when it has none).
ApicSnapshot capture_apic(const Machine& machine);

// The LVT entries in the order the window lists them.
enum class LvtIndex : unsigned { Timer, Lint0, Lint1, Error, PerformanceCounter };
inline constexpr std::array<std::string_view, 5> kLvtNames = {"timer", "LINT0", "LINT1", "error", "perf. counter"};

bool vector_bit(const ApicBits& bits, u8 vector);
// The set vectors, lowest first.
std::vector<u8> set_vectors(const ApicBits& bits);
// "41h 45h", or "none".
std::string vector_list(const ApicBits& bits);

// Delivery mode names (bits 10:8 of the LVT, ICR and IOREDTBL): "Fixed", "LowPri",
// "SMI", "reserved", "NMI", "INIT", "StartUp", "ExtINT".
std::string_view delivery_mode_name(unsigned mode);

// One LVT entry (SDM "Local Vector Table"): the fields the entry has.
struct LvtRow {
  std::string_view name;
  u32 raw = 0;
  u8 vector = 0;
  std::string_view delivery_mode;  // "Fixed" for timer and error (they have no mode field)
  bool masked = false, pending = false;
  std::optional<bool> level;       // trigger mode: LINT0/LINT1 only
  std::optional<bool> remote_irr;  // LINT0/LINT1 only
  std::optional<bool> active_low;  // pin polarity: LINT0/LINT1 only
  std::optional<bool> periodic;    // timer only
};
LvtRow decode_lvt(LvtIndex index, u32 raw);

// The ICR (SDM "Interrupt Command Register (ICR)").
struct IcrFields {
  u8 vector = 0;
  std::string_view delivery_mode, shorthand;  // shorthand: "none", "self", "all incl. self", "all excl. self"
  bool logical = false, pending = false, assert = false, level = false;
  u8 destination = 0;  // bits 63:56
};
IcrFields decode_icr(u32 low, u32 high);

// IA32_APIC_BASE.
struct ApicBaseFields {
  u32 base = 0;
  bool enabled = false, bsp = false;
};
ApicBaseFields decode_apic_base(u64 value);

// The timer: its mode and the divisor of the divide configuration register.
std::string_view timer_mode_name(u32 lvt_timer);  // "one-shot" or "periodic"
// timer_divisor (1-128) is apic_inspect.h's.

// One I/O APIC redirection entry.
struct RedirectionRow {
  unsigned pin = 0;
  u8 vector = 0;
  std::string_view delivery_mode;
  bool logical = false, active_low = false, level = false, remote_irr = false, masked = false, pending = false;
  u8 destination = 0;
  bool input_high = false;
};
RedirectionRow decode_redirection(unsigned pin, u64 bits, bool input_high);

}  // namespace x86lab::gui
