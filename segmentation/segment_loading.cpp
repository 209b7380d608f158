// Segment loads in protected mode, with the SDM's checks in the SDM's order
// (Intel SDM Vol. 2, "MOV - Move", "POP", "LDS/LES/LFS/LGS/LSS"; Vol. 3, "Protection").
#include "segmentation/segment_loading.h"

#include "trace/tracer.h"

namespace x86lab {

namespace {

// Counts a completed protected-mode segment load, charges its cost and, while a
// tracer is attached, emits a SegmentLoad event. `fallback` names the register
// when `reg` is not one of the register file's six (a copy being loaded).
void account_load(SegmentationContext& context, const SegmentRegister& reg, u8 fallback, const DescriptorSlot* slot,
                  bool accessed_written) {
  ++context.counters.segment_loads_by_cause[static_cast<std::size_t>(context.cause)];
  if (slot) context.clock.charge(CostPart::SegmentLoad);
  emit(context.mmu.tracer(), [&] {
    const bool in_file = context.register_file && &reg >= context.register_file && &reg < context.register_file + 6;
    return events::SegmentLoad{.reg = in_file ? static_cast<u8>(&reg - context.register_file) : fallback,
                               .selector = reg.selector, .descriptor = slot ? slot->descriptor.raw() : 0,
                               .base = reg.cache.base, .limit = reg.cache.limit,
                               .accessed_written = slot && accessed_written,
                               .from_ldt = slot && Selector{reg.selector}.ti(), .null_selector = !slot};
  });
}

}  // namespace

DescriptorSlot read_descriptor(SegmentationContext& context, Selector selector, u8 fault_vector) {
  u32 table_base = context.gdtr.base, table_limit = context.gdtr.limit;
  if (selector.ti()) {
    if (!context.ldtr.cache.usable || (context.ldtr.selector & 0xFFFC) == 0)
      throw Fault{fault_vector, selector.error_code(), "selector in an unusable LDT"};
    table_base = context.ldtr.cache.base;
    table_limit = context.ldtr.cache.limit;
  }
  const u32 offset = u32{selector.index()} * 8;
  if (offset + 7 > table_limit) throw Fault{fault_vector, selector.error_code(), "selector outside descriptor table"};
  DescriptorSlot slot;
  slot.linear = table_base + offset;
  const u64 raw = context.mmu.read<u64>(slot.linear, AccessKind::DescriptorTableRead, false);
  slot.descriptor = Descriptor::parse(raw);
  return slot;
}

bool set_accessed_bit(SegmentationContext& context, DescriptorSlot& slot) {
  if (slot.descriptor.accessed() && !context.accessed_bit_always_written) return false;
  // Implied locked read-modify-write of the byte holding the type field (byte 5).
  const u8 old = context.mmu.locked_rmw<u8>(slot.linear + 5, AccessKind::DescriptorAccessedBit, false,
                                            [](u8 access_byte) { return access_byte | 1; });
  slot.descriptor = Descriptor::parse((slot.descriptor.raw() & ~(u64{0xFF} << 40)) | (u64{old | 1u} << 40));
  return true;
}

void load_data_segment(SegmentationContext& context, SegmentRegister& reg, u16 selector_value, u8 fault_vector) {
  const Selector selector{selector_value};
  if (selector.null()) {
    reg.selector = selector_value;
    reg.cache.usable = false;
    reg.cache.present = false;
    account_load(context, reg, DS, nullptr, false);
    return;
  }
  DescriptorSlot slot = read_descriptor(context, selector, fault_vector);
  const Descriptor& d = slot.descriptor;
  if (!d.s || (d.is_code() && !d.readable()))
    throw Fault{fault_vector, selector.error_code(), "not a data or readable code segment"};
  if (d.is_data() || !d.conforming()) {
    if (selector.rpl() > d.dpl || context.cpl > d.dpl) throw Fault{fault_vector, selector.error_code(), "data segment privilege"};
  }
  if (!d.present) throw np(selector.error_code(), "segment not present");
  const bool written = set_accessed_bit(context, slot);
  reg.selector = selector_value;
  reg.cache.load(slot.descriptor);
  account_load(context, reg, DS, &slot, written);
}

void load_stack_segment(SegmentationContext& context, SegmentRegister& reg, u16 selector_value, u8 fault_vector) {
  const Selector selector{selector_value};
  if (selector.null()) throw Fault{fault_vector, 0, "null stack segment"};
  DescriptorSlot slot = read_descriptor(context, selector, fault_vector);
  const Descriptor& d = slot.descriptor;
  if (selector.rpl() != context.cpl) throw Fault{fault_vector, selector.error_code(), "stack RPL != CPL"};
  if (!d.writable()) throw Fault{fault_vector, selector.error_code(), "stack segment not writable data"};
  if (d.dpl != context.cpl) throw Fault{fault_vector, selector.error_code(), "stack DPL != CPL"};
  if (!d.present) throw ss(selector.error_code(), "stack segment not present");  // #SS for instructions and TSS loads alike
  const bool written = set_accessed_bit(context, slot);
  reg.selector = selector_value;
  reg.cache.load(slot.descriptor);
  account_load(context, reg, SS, &slot, written);
}

void load_code_segment(SegmentationContext& context, SegmentRegister& cs, DescriptorSlot& slot, u16 selector,
                       u8 new_cpl) {
  const bool written = set_accessed_bit(context, slot);
  cs.selector = static_cast<u16>((selector & 0xFFFC) | new_cpl);
  cs.cache.load(slot.descriptor);
  account_load(context, cs, CS, &slot, written);
}

}  // namespace x86lab
