// Debug registers and alignment checking (Intel SDM Vol. 3, "Debug Registers",
// "Debug Exceptions (#DB)", "Interrupt 17 - Alignment Check Exception (#AC)").
//
// DR7:  31..16: R/Wn (2 bits) and LENn (2 bits) for n = 0..3, starting at bit 16
//       13 GD   9 GE  8 LE   7..0 G3 L3 G2 L2 G1 L1 G0 L0
//       R/W: 00 execute, 01 write, 10 I/O (CR4.DE), 11 read or write
//       LEN: 00 one byte, 01 two, 11 four (10 undefined on P6)
// DR6:  15 BT (task switch)  14 BS (single step)  13 BD (debug-register access)
//       3..0 B3..B0 (breakpoint condition met)
#include "cpu/cpu.h"

namespace x86lab {
namespace {
constexpr u32 kDr7Gd = 1u << 13;
constexpr u32 kDr6Bd = 1u << 13;

unsigned breakpoint_length(u32 dr7, unsigned n) {
  switch ((dr7 >> (18 + 4 * n)) & 3) {
    case 0: return 1;
    case 1: return 2;
    case 3: return 4;
    default: return 8;  // undefined on P6; later processors use it for eight bytes
  }
}
}  // namespace

void Cpu::write_debug_register(unsigned n, u32 value) {
  if (n == 6) value = (value & 0x0000E00Fu) | 0xFFFF0FF0u;
  if (n == 7) value = (value & 0xFFFF2BFFu) | 0x400u;
  state.dr[n] = value;
  code_breakpoints_ = data_breakpoints_ = 0;
  const u32 dr7 = state.dr[7];
  for (unsigned b = 0; b < 4; ++b) {
    if (!((dr7 >> (2 * b)) & 3)) continue;  // neither Ln nor Gn
    const unsigned rw = (dr7 >> (16 + 4 * b)) & 3;
    if (rw == 0) code_breakpoints_ |= 1u << b;
    else if (rw != 2) data_breakpoints_ |= 1u << b;
    // DEVIATION: R/W = 10 (I/O breakpoints with CR4.DE) is not modeled.
  }
  update_access_checks();
  if (code_breakpoints_) request_slow_step();
}

void Cpu::check_debug_register_access() {
  // General detect: with DR7.GD set, any MOV to or from a debug register is a #DB
  // fault with DR6.BD; GD is cleared so that the handler may use them.
  if (!(state.dr[7] & kDr7Gd)) return;
  state.dr[6] |= kDr6Bd;
  state.dr[7] &= ~kDr7Gd;
  throw Fault{1, std::nullopt, "general detect"};
}

void Cpu::update_access_checks() {
  access_checks_ = data_breakpoints_ != 0 || (state.cr0 & cr0::AM) != 0 || segment_observer_ != nullptr;
}

void Cpu::check_code_breakpoint() {
  fetch_.forget_entry();  // a code breakpoint faults before the fetch
  const u32 linear = state.segments[CS].cache.base + state.eip;
  u32 hits = 0;
  for (unsigned b = 0; b < 4; ++b)
    if ((code_breakpoints_ >> b & 1) && state.dr[b] == linear) hits |= 1u << b;
  if (!hits) return;
  state.dr[6] |= hits;
  throw Fault{1, std::nullopt, kInstructionBreakpointCause};
}

void Cpu::check_access(u32 linear, unsigned size, bool is_write) {
  // #AC(0): an unaligned data access at CPL 3 with CR0.AM and EFLAGS.AC set.
  if ((state.cr0 & cr0::AM) && (state.eflags & flag::AC) && state.cpl == 3 && (linear & (size - 1)))
    throw Fault{17, 0, "alignment check"};
  for (unsigned b = 0; b < 4; ++b) {
    if (!(data_breakpoints_ >> b & 1)) continue;
    const unsigned rw = (state.dr[7] >> (16 + 4 * b)) & 3;
    if (rw == 1 && !is_write) continue;
    const u32 length = breakpoint_length(state.dr[7], b);
    const u32 first = state.dr[b] & ~(length - 1);
    if (linear <= first + length - 1 && first <= linear + size - 1) {
      instruction_debug_hits_ |= 1u << b;
      request_slow_step();
    }
  }
}

void Cpu::note_debug_traps(bool single_step) {
  pending_debug_ |= instruction_debug_hits_ | (single_step ? kDr6Bs : 0);
  instruction_debug_hits_ = 0;
  attention_.raise(Attention::kDebugTrap);
}

}  // namespace x86lab
