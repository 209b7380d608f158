// Parsing and encoding of segment descriptors and the descriptor cache's scaled limits
// (Intel SDM Vol. 3, "Segment Descriptors").
//
// Segment descriptor, high dword:
//  31        24 23 22  21  20  19    16 15 14 13 12 11   8 7         0
// | base 31:24 |G |D/B| L |AVL|limit 19:16|P | DPL |S | type | base 23:16|
// Low dword:
//  31                     16 15                       0
// |       base 15:0         |        limit 15:0        |
//
// Gate descriptor (call, interrupt, trap), high dword:
//  31              16 15 14 13 12 11   8 7   5 4      0
// |   offset 31:16   |P | DPL |0 | type |0 0 0|params |
// Low dword: | selector 31:16 | offset 15:0 |
#include "segmentation/descriptor.h"

namespace x86lab {

Descriptor Descriptor::parse(u64 raw) {
  const u32 low = static_cast<u32>(raw), high = static_cast<u32>(raw >> 32);
  Descriptor d;
  d.raw_ = raw;
  d.raw_high_ = high;
  d.base = (low >> 16) | ((high & 0xFF) << 16) | (high & 0xFF000000u);
  d.limit_raw = (low & 0xFFFF) | (high & 0x000F0000u);
  d.type = (high >> 8) & 0xF;
  d.s = (high >> 12) & 1;
  d.dpl = (high >> 13) & 3;
  d.present = (high >> 15) & 1;
  d.avl = (high >> 20) & 1;
  d.db = (high >> 22) & 1;
  d.g = (high >> 23) & 1;
  return d;
}

u64 Descriptor::encode() const {
  const u32 low = (base << 16) | (limit_raw & 0xFFFF);
  const u32 high = ((base >> 16) & 0xFF) | (u32{type} << 8) | (u32{s} << 12) | (u32{dpl} << 13) |
                   (u32{present} << 15) | (limit_raw & 0xF0000) | (u32{avl} << 20) | (u32{db} << 22) |
                   (u32{g} << 23) | (base & 0xFF000000u);
  return (u64{high} << 32) | low;
}

u32 Descriptor::gate_offset() const {
  return (static_cast<u32>(raw_) & 0xFFFF) | (raw_high_ & 0xFFFF0000u);
}

void DescriptorCache::compute_valid_range() {
  if (s && (type & 0xC) == 4) {  // expand-down data segment
    valid_min = limit + 1;       // wraps to 0 for limit 0xFFFFFFFF: then nothing is valid
    valid_max = db ? 0xFFFFFFFFu : 0xFFFFu;
    if (limit == 0xFFFFFFFFu) valid_min = 1, valid_max = 0;  // empty range
  } else {
    valid_min = 0;
    valid_max = limit;
  }
}

void DescriptorCache::load(const Descriptor& d) {
  base = d.base;
  limit = d.limit();
  type = d.type;
  s = d.s;
  dpl = d.dpl;
  present = d.present;
  db = d.db;
  g = d.g;
  avl = d.avl;
  usable = true;
  compute_valid_range();
}

// The real-mode cache with DPL 3 (V86 code runs at CPL 3).
void DescriptorCache::load_virtual_8086(u16 selector) {
  set_real_mode(u32{selector} << 4);
  dpl = 3;
}

void DescriptorCache::set_real_mode(u32 new_base) {
  base = new_base;
  limit = 0xFFFF;
  type = 3;
  s = true;
  dpl = 0;
  present = true;
  db = g = avl = false;
  usable = true;
  compute_valid_range();
}

Descriptor DescriptorCache::to_descriptor() const {
  Descriptor d;
  d.base = base;
  d.g = g;
  d.limit_raw = g ? limit >> 12 : limit & 0xFFFFF;
  d.type = type;
  d.s = s;
  d.dpl = dpl;
  d.present = present;
  d.db = db;
  d.avl = avl;
  return d;
}

}  // namespace x86lab
