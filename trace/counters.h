// Always-on counters: plain integers incremented on paths that already exist
// (DESIGN.md section 4). Units are in each field's name or comment.
#pragma once
#include <array>
#include <iosfwd>

#include "trace/access_kind.h"
#include "trace/types.h"

namespace x86lab {

struct Counters {
  u64 instructions = 0;                            // retired instructions
  u64 cycles = 0;                                  // modeled cycles
  std::array<u64, 256> exceptions_by_vector{};     // faults, traps, INT n and IRQs delivered, by vector
  std::array<u64, kAccessKindCount> accesses_by_kind{};  // bus accesses (any size) by kind
  std::array<u64, kAccessKindCount> locked_by_kind{};    // locked read-modify-writes by kind
  std::array<u64, 6> segment_loads{};              // by register ES CS SS DS FS GS
  u64 undefined_opcodes = 0;                       // instructions that raised #UD because not implemented/invalid
  u64 open_bus_reads = 0;                          // physical reads that hit no device (read 0xFF)
  u64 open_bus_writes = 0;                         // physical writes that hit no device (dropped)
  u64 io_reads = 0;                                // IN/INS accesses
  u64 io_writes = 0;                               // OUT/OUTS accesses

  // Writes "name value" lines for every non-zero counter.
  void print(std::ostream& out) const;
};

}  // namespace x86lab
