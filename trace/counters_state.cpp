// The counters' part of a machine snapshot (docs/snapshots.md): every field of
// Counters, in declaration order.
#include "trace/counters_state.h"

namespace x86lab {

namespace {

void transfer_bools(StateArchive& a, std::vector<bool>& bits, const char* name) {
  std::vector<u8> bytes(bits.begin(), bits.end());
  a.local_sequence(bytes, name, u64{1} << 28);
  for (u8 byte : bytes)
    if (byte > 1) throw StateArchiveError(std::string(name) + ": value out of range");
  if (a.loading()) bits.assign(bytes.begin(), bytes.end());
}

}  // namespace

// A counter added to Counters changes its size: add it below (and to the list's
// order in docs/snapshots.md), then the size here.
// (9128 bytes on x86-64 Linux, the only host x86lab builds on.)
static_assert(sizeof(Counters) == 9128, "a field was added to Counters: add it to transfer_counters");

void transfer_counters(StateArchive& a, Counters& c) {
  a.field(c.instructions, "instructions");
  a.array(c.exceptions_by_vector, "exceptions by vector");
  a.array(c.accesses_by_kind, "accesses by kind");
  a.array(c.locked_by_kind, "locked accesses by kind");
  a.array(c.segment_loads, "segment loads");
  a.array(c.segment_loads_by_cause, "segment loads by cause");
  a.array(c.opcodes, "opcodes");
  a.same_size_sequence(c.instructions_by_row, "instructions by row");
  a.field(c.memory_operand_instructions, "memory-operand instructions");
  a.field(c.stack_switches, "stack switches");
  a.field(c.l1i_misses, "L1I misses");
  a.field(c.l1d_misses, "L1D misses");
  a.field(c.cache_model, "cache model on");
  a.field(c.code_bytes, "code bytes");
  a.field(c.code_lines_32, "code lines");
  a.field(c.code_lines_64, "code lines");
  a.field(c.undefined_opcodes, "undefined opcodes");
  a.field(c.open_bus_reads, "open bus reads");
  a.field(c.open_bus_writes, "open bus writes");
  a.field(c.ioapic_deliveries, "I/O APIC deliveries");
  a.array(c.ioapic_deliveries_by_pin, "I/O APIC deliveries by pin");
  a.field(c.io_reads, "I/O reads");
  a.field(c.apic_timer_interrupts, "APIC timer interrupts");
  a.field(c.apic_eois, "APIC EOIs");
  a.field(c.apic_ipis, "APIC IPIs");
  a.array(c.apic_dispatches_by_vector, "APIC dispatches by vector");
  a.field(c.io_writes, "I/O writes");
  a.same_size_sequence(c.io_by_port, "I/O by port");
  a.field(c.page_walks, "page walks");
  a.field(c.tlb_flushes, "TLB flushes");
  a.field(c.tlb_page_invalidations, "INVLPG");
  a.field(c.tlb_code_hits, "TLB code hits");
  a.field(c.tlb_code_misses, "TLB code misses");
  a.field(c.tlb_data_hits, "TLB data hits");
  a.field(c.tlb_data_misses, "TLB data misses");
  a.field(c.code_block_invalidations, "code block invalidations");
  a.field(c.replayed_instructions, "replayed instructions");
  a.field(c.code_range_begin, "code range");
  a.field(c.code_range_end, "code range");
  a.field(c.code_range_instructions, "code range instructions");
  a.field(c.code_range_bytes, "code range bytes");
  a.field(c.code_range_lines_32, "code range lines");
  a.field(c.code_range_lines_64, "code range lines");
  transfer_bools(a, c.code_range_seen_32, "code range lines seen");
  transfer_bools(a, c.code_range_seen_64, "code range lines seen");
}

}  // namespace x86lab
