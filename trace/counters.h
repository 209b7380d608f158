// Always-on counters: plain integers incremented on paths that already exist
// (DESIGN.md section 4). Units are in each field's name or comment.
#pragma once
#include <array>
#include <iosfwd>
#include <vector>

#include "trace/access_kind.h"
#include "trace/types.h"

namespace x86lab {

class Tracer;

// Whether the statistics on the per-instruction and per-access paths are counted:
// per-opcode counts, code bytes and code lines, accesses by kind, the TLB statistics
// model, I/O by port. Always 1 except in the build that measures their cost
// (CMake -DX86LAB_STATISTICS=OFF, bench/counters_cost.sh; issue 8 allows them 10 %).
// Instructions, cycles and the counters of rarer events (faults by vector, segment
// loads, descriptor reads, locked accesses, page walks) are always counted: the run
// needs the first two, and the others are off the per-instruction path.
#ifndef X86LAB_STATISTICS
#define X86LAB_STATISTICS 1
#endif
inline constexpr bool kStatistics = X86LAB_STATISTICS != 0;

// Why a segment register was loaded (Counters::segment_loads_by_cause).
enum class SegmentLoadCause : u8 { Instruction, FarTransfer, Delivery, TaskSwitch, Fast };
inline constexpr std::size_t kSegmentLoadCauseCount = 5;

struct Counters {
  u64 instructions = 0;                            // retired instructions; a REP string instruction once per batch of at most 1024 iterations (a step)
  std::array<u64, 256> exceptions_by_vector{};     // faults, traps, INT n and IRQs delivered, by vector
  std::array<u64, kAccessKindCount> accesses_by_kind{};  // bus accesses (any size) by kind
  // Counts one memory access of `kind` (the bus's and the Mmu's direct accesses alike).
  void count_access(AccessKind kind) {
    if constexpr (kStatistics) ++accesses_by_kind[static_cast<std::size_t>(kind)];
  }
  std::array<u64, kAccessKindCount> locked_by_kind{};    // locked read-modify-writes by kind
  std::array<u64, 6> segment_loads{};              // by register ES CS SS DS FS GS
  std::array<u64, kSegmentLoadCauseCount> segment_loads_by_cause{};  // by SegmentLoadCause
  std::array<u64, 512> opcodes{};                  // retired instructions by opcode (0-FF, 100-1FF = 0F map)
  // Retired instructions by row of the CPU's instruction table (InstructionTable::rows(),
  // which this layer cannot see; at most kInstructionRowCapacity rows): the counts the
  // cost model's per-mnemonic costs multiply (trace/modeled_clock.h).
  static constexpr std::size_t kInstructionRowCapacity = 2048;
  std::vector<u64> instructions_by_row = std::vector<u64>(kInstructionRowCapacity);
  u64 memory_operand_instructions = 0;             // retired instructions with a ModRM memory operand
  u64 stack_switches = 0;                          // inner-ring stack loads from the TSS (deliveries, call gates)
  u64 code_bytes = 0;                              // bytes of retired instructions
  u64 code_lines_32 = 0;                           // distinct 32-byte linear code lines of retired instructions (icache footprint)
  u64 code_lines_64 = 0;                           // distinct 64-byte linear code lines of retired instructions
  // The profile's L1 cache model (trace/cache_model.h): misses of its instruction cache
  // (per fetched instruction's first-byte line) and data cache (per accessed data line),
  // counted only while the model is on (cache_model: Cpu::set_cache_model, --cache-model;
  // print() and --stats-json show them only then).
  u64 l1i_misses = 0, l1d_misses = 0;
  bool cache_model = false;                        // the model is on: stored only here (Cpu::set_cache_model, Cpu::cache_model)
  u64 undefined_opcodes = 0;                       // instructions that raised #UD because not implemented/invalid
  u64 open_bus_reads = 0;                          // physical reads that hit no device (read 0xFF)
  u64 open_bus_writes = 0;                         // physical writes that hit no device (dropped)
  u64 ioapic_deliveries = 0;                       // messages the I/O APIC put on the APIC bus (taken or not)
  std::array<u64, 24> ioapic_deliveries_by_pin{};  // the same, by input pin INTIN0-23
  u64 io_reads = 0;                                // IN/INS accesses
  u64 apic_timer_interrupts = 0;                   // local APIC timer expiries that requested their vector
  u64 apic_eois = 0;                               // local APIC EOI writes that ended an in-service vector
  u64 apic_ipis = 0;                               // interprocessor interrupts sent through the ICR
  std::array<u64, 256> apic_dispatches_by_vector{}; // vectors the local APIC gave the CPU's INTA from IRR, by vector
  u64 io_writes = 0;                               // OUT/OUTS accesses
  std::vector<u64> io_by_port = std::vector<u64>(65536);  // I/O accesses (reads and writes) by port
  // Paging (mmu/). Walks and flushes are what x86lab did; tlb_* come from the model of
  // the profile's first-level TLB sizes (mmu/tlb_model.h) and never change results.
  u64 page_walks = 0;                              // page-table walks (TLB fills and Dirty-bit re-walks)
  u64 tlb_flushes = 0;                             // whole-TLB invalidations (MOV CR3, paging bits in CR0/CR4)
  u64 tlb_page_invalidations = 0;                  // INVLPG
  u64 tlb_code_hits = 0, tlb_code_misses = 0;      // instruction-TLB lookups of the model, per page run of fetches
  u64 tlb_data_hits = 0, tlb_data_misses = 0;      // data-TLB lookups of the model, per translated access
  // 64-byte physical code blocks retired by writes into their fetched instruction bytes
  // (a store, device write, poke or remap; one that touches two such blocks counts 2).
  u64 code_block_invalidations = 0;
  // Instructions retired at the CS selector, linear EIP and CPL of the most recent fault
  // once its handler has returned there without advancing EIP (the faulting instruction
  // executed a second time; cpu/replay_watch.h). Counted only while the CPU's replay watch
  // is attached (Cpu::watch_replays: the scenario runner, `x86lab run`).
  u64 replayed_instructions = 0;
  // A linear code range [code_range_begin, code_range_end) counted on its own (e.g. an
  // interrupt stub table; set before the run, from a scenario manifest's "code_range" or
  // --code-range; empty = off). Counts retired instructions whose first byte is inside.
  u32 code_range_begin = 0, code_range_end = 0;
  u64 code_range_instructions = 0;                 // retired instructions starting in the range
  u64 code_range_bytes = 0;                        // their bytes (sum of lengths)
  u64 code_range_lines_32 = 0;                     // distinct 32-byte linear lines their bytes touch
  u64 code_range_lines_64 = 0;                     // distinct 64-byte linear lines their bytes touch
  std::vector<bool> code_range_seen_32, code_range_seen_64;  // lines counted so far, by line - first line
  bool in_code_range(u32 linear) const { return linear - code_range_begin < code_range_end - code_range_begin; }
  // Counts one retired instruction of `length` bytes at `linear` (in_code_range(linear)).
  void count_code_range(u32 linear, unsigned length);

  // Writes "name value" lines for every non-zero counter, after the instructions and
  // `cycles` (the modeled clock, trace/modeled_clock.h, which is not a counter).
  void print(std::ostream& out, u64 cycles) const;
};

}  // namespace x86lab
