// The x87 environment and state images of FNSTENV/FLDENV (14 or 28 bytes) and
// FNSAVE/FRSTOR (94 or 108 bytes) in their four layouts: 16- or 32-bit operand size,
// real-address (also virtual-8086) or protected mode (Intel SDM Vol. 1, "Saving the
// x87 FPU's State with FSTENV/FNSTENV and FSAVE/FNSAVE", Figures "Protected Mode x87
// FPU State Image in Memory, 32-Bit Format" and its three siblings).
#pragma once
#include "cpu/x87/fpu_state.h"

namespace x86lab::x87 {

enum class ImageLayout : u8 { Real16, Protected16, Real32, Protected32 };

constexpr ImageLayout image_layout(bool operand_size_32, bool real_address) {
  if (operand_size_32) return real_address ? ImageLayout::Real32 : ImageLayout::Protected32;
  return real_address ? ImageLayout::Real16 : ImageLayout::Protected16;
}
constexpr unsigned environment_size(ImageLayout layout) {
  return layout == ImageLayout::Real32 || layout == ImageLayout::Protected32 ? 28 : 14;
}
constexpr unsigned state_size(ImageLayout layout) { return environment_size(layout) + 80; }

// Writes the environment (control, status, tag words and pointers) to `out`.
// Reserved halves of the 32-bit layouts read FFFFh, as Intel processors write them.
// The real-mode layouts hold 20- or 32-bit linear instruction and operand addresses
// (selector * 16 + offset).
void store_environment(const FpuState& s, ImageLayout layout, u8* out);
// Loads an environment: the control word's reserved bits are forced as FLDCW does;
// a tag other than "empty" is recomputed from the register's contents; ES and B
// follow the unmasked flags.
void load_environment(FpuState& s, ImageLayout layout, const u8* in);

// FNSAVE and FRSTOR images: the environment, then ST(0)..ST(7), 10 bytes each.
void store_state(const FpuState& s, ImageLayout layout, u8* out);
void load_state(FpuState& s, ImageLayout layout, const u8* in);

// FNINIT: control 037Fh, status 0, all registers empty, pointers and opcode 0.
void initialize(FpuState& s);

}  // namespace x86lab::x87
