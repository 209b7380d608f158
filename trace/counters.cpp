// Text form of the always-on counters, printed by `x86lab run --stats`.
#include "trace/counters.h"

#include <ostream>

namespace x86lab {

void Counters::print(std::ostream& out, u64 cycles) const {
  out << "instructions " << instructions << "\n";
  out << "cycles " << cycles << "\n";
  for (std::size_t v = 0; v < exceptions_by_vector.size(); ++v)
    if (exceptions_by_vector[v]) out << "vector." << v << " " << exceptions_by_vector[v] << "\n";
  static constexpr const char* kSegmentNames[] = {"es", "cs", "ss", "ds", "fs", "gs"};
  for (std::size_t r = 0; r < segment_loads.size(); ++r)
    if (segment_loads[r]) out << "segment-load." << kSegmentNames[r] << " " << segment_loads[r] << "\n";
  static constexpr const char* kCauseNames[] = {"instruction", "far-transfer", "delivery", "task-switch", "fast"};
  for (std::size_t c = 0; c < segment_loads_by_cause.size(); ++c)
    if (segment_loads_by_cause[c]) out << "segment-load-cause." << kCauseNames[c] << " " << segment_loads_by_cause[c] << "\n";
  if (stack_switches) out << "stack-switches " << stack_switches << "\n";
  if (code_bytes) out << "code-bytes " << code_bytes << "\n";
  if (code_lines_32) out << "code-lines-32 " << code_lines_32 << "\n";
  if (code_lines_64) out << "code-lines-64 " << code_lines_64 << "\n";
  if (cache_model) out << "l1i-misses " << l1i_misses << "\nl1d-misses " << l1d_misses << "\n";
  for (std::size_t k = 0; k < kAccessKindCount; ++k) {
    if (accesses_by_kind[k]) out << "access." << kAccessKindNames[k] << " " << accesses_by_kind[k] << "\n";
    if (locked_by_kind[k]) out << "locked." << kAccessKindNames[k] << " " << locked_by_kind[k] << "\n";
  }
  if (undefined_opcodes) out << "undefined-opcodes " << undefined_opcodes << "\n";
  if (open_bus_reads) out << "open-bus-reads " << open_bus_reads << "\n";
  if (open_bus_writes) out << "open-bus-writes " << open_bus_writes << "\n";
  if (ioapic_deliveries) out << "ioapic-deliveries " << ioapic_deliveries << "\n";
  for (std::size_t pin = 0; pin < ioapic_deliveries_by_pin.size(); ++pin)
    if (ioapic_deliveries_by_pin[pin]) out << "ioapic-pin." << pin << " " << ioapic_deliveries_by_pin[pin] << "\n";
  if (io_reads) out << "io-reads " << io_reads << "\n";
  if (apic_timer_interrupts) out << "apic-timer-interrupts " << apic_timer_interrupts << "\n";
  if (apic_eois) out << "apic-eois " << apic_eois << "\n";
  if (apic_ipis) out << "apic-ipis " << apic_ipis << "\n";
  for (std::size_t v = 0; v < apic_dispatches_by_vector.size(); ++v)
    if (apic_dispatches_by_vector[v]) out << "apic-vector." << v << " " << apic_dispatches_by_vector[v] << "\n";
  if (io_writes) out << "io-writes " << io_writes << "\n";
  for (std::size_t port = 0; port < io_by_port.size(); ++port)
    if (io_by_port[port]) out << "io-port." << std::hex << port << std::dec << " " << io_by_port[port] << "\n";
  if (page_walks) out << "page-walks " << page_walks << "\n";
  if (tlb_flushes) out << "tlb-flushes " << tlb_flushes << "\n";
  if (tlb_page_invalidations) out << "invlpg " << tlb_page_invalidations << "\n";
  if (tlb_code_hits || tlb_code_misses)
    out << "tlb-hits.code " << tlb_code_hits << "\n" << "tlb-misses.code " << tlb_code_misses << "\n";
  if (tlb_data_hits || tlb_data_misses)
    out << "tlb-hits.data " << tlb_data_hits << "\n" << "tlb-misses.data " << tlb_data_misses << "\n";
  if (code_block_invalidations) out << "code-block-invalidations " << code_block_invalidations << "\n";
  if (replayed_instructions) out << "replayed-instructions " << replayed_instructions << "\n";
  if (code_range_end > code_range_begin) {
    out << "code-range " << std::hex << "0x" << code_range_begin << "-0x" << code_range_end << std::dec << "\n";
    out << "code-range-instructions " << code_range_instructions << "\n";
    out << "code-range-bytes " << code_range_bytes << "\n";
    out << "code-range-lines-32 " << code_range_lines_32 << "\n";
    out << "code-range-lines-64 " << code_range_lines_64 << "\n";
  }
  for (std::size_t op = 0; op < opcodes.size(); ++op)
    if (opcodes[op]) out << (op < 256 ? "opcode." : "opcode.0f.") << std::hex << (op & 0xFF) << std::dec << " " << opcodes[op] << "\n";
}

// Lines are numbered from the line holding code_range_begin; the bitmaps grow on demand.
void Counters::count_code_range(u32 linear, unsigned length) {
  ++code_range_instructions;
  code_range_bytes += length;
  const auto mark = [](std::vector<bool>& seen, u64 index) {
    if (index >= seen.size()) seen.resize(index + 1);
    if (seen[index]) return false;
    seen[index] = true;
    return true;
  };
  const u64 last = u64{linear} + length - 1;
  for (u64 line = linear >> 5; line <= last >> 5; ++line) {
    if (mark(code_range_seen_32, line - (code_range_begin >> 5))) ++code_range_lines_32;
    if (mark(code_range_seen_64, (line >> 1) - (code_range_begin >> 6))) ++code_range_lines_64;
  }
}

}  // namespace x86lab
