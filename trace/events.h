// Typed trace events: one record per event kind (DESIGN.md section 6), each owning its
// named fields and the one place that says which positional field of Event (the
// binary format's record, docs/trace-format.md) holds each of them. Event sites build
// a record and hand it to emit(); readers (the text and Perfetto sinks, `trace dump`)
// get it back with visit(). Adding an event kind: an EventKind enumerator (its number
// is the binary kind byte), a record here with kKind, kName and fields(), its place in
// EventRecords, a row in format_record (trace/sinks.cpp) and, if Perfetto shows it,
// a row in PerfettoSink (docs/tracing.md, "Adding an event kind").
#pragma once
#include <span>
#include <tuple>
#include <utility>

#include "trace/event.h"

namespace x86lab::events {

// fields(self, io) names each field once; io is an EventWriter (record -> Event) or an
// EventReader (Event -> record).
//   io.slot(&Event::a, self.linear)      a positional field (converted to its type)
//   io.flag(kEventWrite, self.write)     a bit of Event::flags

// Retired instruction (the CPU, after it executed without a fault).
struct Instruction {
  static constexpr EventKind kKind = EventKind::Instruction;
  static constexpr std::string_view kName = "insn";
  u16 cs = 0;                    // CS selector at its start (a far transfer changes it)
  u32 eip = 0;                   // EIP at its start
  u32 linear = 0;                // CS.base + EIP at its fetch
  u8 cpl = 0;                    // CPL after it
  std::span<const u8> bytes;     // its bytes (length = size, at most 15)
  std::string_view mnemonic;     // the opcode map's mnemonic (static storage)
  u8 code_size = 0;              // CS.D at its start: 16 or 32; 0 unknown (not in the binary format)
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::a, s.cs);
    io.slot(&Event::b, s.eip);
    io.slot(&Event::c, s.linear);
    io.slot(&Event::detail, s.cpl);
    io.bytes(s.bytes);
    io.slot(&Event::text, s.mnemonic);
    io.slot(&Event::code_size, s.code_size);
  }
};

// A general register or EFLAGS an instruction changed (after its Instruction event).
struct RegisterWrite {
  static constexpr EventKind kKind = EventKind::RegisterWrite;
  static constexpr std::string_view kName = "reg";
  u8 reg = 0;  // 0-7 EAX..EDI, 8 EIP, 9 EFLAGS (kRegisterNames)
  u32 old_value = 0, new_value = 0;
  static constexpr bool detail_valid(u8 detail) { return detail < kRegisterNames.size(); }
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.reg);
    io.slot(&Event::c, s.old_value);
    io.slot(&Event::value, s.new_value);
  }
};

// A bus access at a linear address (paging-structure entries: linear = physical).
// AccessKind::InterruptAcknowledge: locked, size 1, value = the vector, no address.
struct MemoryAccess {
  static constexpr EventKind kKind = EventKind::MemoryAccess;
  static constexpr std::string_view kName = "mem";
  u32 linear = 0, physical = 0;
  u8 size = 0;  // bytes
  AccessKind access = AccessKind::Data;
  bool write = false, locked = false;  // a locked read-modify-write has both
  u64 value = 0;                       // read, or written (after the write)
  u32 old_value = 0;                   // locked read-modify-writes: the value before
  static constexpr bool detail_valid(u8 detail) { return detail < kAccessKindCount; }
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::a, s.linear);
    io.slot(&Event::b, s.physical);
    io.slot(&Event::size, s.size);
    io.slot(&Event::detail, s.access);
    io.flag(kEventWrite, s.write);
    io.flag(kEventLocked, s.locked);
    io.slot(&Event::value, s.value);
    io.slot(&Event::c, s.old_value);
  }
};

// A segment register, LDTR or TR loaded; base and limit are the cache's after the load.
struct SegmentLoad {
  static constexpr EventKind kKind = EventKind::SegmentLoad;
  static constexpr std::string_view kName = "seg";
  u8 reg = 0;  // 0-5 ES..GS, 6 LDTR, 7 TR
  u16 selector = 0;
  u64 descriptor = 0;  // the 8 descriptor bytes read (protected mode, not null)
  u32 base = 0, limit = 0;
  bool accessed_written = false;  // the Accessed bit was written
  bool from_ldt = false;
  bool null_selector = false;
  bool no_descriptor = false;     // real or virtual-8086 mode: base = selector * 16, no table read
  static constexpr bool detail_valid(u8 detail) { return detail < 8; }
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.reg);
    io.slot(&Event::a, s.selector);
    io.slot(&Event::value, s.descriptor);
    io.slot(&Event::b, s.base);
    io.slot(&Event::c, s.limit);
    io.flag(kEventAccessedWritten, s.accessed_written);
    io.flag(kEventFromLdt, s.from_ldt);
    io.flag(kEventNullSelector, s.null_selector);
    io.flag(kEventNoDescriptor, s.no_descriptor);
  }
};

// A delivery (exception, interrupt, INT n) or the shutdown of a triple fault.
struct Exception {
  static constexpr EventKind kKind = EventKind::Exception;
  static constexpr std::string_view kName = "exc";
  u8 vector = 0;
  bool has_error_code = false;
  u32 error_code = 0;
  u16 cs = 0;         // CS at the delivery
  u32 eip = 0;        // the EIP pushed (shutdown: EIP then)
  u8 source = 0;      // EventSource (cpu/cpu.h): 0 exception, 1 INT n, 2 external, 3 NMI, 4 INT1
  std::string_view cause;  // the check that failed (static storage)
  bool double_fault = false, shutdown = false;
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.vector);
    io.flag(kEventHasErrorCode, s.has_error_code);
    io.slot(&Event::a, s.error_code);
    io.slot(&Event::b, s.cs);
    io.slot(&Event::c, s.eip);
    io.slot(&Event::size, s.source);
    io.slot(&Event::text, s.cause);
    io.flag(kEventDoubleFault, s.double_fault);
    io.flag(kEventShutdown, s.shutdown);
  }
};

struct TaskSwitch {
  static constexpr EventKind kKind = EventKind::TaskSwitch;
  static constexpr std::string_view kName = "task";
  u16 old_tr = 0, new_tr = 0;  // TR selectors
  u8 reason = 0;               // 0 JMP, 1 CALL, 2 IRET, 3 INT
  static constexpr bool detail_valid(u8 detail) { return detail < 4; }
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::a, s.old_tr);
    io.slot(&Event::b, s.new_tr);
    io.slot(&Event::detail, s.reason);
  }
};

// IN or OUT of one port access.
struct Io {
  static constexpr EventKind kKind = EventKind::Io;
  static constexpr std::string_view kName = "io";
  u16 port = 0;
  u8 size = 0;  // bytes
  bool write = false;
  u32 value = 0;
  std::string_view device;  // the claiming device's name (static storage), empty for open bus
  template <class Self, class Io_>
  static void fields(Self& s, Io_& io) {
    io.slot(&Event::a, s.port);
    io.slot(&Event::size, s.size);
    io.flag(kEventWrite, s.write);
    io.slot(&Event::value, s.value);
    io.slot(&Event::text, s.device);
  }
};

struct ControlRegister {
  static constexpr EventKind kKind = EventKind::ControlRegister;
  static constexpr std::string_view kName = "cr";
  u8 which = 0;  // 0-4 CRn, 8 GDTR (base), 9 IDTR (base), 10 LDTR, 11 TR (selectors)
  u32 old_value = 0, new_value = 0;
  static constexpr bool detail_valid(u8 detail) { return detail <= 4 || (detail >= 8 && detail <= 11); }
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.which);
    io.slot(&Event::c, s.old_value);
    io.slot(&Event::value, s.new_value);
  }
};

// A page walk's result; the entries as read, before its A/D updates (pte 0 for a 4 MiB page).
struct PageWalk {
  static constexpr EventKind kKind = EventKind::PageWalk;
  static constexpr std::string_view kName = "walk";
  u32 linear = 0, physical = 0;
  bool write = false;
  u64 entries = 0;  // (PDE << 32) | PTE
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::a, s.linear);
    io.slot(&Event::b, s.physical);
    io.flag(kEventWrite, s.write);
    io.slot(&Event::value, s.entries);
  }
};

// A miss in the TLB statistics model.
struct TlbMiss {
  static constexpr EventKind kKind = EventKind::TlbMiss;
  static constexpr std::string_view kName = "tlb-miss";
  u32 linear = 0;
  bool code = false;  // in the code TLB (detail 1), else the data TLB (0)
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::a, s.linear);
    io.slot(&Event::detail, s.code);
  }
};

// The CPU executed HLT.
struct Halt {
  static constexpr EventKind kKind = EventKind::Halt;
  static constexpr std::string_view kName = "halt";
  template <class Self, class Io>
  static void fields(Self&, Io&) {}
};

// The CPU left HLT for an interrupt.
struct Wake {
  static constexpr EventKind kKind = EventKind::Wake;
  static constexpr std::string_view kName = "wake";
  u8 vector = 0;
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.vector);
  }
};

// ---- the APICs (Intel SDM Vol. 3, "Advanced Programmable Interrupt Controller
// (APIC)"; Intel 82093AA I/O APIC data sheet). Vectors and delivery modes are as the
// ICR, LVT entries and redirection entries encode them; the trace layer names the
// 3-bit delivery mode with kApicDeliveryModeNames. ----

// Delivery mode names by their 3-bit code (ICR bits 10:8, LVT and redirection entries).
inline constexpr std::array<std::string_view, 8> kApicDeliveryModeNames = {
    "fixed", "lowest-priority", "smi", "reserved", "nmi", "init", "startup", "extint"};

// Where a local APIC's interrupt came from (LapicAccept::source).
enum class ApicSource : u8 { IoApic, Ipi, Timer, Lint1, Error };
inline constexpr std::array<std::string_view, 5> kApicSourceNames = {"ioapic", "ipi", "timer", "lint1", "error"};

// The local APIC took an interrupt: a message from the APIC bus (an I/O APIC's or an
// IPI) or one of its LVT entries (timer, LINT1, error). Fixed and lowest-priority set
// IRR (vectors 0-15 set an ESR bit instead); NMI and ExtINT go to the CPU's pins.
struct LapicAccept {
  static constexpr EventKind kKind = EventKind::LapicAccept;
  static constexpr std::string_view kName = "lapic-accept";
  u8 vector = 0;
  u8 delivery_mode = 0;  // 0-7, kApicDeliveryModeNames
  bool level = false;    // trigger mode (TMR)
  ApicSource source = ApicSource::IoApic;
  u8 source_apic_id = 0xFF;  // IPI: the sender's APIC ID; FFh otherwise
  u8 apic_id = 0;            // the accepting local APIC
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.vector);
    io.slot(&Event::size, s.delivery_mode);
    io.flag(kEventApicLevel, s.level);
    io.slot(&Event::a, s.source);
    io.slot(&Event::b, s.source_apic_id);
    io.slot(&Event::c, s.apic_id);
  }
};

// The CPU's interrupt acknowledge took a vector from the local APIC: the highest IRR
// vector moved to ISR, or the spurious vector (SVR 7:0) when the request went away
// (SDM "Spurious Interrupt"). `ppr` is the processor priority the vector was above
// (before the ISR bit was set).
struct LapicDispatch {
  static constexpr EventKind kKind = EventKind::LapicDispatch;
  static constexpr std::string_view kName = "lapic-dispatch";
  u8 vector = 0;
  u8 ppr = 0;
  bool spurious = false;
  u8 apic_id = 0;
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.vector);
    io.slot(&Event::a, s.ppr);
    io.flag(kEventApicSpurious, s.spurious);
    io.slot(&Event::c, s.apic_id);
  }
};

// A write of the EOI register that ended the highest in-service vector; a
// level-triggered one (its TMR bit set) is broadcast to the I/O APICs.
struct LapicEoi {
  static constexpr EventKind kKind = EventKind::LapicEoi;
  static constexpr std::string_view kName = "lapic-eoi";
  u8 vector = 0;
  bool level = false;  // the EOI was broadcast (TMR set)
  u8 apic_id = 0;
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.vector);
    io.flag(kEventApicLevel, s.level);
    io.slot(&Event::c, s.apic_id);
  }
};

// An interprocessor interrupt: the ICR (SDM "Interrupt Command Register (ICR)")
// decoded, as the write of its low half sent it.
struct LapicIpi {
  static constexpr EventKind kKind = EventKind::LapicIpi;
  static constexpr std::string_view kName = "lapic-ipi";
  u8 vector = 0;
  u8 delivery_mode = 0;    // 0-7, kApicDeliveryModeNames
  bool logical = false;    // destination mode
  bool assert = false;     // level (bit 14)
  bool level = false;      // trigger mode (bit 15)
  u8 shorthand = 0;        // bits 19:18: 0 none, 1 self, 2 all including self, 3 all excluding self
  u8 destination = 0;      // ICR bits 63:56
  u8 apic_id = 0;          // the sender
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.vector);
    io.slot(&Event::size, s.delivery_mode);
    io.flag(kEventApicLogical, s.logical);
    io.flag(kEventApicAssert, s.assert);
    io.flag(kEventApicLevel, s.level);
    io.slot(&Event::a, s.shorthand);
    io.slot(&Event::b, s.destination);
    io.slot(&Event::c, s.apic_id);
  }
};

// A local APIC timer expiry that requested the LVT timer entry's vector (one per
// `apic-timer-interrupts` count). `cycle` is the modeled cycle of the expiry itself
// (the event's own cycle is that of the instruction in progress).
struct LapicTimer {
  static constexpr EventKind kKind = EventKind::LapicTimer;
  static constexpr std::string_view kName = "lapic-timer";
  u8 vector = 0;
  bool periodic = false;
  u32 initial_count = 0;
  u8 apic_id = 0;
  u64 cycle = 0;
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::detail, s.vector);
    io.flag(kEventApicPeriodic, s.periodic);
    io.slot(&Event::a, s.initial_count);
    io.slot(&Event::c, s.apic_id);
    io.slot(&Event::value, s.cycle);
  }
};

// An I/O APIC redirection entry's message on the APIC bus (one per
// `ioapic-deliveries` count), whether or not a local APIC took it.
struct IoApicDelivery {
  static constexpr EventKind kKind = EventKind::IoApicDelivery;
  static constexpr std::string_view kName = "ioapic-delivery";
  u8 pin = 0;              // INTIN0-23
  u8 vector = 0;
  u8 delivery_mode = 0;    // 0-7, kApicDeliveryModeNames
  bool logical = false;    // destination mode
  u8 destination = 0;      // entry bits 63:56
  bool level = false;      // trigger mode
  bool taken = false;      // a local APIC accepted it
  template <class Self, class Io>
  static void fields(Self& s, Io& io) {
    io.slot(&Event::a, s.pin);
    io.slot(&Event::detail, s.vector);
    io.slot(&Event::size, s.delivery_mode);
    io.flag(kEventApicLogical, s.logical);
    io.slot(&Event::b, s.destination);
    io.flag(kEventApicLevel, s.level);
    io.flag(kEventApicTaken, s.taken);
  }
};

// Every record, in EventKind order.
using EventRecords = std::tuple<Instruction, RegisterWrite, MemoryAccess, SegmentLoad, Exception, TaskSwitch, Io,
                                ControlRegister, PageWalk, TlbMiss, Halt, Wake, LapicAccept, LapicDispatch, LapicEoi,
                                LapicIpi, LapicTimer, IoApicDelivery>;

// ---- conversions -----------------------------------------------------------------

struct EventWriter {
  Event& event;
  template <class Slot, class Field>
  void slot(Slot Event::*slot, const Field& field) {
    event.*slot = static_cast<Slot>(field);
  }
  void flag(u8 mask, bool field) {
    if (field) event.flags |= mask;
  }
  void bytes(std::span<const u8> field) {
    event.size = static_cast<u8>(field.size());
    for (std::size_t i = 0; i < field.size() && i < event.bytes.size(); ++i) event.bytes[i] = field[i];
  }
};

struct EventReader {
  const Event& event;
  template <class Slot, class Field>
  void slot(Slot Event::*slot, Field& field) {
    field = static_cast<Field>(event.*slot);
  }
  void flag(u8 mask, bool& field) { field = event.flags & mask; }
  void bytes(std::span<const u8>& field) {
    field = std::span<const u8>(event.bytes.data(), event.size < event.bytes.size() ? event.size : event.bytes.size());
  }
};

// The positional Event of a record (instruction and cycle are the tracer's).
template <class Record>
Event to_event(const Record& record) {
  Event event;
  event.kind = Record::kKind;
  EventWriter writer{event};
  Record::fields(record, writer);
  return event;
}

// The record of an Event of Record's kind (spans point into `event`).
template <class Record>
Record from_event(const Event& event) {
  Record record;
  EventReader reader{event};
  Record::fields(record, reader);
  return record;
}

// Calls f(record) with the typed record of `event`.
template <class F>
decltype(auto) visit(const Event& event, F&& f) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) -> decltype(auto) {
    using Result = decltype(f(std::declval<const std::tuple_element_t<0, EventRecords>&>()));
    Result (*const table[])(const Event&, F&) = {+[](const Event& e, F& g) -> Result {
      return g(from_event<std::tuple_element_t<K, EventRecords>>(e));
    }...};
    return table[static_cast<std::size_t>(event.kind)](event, f);
  }(std::make_index_sequence<kEventKindCount>());
}

// Whether `detail` is one the writer can produce for `kind` (readers index name
// tables by it).
constexpr bool detail_valid(EventKind kind, u8 detail) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    bool valid = true;
    ((static_cast<std::size_t>(kind) == K ? (valid = [&] {
       using R = std::tuple_element_t<K, EventRecords>;
       if constexpr (requires { R::detail_valid(detail); }) return R::detail_valid(detail);
       else return true;
     }())
                                          : false),
     ...);
    return valid;
  }(std::make_index_sequence<kEventKindCount>());
}

namespace detail {
template <std::size_t... K>
constexpr bool in_kind_order(std::index_sequence<K...>) {
  return ((static_cast<std::size_t>(std::tuple_element_t<K, EventRecords>::kKind) == K) && ...);
}
}  // namespace detail
static_assert(std::tuple_size_v<EventRecords> == kEventKindCount, "a record for every EventKind");
static_assert(detail::in_kind_order(std::make_index_sequence<kEventKindCount>()), "EventRecords in EventKind order");

}  // namespace x86lab::events

namespace x86lab {

// Event kind names, as --trace-filter takes them and the text format prints them.
inline constexpr std::array<std::string_view, kEventKindCount> kEventKindNames =
    []<std::size_t... K>(std::index_sequence<K...>) {
      return std::array<std::string_view, kEventKindCount>{std::tuple_element_t<K, events::EventRecords>::kName...};
    }(std::make_index_sequence<kEventKindCount>());

constexpr std::string_view name_of(EventKind kind) { return kEventKindNames[static_cast<std::size_t>(kind)]; }

}  // namespace x86lab
