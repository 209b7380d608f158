// The x87 FPU's registers (Intel SDM Vol. 1, "x87 FPU Execution Environment"): eight
// 80-bit data registers used as a stack, the control, status and tag words, and the
// last instruction pointer, data pointer and opcode. Plain data inside CpuState.
#pragma once
#include <array>

#include "cpu/x87/float80.h"

namespace x86lab {

// Status word:
//   15  14  13-11  10  9   8   7   6   5   4   3   2   1   0
//  [ B | C3 | TOP | C2 | C1 | C0 | ES | SF | PE | UE | OE | ZE | DE | IE ]
namespace fsw {
inline constexpr u16 IE = 1u << 0, DE = 1u << 1, ZE = 1u << 2, OE = 1u << 3, UE = 1u << 4, PE = 1u << 5,
                     SF = 1u << 6, ES = 1u << 7, C0 = 1u << 8, C1 = 1u << 9, C2 = 1u << 10, C3 = 1u << 14,
                     B = 1u << 15;
inline constexpr u16 kExceptions = 0x3F;
inline constexpr u16 kConditionCodes = C0 | C1 | C2 | C3;
inline constexpr unsigned kTopShift = 11;
inline constexpr u16 kTop = 7u << kTopShift;
}  // namespace fsw

// Control word:
//   15-13  12   11-10  9-8   7   6   5   4   3   2   1   0
//  [  -  | X  |  RC  | PC  | - | 1 | PM | UM | OM | ZM | DM | IM ]
// X (infinity control) is kept for the 287 and ignored by the 387 and later.
namespace fcw {
inline constexpr u16 kMasks = 0x3F;
inline constexpr u16 kAfterInit = 0x037F;   // FNINIT: all masked, double extended, round to nearest
inline constexpr u16 kAfterReset = 0x0040;  // RESET (SDM "Processor State After Reset")
inline constexpr u16 kWritable = 0x1F3F;    // FLDCW: bits 15-13, 7 read 0 and bit 6 reads 1
}  // namespace fcw

// Tag values, two bits per physical register R0-R7.
enum class Tag : u8 { Valid = 0, Zero = 1, Special = 2, Empty = 3 };

struct FpuState {
  std::array<x87::Float80, 8> registers{};  // R0-R7; ST(i) is R((TOP + i) mod 8)
  u16 control = fcw::kAfterReset;
  u16 status = 0;
  u16 tag = 0x5555;  // RESET tags every register as zero (they hold +0.0)
  // The last non-control instruction: its CS:EIP (pointing at its first prefix), its
  // opcode (low 3 bits of the first opcode byte and the ModRM byte, 11 bits) and its
  // memory operand's segment selector and offset.
  u32 fip = 0;
  u16 fcs = 0;
  u16 fop = 0;
  u32 fdp = 0;
  u16 fds = 0;

  unsigned top() const { return (status >> fsw::kTopShift) & 7; }
  void set_top(unsigned top) { status = static_cast<u16>((status & ~fsw::kTop) | ((top & 7) << fsw::kTopShift)); }
  unsigned physical(unsigned i) const { return (top() + i) & 7; }  // ST(i) -> R number
  Tag tag_of(unsigned r) const { return static_cast<Tag>((tag >> (2 * r)) & 3); }
  void set_tag(unsigned r, Tag t) {
    tag = static_cast<u16>((tag & ~(3u << (2 * r))) | (static_cast<unsigned>(t) << (2 * r)));
  }
  bool empty(unsigned i) const { return tag_of(physical(i)) == Tag::Empty; }
  x87::Float80 st(unsigned i) const { return registers[physical(i)]; }
};

// The tag a register's contents earn (SDM "x87 FPU Tag Word").
constexpr Tag tag_for(x87::Float80 v) {
  switch (x87::classify(v)) {
    case x87::Category::Zero: return Tag::Zero;
    case x87::Category::Normal: return Tag::Valid;
    default: return Tag::Special;
  }
}

}  // namespace x86lab
