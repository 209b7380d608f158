// I/O protection (Intel SDM Vol. 1, "I/O Privilege Level", "I/O Permission Bit Map"):
// in protected mode with CPL > IOPL, and always in virtual-8086 mode, every port the
// access touches must have a clear bit in the TSS's I/O permission bitmap; otherwise
// #GP(0).
#pragma once
#include "cpu/cpu.h"

namespace x86lab {

inline void check_io_permission(Cpu& c, u16 port, unsigned size) {
  if (c.real_mode() || (!c.virtual_8086() && c.state.cpl <= c.iopl())) return;
  const DescriptorCache& tss = c.state.tr.cache;
  const bool tss32 = !tss.s && (tss.type == 9 || tss.type == 11);
  if (!tss32 || tss.limit < 0x67) throw gp(0, "I/O port not permitted (no 32-bit TSS bitmap)");
  const u16 map_base = c.mmu().read<u16>(tss.base + 0x66, AccessKind::TssRead, false);
  const u32 byte = u32{map_base} + port / 8;
  if (byte + 1 > tss.limit) throw gp(0, "I/O port beyond the permission bitmap");
  const u16 bits = c.mmu().read<u16>(tss.base + byte, AccessKind::TssRead, false);
  if ((bits >> (port % 8)) & ((1u << size) - 1)) throw gp(0, "I/O port not permitted by the bitmap");
}

}  // namespace x86lab
