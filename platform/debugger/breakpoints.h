// Breakpoints of the debugger: code breakpoints (matched before an instruction), event
// breakpoints (exception and interrupt vectors, segment loads, selectors, implied locked
// accesses, descriptor-table writes, I/O ports) and watchpoints on linear or physical
// ranges (matched on trace events), each with an optional register condition.
// Terms follow the Intel SDM (Vol. 3, "Segment Registers", "Automatic Locking",
// "Interrupt and Exception Handling"; Vol. 1, "I/O Port Addressing").
#pragma once
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cpu/cpu_state.h"
#include "trace/counters.h"
#include "trace/event.h"

namespace x86lab {

class Mmu;

enum class BreakpointKind : u8 {
  Linear,           // code: CS.base + EIP == address
  CsEip,            // code: CS selector == selector and EIP == address
  Vector,           // delivery of a vector in [address, address + length - 1] from one of `sources`
  SegmentLoad,      // a load of segment register `reg` (0-5 ES CS SS DS FS GS, 6 LDTR, 7 TR)
  Selector,         // a load of any segment register (or LDTR/TR) with (selector & mask) == (value & mask)
  LockedAccess,     // a locked access of AccessKind `access` (implied locks and LOCK prefix)
  DescriptorWrite,  // a write into the GDT, LDT or IDT (optionally one entry), by any access kind,
                    // matched on the table's physical bytes through any linear alias
  IoPort,           // IN/OUT/INS/OUTS to ports [address, address + length - 1]
  Watch,            // memory bytes [address, address + length - 1], linear or physical
};
inline constexpr std::string_view kBreakpointKindNames[] = {"linear",   "cs:eip",           "vector",
                                                            "segment-load", "selector",     "lock",
                                                            "descriptor-write", "io",       "watch"};
constexpr std::string_view name_of(BreakpointKind kind) { return kBreakpointKindNames[static_cast<u8>(kind)]; }

// Which accesses a watchpoint or port breakpoint catches (bit 0 read, bit 1 write).
enum class WatchAccess : u8 { Read = 1, Write = 2, Access = 3 };
enum class DescriptorTable : u8 { Gdt, Ldt, Idt };

// Registers a condition can test.
enum class ConditionRegister : u8 {
  Eax, Ecx, Edx, Ebx, Esp, Ebp, Esi, Edi, Eip, Eflags,
  Es, Cs, Ss, Ds, Fs, Gs,   // selectors
  Cpl, Cr0, Cr2, Cr3, Cr4,
};
inline constexpr std::string_view kConditionRegisterNames[] = {
    "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip", "eflags", "es",
    "cs",  "ss",  "ds",  "fs",  "gs",  "cpl", "cr0", "cr2", "cr3", "cr4"};
enum class CompareOp : u8 { Equal, NotEqual, Below, BelowOrEqual, Above, AboveOrEqual };

// One term: (register & mask) OP value, unsigned. A condition holds when all its terms do.
struct RegisterCondition {
  ConditionRegister reg = ConditionRegister::Eax;
  CompareOp op = CompareOp::Equal;
  u32 value = 0;
  u32 mask = 0xFFFFFFFFu;
  bool holds(const CpuState& state) const;
};
// Parses "eax==5", "cs!=8", "ecx<0x10", "eflags&0x40==0x40", terms joined by "&&".
// Throws std::invalid_argument with one line naming the bad term.
std::vector<RegisterCondition> parse_condition(const std::string& text);

// Bits of Breakpoint::sources for BreakpointKind::Vector (by EventSource).
inline constexpr u8 kSourceException = 1, kSourceSoftware = 2, kSourceExternal = 4, kSourceNmi = 8,
                    kSourcePrivileged = 16, kSourceAll = 31;

struct Breakpoint {
  u32 id = 0;                   // assigned by Breakpoints::add, never reused
  BreakpointKind kind = BreakpointKind::Linear;
  bool enabled = true;
  bool temporary = false;       // removed when it hits
  u32 address = 0;              // Linear/CsEip: address/EIP; Watch: first byte; Vector: first vector; IoPort: first port
  u32 length = 1;               // Watch: bytes (1 or more); Vector: vectors; IoPort: ports
  u16 selector = 0;             // CsEip: CS; Selector: the selector
  u16 selector_mask = 0xFFFF;   // Selector: bits compared (0xFFFC ignores the RPL)
  u8 reg = 0;                   // SegmentLoad: the register
  u8 sources = kSourceAll;      // Vector: which deliveries
  AccessKind access = AccessKind::DescriptorAccessedBit;  // LockedAccess
  WatchAccess watch = WatchAccess::Write;                  // Watch, IoPort
  bool physical = false;        // Watch: the range is physical
  DescriptorTable table = DescriptorTable::Gdt;            // DescriptorWrite
  std::optional<u16> entry{};   // DescriptorWrite: one entry (index), or any
  std::vector<RegisterCondition> condition{};
  u64 hits = 0;                 // times it matched with its condition true

  // Constructors by kind.
  static Breakpoint at_linear(u32 linear);
  static Breakpoint at_cs_eip(u16 cs, u32 eip);
  static Breakpoint on_vector(u8 first, u8 last, u8 sources = kSourceAll);
  static Breakpoint on_segment_load(u8 reg);
  static Breakpoint on_selector(u16 selector, u16 mask = 0xFFFC);
  static Breakpoint on_locked(AccessKind kind);
  static Breakpoint on_descriptor_write(DescriptorTable table, std::optional<u16> entry = std::nullopt);
  static Breakpoint on_port(u16 first, u16 last, WatchAccess access = WatchAccess::Access);
  static Breakpoint watch_range(u32 address, u32 length, WatchAccess access, bool physical = false);

  bool is_code() const { return kind == BreakpointKind::Linear || kind == BreakpointKind::CsEip; }
  // "2: watch write linear 00105000+4 if eax==5 (hits 1)"
  std::string describe() const;
};

// What hit: the breakpoint and the values of the event.
struct BreakpointHit {
  u32 id = 0;
  BreakpointKind kind = BreakpointKind::Linear;
  u16 cs = 0;          // CS:EIP of the instruction that was about to run (code) or that caused the event
  u32 eip = 0;
  u32 address = 0;     // code: linear EIP; Watch/DescriptorWrite/LockedAccess: linear; IoPort: port;
                       // Vector: vector; SegmentLoad/Selector: selector
  u32 physical = 0;    // memory events: physical address of the first byte
  u8 size = 0;         // memory and I/O: bytes
  bool write = false;  // memory and I/O: a write
  u64 value = 0;       // memory and I/O: the value; Vector: error code (when has_error_code)
  bool has_error_code = false;
  u8 reg = 0;          // SegmentLoad/Selector: the register loaded
  AccessKind access = AccessKind::Data;  // memory events: the access kind
};

// The counters match_counts compares.
struct CountSnapshot {
  std::array<u64, 6> segment_loads{};
  std::array<u64, kAccessKindCount> locked{};
  static CountSnapshot of(const Counters& counters) { return {counters.segment_loads, counters.locked_by_kind}; }
};

class Breakpoints {
 public:
  // Adds a breakpoint; returns its id (1, 2, ...).
  u32 add(Breakpoint breakpoint);
  bool remove(u32 id);
  // Removes the first code breakpoint of `kind` at `address` (for gdb's z0/z1); false if none.
  bool remove_code(u32 linear);
  // Removes the first watchpoint with exactly these fields; false if none.
  bool remove_watch(u32 address, u32 length, WatchAccess access, bool physical);
  bool set_enabled(u32 id, bool enabled);
  bool set_condition(u32 id, std::vector<RegisterCondition> condition);
  void clear() { list_.clear(); }
  // Sets every breakpoint's hit count to 0 (a restarted machine).
  void clear_hits() {
    for (Breakpoint& b : list_) b.hits = 0;
  }
  const Breakpoint* find(u32 id) const;
  std::span<const Breakpoint> all() const { return list_; }

  // Whether any enabled code / event breakpoint exists.
  bool has_code() const;
  bool has_events() const;

  // The first enabled code breakpoint at the instruction about to run whose condition
  // holds (counted in `hits`); temporary ones are removed.
  std::optional<BreakpointHit> match_code(const CpuState& state);
  // The first enabled event breakpoint or watchpoint the trace event hits, with the
  // state at the time of the event (mid-instruction for memory accesses). With `mmu`,
  // a descriptor-table write breakpoint matches a write to the physical bytes the
  // table's linear range (GDTR, IDTR, the LDT's cache) maps to now, whatever linear
  // address the write used (Linux 6.1 writes gdt_page through the direct map while
  // GDTR holds its fixmap alias; the CPU reads the table through GDTR's translation,
  // SDM Vol. 3 "Segment Descriptor Tables"); without it, only the table's linear range.
  std::optional<BreakpointHit> match_event(const Event& event, const CpuState& state, const Mmu* mmu = nullptr);
  // Segment loads of ES-GS and locked accesses are seen in all modes through the
  // counters (real-mode loads and page-table A/D updates emit no event): the first
  // breakpoint hit by the counts rising from `before` to `now` during the last step.
  std::optional<BreakpointHit> match_counts(const CountSnapshot& before, const CountSnapshot& now,
                                            const CpuState& state);
  // Whether any enabled breakpoint needs match_counts.
  bool has_counted() const;

 private:
  std::optional<BreakpointHit> take(Breakpoint& breakpoint, const CpuState& state, BreakpointHit hit);
  std::vector<Breakpoint> list_;
  u32 next_id_ = 1;
};

}  // namespace x86lab
