// Text form of the always-on counters, printed by `x86lab run --stats`.
#include "trace/counters.h"

#include <ostream>

namespace x86lab {

void Counters::print(std::ostream& out) const {
  out << "instructions " << instructions << "\n";
  out << "cycles " << cycles << "\n";
  for (std::size_t v = 0; v < exceptions_by_vector.size(); ++v)
    if (exceptions_by_vector[v]) out << "vector." << v << " " << exceptions_by_vector[v] << "\n";
  static constexpr const char* kSegmentNames[] = {"es", "cs", "ss", "ds", "fs", "gs"};
  for (std::size_t r = 0; r < segment_loads.size(); ++r)
    if (segment_loads[r]) out << "segment-load." << kSegmentNames[r] << " " << segment_loads[r] << "\n";
  for (std::size_t k = 0; k < kAccessKindCount; ++k) {
    if (accesses_by_kind[k]) out << "access." << kAccessKindNames[k] << " " << accesses_by_kind[k] << "\n";
    if (locked_by_kind[k]) out << "locked." << kAccessKindNames[k] << " " << locked_by_kind[k] << "\n";
  }
  if (undefined_opcodes) out << "undefined-opcodes " << undefined_opcodes << "\n";
  if (open_bus_reads) out << "open-bus-reads " << open_bus_reads << "\n";
  if (open_bus_writes) out << "open-bus-writes " << open_bus_writes << "\n";
  if (io_reads) out << "io-reads " << io_reads << "\n";
  if (io_writes) out << "io-writes " << io_writes << "\n";
}

}  // namespace x86lab
