// I/O protection (Intel SDM Vol. 1, "I/O Privilege Level", "I/O Permission Bit Map"):
// in protected mode with CPL > IOPL, and always in virtual-8086 mode, every port the
// access touches must have a clear bit in the TSS's I/O permission bitmap; otherwise
// #GP(0).
#pragma once
#include "cpu/cpu.h"

namespace x86lab {

// The #GP(0) the access would raise, or nothing when it is permitted. Reading the
// bitmap may itself raise #PF (thrown).
inline std::optional<Fault> io_permission_fault(Cpu& c, u16 port, unsigned size) {
  if (c.real_mode() || (!c.virtual_8086() && c.state.cpl <= c.iopl())) return std::nullopt;
  const DescriptorCache& tss = c.state.tr.cache;
  const bool tss32 = !tss.s && (tss.type == 9 || tss.type == 11);
  if (!tss32 || tss.limit < 0x67) return gp(0, "I/O port not permitted (no 32-bit TSS bitmap)");
  const u16 map_base = c.mmu().read<u16>(tss.base + 0x66, AccessKind::TssRead, false);
  const u32 byte = u32{map_base} + port / 8;
  if (byte + 1 > tss.limit) return gp(0, "I/O port beyond the permission bitmap");
  const u16 bits = c.mmu().read<u16>(tss.base + byte, AccessKind::TssRead, false);
  if ((bits >> (port % 8)) & ((1u << size) - 1)) return gp(0, "I/O port not permitted by the bitmap");
  return std::nullopt;
}

// Throws the #GP(0) of io_permission_fault (inside string iterations, where a fault
// must unwind the iteration loop).
inline void check_io_permission(Cpu& c, u16 port, unsigned size) {
  if (auto fault = io_permission_fault(c, port, size)) throw *fault;
}

}  // namespace x86lab
