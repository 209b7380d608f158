// What the CPU window shows: EFLAGS, CR0, CR4 and DR7 decoded bit by bit with the
// SDM's names, and which registers changed since the last stop (Intel SDM Vol. 1,
// "EFLAGS Register"; Vol. 3, "Control Registers", "Debug Registers").
#pragma once
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/cpu_state.h"

namespace x86lab::gui {

// The registers whose bits the CPU window names.
enum class BitRegister : u8 { Eflags, Cr0, Cr4, Dr6, Dr7 };

// One named field of a register: `width` bits starting at `bit`.
struct BitField {
  BitRegister reg;
  u8 bit;
  u8 width;
  std::string_view name;         // the SDM's abbreviation: "CF", "IOPL", "CR0.PE" style without the prefix
  std::string_view description;  // the SDM's long name: "Carry flag"
};

// The architecturally defined fields of `reg`, lowest bit first (DR7: L0 G0 ... LE GE
// GD, R/W0 LEN0 ... R/W3 LEN3).
std::span<const BitField> bit_fields(BitRegister reg);

// The value of `field` in `value`.
constexpr u32 field_value(const BitField& field, u32 value) {
  return (value >> field.bit) & ((1u << field.width) - 1);
}

// The set one-bit fields by name and multi-bit fields as NAME=value, highest bit
// first, separated by spaces: EFLAGS 00000246h gives "IF ZF PF IOPL=0".
std::string describe_bits(std::span<const BitField> fields, u32 value);

// A register shown in the CPU window, by the name the SDM uses.
struct RegisterValue {
  std::string_view name;
  u32 value;
  bool changed;  // differs from the state at the last stop
};

// The general registers, EIP and EFLAGS, then CR0 CR2 CR3 CR4, then DR0-DR3, DR6, DR7,
// each compared with `previous` (the state when the machine last stopped).
std::vector<RegisterValue> general_registers(const CpuState& now, const CpuState& previous);
std::vector<RegisterValue> control_registers(const CpuState& now, const CpuState& previous);
std::vector<RegisterValue> debug_registers(const CpuState& now, const CpuState& previous);

}  // namespace x86lab::gui
