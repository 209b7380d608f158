// LDTR/TR loads, the TSS Busy bit and the descriptor-less segment loads (Intel SDM
// Vol. 3, "Task Management", "Segment Registers"; Vol. 2, "LLDT", "LTR").
#include "segmentation/system_segments.h"

namespace x86lab {

void load_real_mode_segment(SegmentRegister& reg, u16 selector) {
  reg.selector = selector;
  reg.cache.load_real_mode(selector);
}

void load_virtual_8086_segment(SegmentRegister& reg, u16 selector, bool code) {
  reg.selector = selector;
  reg.cache.load_virtual_8086(selector);
  if (code) reg.cache.type = 0xB;
}

void load_unusable_segment(SegmentRegister& reg, u16 selector) {
  reg.selector = selector;
  reg.cache.usable = false;
  reg.cache.present = false;
}

void load_flat_segment(SegmentRegister& reg, u16 selector, bool code, u8 dpl) {
  Descriptor d;
  d.base = 0;
  d.limit_raw = 0xFFFFF;
  d.g = d.db = d.s = d.present = true;
  d.type = code ? 0xB : 0x3;
  d.dpl = dpl;
  reg.selector = selector;
  reg.cache.load(d);
}

void reset_segment(SegmentRegister& reg, u16 selector, u32 base, u8 type, bool system) {
  reg.selector = selector;
  reg.cache.set_real_mode(base);
  reg.cache.type = type;
  reg.cache.s = !system;
}

void load_ldt(SegmentationContext& context, SegmentRegister& ldtr, u16 selector_value, u8 fault_vector,
              u8 not_present_vector) {
  const Selector selector{selector_value};
  if (selector.null()) return load_unusable_segment(ldtr, selector_value);
  if (selector.ti()) throw Fault{fault_vector, selector.error_code(), "LDT selector in the LDT"};
  const DescriptorSlot slot = read_descriptor(context, selector, fault_vector);
  if (slot.descriptor.s || slot.descriptor.type != static_cast<u8>(SystemType::Ldt))
    throw Fault{fault_vector, selector.error_code(), "not an LDT descriptor"};
  if (!slot.descriptor.present) throw Fault{not_present_vector, selector.error_code(), "LDT not present"};
  ldtr.selector = selector_value;
  ldtr.cache.load(slot.descriptor);
}

void set_tss_busy(SegmentationContext& context, u32 linear, bool busy) {
  // Implied locked read-modify-write of the access byte (byte 5), type bit 1 = Busy.
  context.mmu.locked_rmw<u8>(linear + 5, AccessKind::TssBusyBit, false, [busy](u8 access) {
    return static_cast<u8>(busy ? access | 2 : access & ~2);
  });
}

void load_task_register(SegmentationContext& context, SegmentRegister& tr, u16 selector_value) {
  const Selector selector{selector_value};
  if (selector.null()) throw gp(0, "LTR with a null selector");
  if (selector.ti()) throw gp(selector.error_code(), "LTR selector in the LDT");
  const DescriptorSlot slot = read_descriptor(context, selector);
  if (!is_tss_type(slot.descriptor) || is_tss_busy(slot.descriptor))
    throw gp(selector.error_code(), "LTR target not an available TSS");
  if (!slot.descriptor.present) throw np(selector.error_code(), "TSS not present");
  set_tss_busy(context, slot.linear, true);
  load_task_register_cache(tr, selector_value, slot.descriptor);
}

void load_segment_unchecked(SegmentationContext& context, SegmentRegister& reg, u16 selector_value) {
  load_unusable_segment(reg, selector_value);
  const Selector selector{selector_value};
  if (selector.null()) return;
  try {
    const DescriptorSlot slot = read_descriptor(context, selector);
    if (slot.descriptor.s) reg.cache.load(slot.descriptor);
  } catch (const Fault& fault) {
    if (fault.vector == 14) throw;  // a page fault on the table itself is real
  }
}

void load_task_register_cache(SegmentRegister& tr, u16 selector, const Descriptor& tss) {
  Descriptor busy = tss;
  busy.type |= 2;
  tr.selector = selector;
  tr.cache.load(busy);
}

}  // namespace x86lab
