// The PC memory map and the flat protected-mode entry state of the direct loaders.
#include "platform/loaders/boot_entry.h"

#include "segmentation/system_segments.h"

namespace x86lab {

std::vector<MemoryRange> pc_memory_map(u32 ram_bytes) {
  constexpr u32 kMiB = 0x100000;
  std::vector<MemoryRange> map;
  const u32 low_top = ram_bytes < 0x9FC00 ? ram_bytes : 0x9FC00;
  map.push_back({0, low_top, MemoryRange::Usable});
  map.push_back({0x9FC00, 0x400, MemoryRange::Reserved});      // extended BIOS data area
  map.push_back({0xA0000, 0x60000, MemoryRange::Reserved});    // video memory and BIOS ROM window
  if (ram_bytes > kMiB) map.push_back({kMiB, ram_bytes - kMiB, MemoryRange::Usable});
  return map;
}

void enter_flat_protected_mode(Cpu& cpu, PhysicalBus& bus, u32 entry, u32 gdt_address, u32 stack_top) {
  // Flat 4 GiB, present, DPL 0: code execute/read and data read/write, both accessed
  // so that no descriptor write-back happens when the kernel reloads them.
  constexpr u64 kNull = 0, kCode = 0x00CF9B000000FFFFull, kData = 0x00CF93000000FFFFull;
  const u64 gdt[] = {kNull, kNull, kCode, kData};
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned b = 0; b < 8; ++b) bus.poke(gdt_address + i * 8 + b, static_cast<u8>(gdt[i] >> (8 * b)));
  CpuState& s = cpu.state;
  s.gdtr = {gdt_address, sizeof(gdt) - 1};
  cpu.write_cr0(cr0::PE | cr0::ET);
  for (unsigned r = 0; r < 6; ++r) {
    const bool code = r == CS;
    // The same flat descriptors as the GDT entries above, through the segment-load code.
    load_flat_segment(s.segments[r], code ? kBootCodeSelector : kBootDataSelector, code, 0);
  }
  s.cpl = 0;
  s.eflags = 2;
  s.gpr = {};
  s.gpr[ESP] = stack_top;
  s.eip = entry;
  s.halted = false;
  bus.set_a20(true);
}

}  // namespace x86lab
