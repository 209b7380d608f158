// LDTR and TR loads, the TSS Busy bit, and the segment-register loads that read no
// descriptor: real-address and virtual-8086 mode, null selectors, SYSENTER's fixed
// descriptors and reset (Intel SDM Vol. 3, "Task Management", "Segment Registers",
// "Virtual-8086 Mode"). With segment_loading.cpp, the only code that writes a
// DescriptorCache (DESIGN.md section 3).
#pragma once
#include "segmentation/segment_loading.h"

namespace x86lab {

// Real-address mode: base = selector * 16; limit and attributes stay as they are
// (QUIRK: what makes "unreal mode" work on P6).
void load_real_mode_segment(SegmentRegister& reg, u16 selector);

// Virtual-8086 mode: base = selector * 16, limit FFFFh, DPL 3, present; read/write
// data, or execute/read code for CS.
void load_virtual_8086_segment(SegmentRegister& reg, u16 selector, bool code);

// A selector whose descriptor is not (or not yet) loaded: DS/ES/FS/GS after a null
// load or a return to an outer ring, the segment registers after a task switch's
// commit point until their descriptors are checked. Any access through it raises #GP(0).
void load_unusable_segment(SegmentRegister& reg, u16 selector);

// SYSENTER/SYSEXIT: flat 4 GiB code or data with the given DPL, read from no table
// (SDM "SYSENTER": the descriptors are "fixed" values).
void load_flat_segment(SegmentRegister& reg, u16 selector, bool code, u8 dpl);

// The state after reset: base, 64 KiB limit, present; `type` is a code/data type or,
// with `system`, a system type (LDT 2, busy TSS 11).
void reset_segment(SegmentRegister& reg, u16 selector, u32 base, u8 type, bool system = false);

// LLDT and a task switch's LDT load. A null selector leaves LDTR unusable. Raises
// `fault_vector`(selector) for a selector with TI = 1, outside the GDT or not naming
// an LDT descriptor, and `not_present_vector`(selector) for a not-present one
// (#GP/#NP for LLDT, #TS/#TS for a task switch: SDM "LLDT", "Task Switching").
void load_ldt(SegmentationContext& context, SegmentRegister& ldtr, u16 selector, u8 fault_vector = 13,
              u8 not_present_vector = 11);

// LTR: #GP(0) for a null selector, #GP(selector) for TI = 1, outside the GDT or not an
// available TSS, #NP(selector) when not present. Sets the descriptor's Busy bit with a
// locked read-modify-write (AccessKind::TssBusyBit, SDM "Automatic Locking").
void load_task_register(SegmentationContext& context, SegmentRegister& tr, u16 selector);

// Sets or clears the Busy bit (type bit 1) of the TSS descriptor at `linear` with a
// locked read-modify-write of its access byte (AccessKind::TssBusyBit).
void set_tss_busy(SegmentationContext& context, u32 linear, bool busy);

// After a fault past a task switch's commit point the remaining segment registers are
// loaded "without performing any additional limit, present, or type checks" (SDM
// "Interrupt 10 - Invalid-TSS Exception"): the descriptor the selector names is cached
// as it is when it can be read and is a code or data descriptor; otherwise the
// register stays unusable. Faults reading the table are swallowed.
void load_segment_unchecked(SegmentationContext& context, SegmentRegister& reg, u16 selector);

// A task switch's TR load: the checked new TSS descriptor, cached as busy.
void load_task_register_cache(SegmentRegister& tr, u16 selector, const Descriptor& tss);

// Whether `bytes` bytes can be pushed below `esp` (the stack pointer before the
// pushes) within the stack cache's limit, with the stack's address size (B bit).
inline bool stack_has_room(const DescriptorCache& ss, u32 esp, u32 bytes) {
  const u32 mask = ss.db ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 first = (esp - bytes) & mask, last = (esp - 1) & mask;
  return first <= last && first >= ss.valid_min && last <= ss.valid_max;
}

// True for the TSS types (16/32-bit, available or busy).
constexpr bool is_tss_type(const Descriptor& d) { return !d.s && (d.type & 5) == 1; }
constexpr bool is_tss32(const Descriptor& d) { return (d.type & 8) != 0; }
constexpr bool is_tss_busy(const Descriptor& d) { return (d.type & 2) != 0; }

}  // namespace x86lab
