// Segment-register loads and the checks on every access through a segment
// (Intel SDM Vol. 3, "Protection", "Segment Loading Instructions in IA-32e Mode"
// aside, the MOV/POP/LDS/far-transfer pages of Vol. 2). This is the only code that
// writes a DescriptorCache; it raises #GP, #SS, #NP and #TS with the SDM's error codes.
#pragma once
#include "mmu/paging.h"
#include "segmentation/descriptor.h"
#include "trace/counters.h"
#include "trace/fault.h"

namespace x86lab {

// What segment loads need of the CPU's architectural state. The CPU owns the state;
// segmentation functions borrow it per call (DESIGN.md section 2).
struct SegmentationContext {
  Mmu& mmu;
  Counters& counters;
  ModeledClock& clock;  // the CPU's modeled clock (segment-load costs)
  const DescriptorTableRegister& gdtr;
  const SegmentRegister& ldtr;
  u8 cpl;
  bool accessed_bit_always_written;  // CPU profile: the i386 writes the Accessed bit on every load
  const SegmentRegister* register_file = nullptr;  // the CPU's ES..GS, to name registers in traces
  SegmentLoadCause cause = SegmentLoadCause::Instruction;  // for Counters::segment_loads_by_cause
};

// The selector's descriptor table entry: its linear address and parsed contents.
struct DescriptorSlot {
  u32 linear = 0;  // address of the 8-byte entry
  Descriptor descriptor;
};

// Reads the descriptor `selector` names (AccessKind::DescriptorTableRead).
// Raises `fault_vector`(selector) when the index is outside the GDT or LDT limit, or
// the selector points into an LDT that is not usable.
DescriptorSlot read_descriptor(SegmentationContext& context, Selector selector, u8 fault_vector = 13);

// Sets the Accessed bit of the descriptor at `slot` with a locked read-modify-write
// (AccessKind::DescriptorAccessedBit) if it is clear, or always when the profile says
// so (the i386). Returns true when it wrote. SDM "Automatic Locking".
bool set_accessed_bit(SegmentationContext& context, DescriptorSlot& slot);

// MOV/POP/LDS/LES/LFS/LGS to DS, ES, FS or GS in protected mode: null selectors
// load an unusable cache; otherwise `fault_vector`(selector) for a bad type or
// privilege (#GP for instructions, #TS for a task switch) and #NP(selector) when not present.
void load_data_segment(SegmentationContext& context, SegmentRegister& reg, u16 selector, u8 fault_vector = 13);

// MOV/POP/LSS to SS in protected mode: #GP(0) for a null selector, #GP(selector)
// unless RPL = DPL = CPL and the segment is writable data, #SS(selector) when not present.
// `fault_vector` is 13 for instructions and 10 (#TS) for loads from a TSS; a
// not-present stack raises #SS(selector) in both cases (SDM "CALL", "INT n", Table 7-1).
void load_stack_segment(SegmentationContext& context, SegmentRegister& reg, u16 selector, u8 fault_vector = 13);

// Loads CS from a code-segment descriptor already checked by the far-transfer code:
// sets Accessed, fills the cache and sets the selector's RPL to `new_cpl`.
void load_code_segment(SegmentationContext& context, SegmentRegister& cs, DescriptorSlot& slot, u16 selector,
                       u8 new_cpl);

// The fault an access of `size` bytes at `offset` through `reg` raises, or none. In
// protected mode the type must allow it (#GP(0)); in every mode the offset range must
// lie inside the scaled limit: #GP(0), or #SS(0) through SS (SDM Vol. 3, "Limit
// Checking", "Type Checking").
inline std::optional<Fault> segment_access_fault(const SegmentRegister& reg, u32 offset, unsigned size, bool is_write,
                                                 bool is_stack, bool protected_mode) {
  const DescriptorCache& cache = reg.cache;
  if (protected_mode) {
    if (!cache.usable) return gp(0, "null segment");
    if (is_write ? !cache.writable() : !cache.readable()) return gp(0, is_write ? "segment not writable" : "segment not readable");
  }
  if (!cache.contains(offset, size)) return is_stack ? ss(0, "stack limit") : gp(0, "segment limit");
  return std::nullopt;
}

// Checks an access as segment_access_fault does, throwing its fault, and returns the
// linear address.
inline u32 checked_linear(const SegmentRegister& reg, u32 offset, unsigned size, bool is_write, bool is_stack,
                          bool protected_mode) {
  if (auto fault = segment_access_fault(reg, offset, size, is_write, is_stack, protected_mode)) [[unlikely]] throw *fault;
  return reg.cache.base + offset;
}

}  // namespace x86lab
