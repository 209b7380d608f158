// What the direct kernel loaders share: the PC memory map they report (e820 types)
// and the CPU state both boot protocols start a kernel in: 32-bit protected mode,
// paging off, interrupts off, flat 4 GiB code and data segments from a GDT the
// loader writes (Intel SDM Vol. 3, "Switching to Protected Mode"; Linux boot
// protocol, "32-bit Boot Protocol"; Multiboot 0.6.96, "Machine state").
#pragma once
#include <vector>

#include "cpu/cpu.h"
#include "mmu/physical_bus.h"

namespace x86lab {

struct MemoryRange {
  enum Type : u32 { Usable = 1, Reserved = 2 };
  u64 base, length;
  Type type;
};

// RAM below 9FC00h and from 1 MiB to the top of RAM usable; the extended BIOS data
// area page and the legacy video/BIOS window (A0000h-FFFFFh) reserved.
std::vector<MemoryRange> pc_memory_map(u32 ram_bytes);

// Where the loaders put their own structures, below the extended BIOS data area.
inline constexpr u32 kBootGdtAddress = 0x6000;      // 4 descriptors
inline constexpr u32 kBootInfoAddress = 0x7000;     // Linux boot_params / Multiboot info (4 KiB)
inline constexpr u32 kCommandLineAddress = 0x8000;  // up to 4 KiB
inline constexpr u32 kBootStackTop = 0x9F000;
inline constexpr u16 kBootCodeSelector = 0x10;      // __BOOT_CS of the Linux protocol
inline constexpr u16 kBootDataSelector = 0x18;      // __BOOT_DS

// Writes a GDT (32 bytes at `gdt_address`) with flat code at 10h and flat data at
// 18h, loads GDTR, CS (10h), DS ES FS GS SS (18h), sets CR0 = PE | ET, EFLAGS = 2
// (IF = 0), CPL 0, ESP = `stack_top`, the other general registers 0, and EIP =
// `entry`; enables A20.
void enter_flat_protected_mode(Cpu& cpu, PhysicalBus& bus, u32 entry, u32 gdt_address = kBootGdtAddress,
                               u32 stack_top = kBootStackTop);

// Little-endian field access for the loaders' byte images.
inline u32 read_le(const std::vector<u8>& bytes, std::size_t offset, unsigned size) {
  u32 value = 0;
  for (unsigned i = 0; i < size; ++i) value |= u32{bytes[offset + i]} << (8 * i);
  return value;
}
inline void write_le(std::vector<u8>& bytes, std::size_t offset, unsigned size, u64 value) {
  for (unsigned i = 0; i < size; ++i) bytes[offset + i] = static_cast<u8>(value >> (8 * i));
}

}  // namespace x86lab
