// Shifts and rotates: ROL ROR RCL RCR SHL/SAL SHR SAR, SHLD, SHRD (Intel SDM Vol. 2,
// "SAL/SAR/SHL/SHR", "RCL/RCR/ROL/ROR", "SHLD", "SHRD"). The count is masked to 5
// bits; a masked count of 0 changes nothing, flags included.
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"

namespace x86lab {
namespace {

enum class Shift { Rol, Ror, Rcl, Rcr, Shl, Shr, Sar };

// kResolved: the row's register-only specialisation (kind BR/VR, cpu/opcode_map.tsv).
template <class T, Shift kind, bool kResolved>
void shift(Cpu& c, const Instruction& i) {
  u8 count_operand;
  if (!read_operand<u8, kResolved>(c, i, 1, count_operand)) return;
  const unsigned count = count_operand & 0x1F;
  if (count == 0) {
    T unused;
    (void)read_operand<T, kResolved>(c, i, 0, unused);  // the operand is still read (and can fault)
    return;
  }
  const bool carry = c.flag_set(flag::CF);
  u32 flags = 0, mask = flag::kStatus;
  const bool done = modify_operand<T, kResolved>(c, i, 0, [&](T v) {
    alu::Result<T> r{};
    switch (kind) {
      case Shift::Rol: r = alu::rol<T>(v, count); mask = flag::CF | flag::OF; break;
      case Shift::Ror: r = alu::ror<T>(v, count); mask = flag::CF | flag::OF; break;
      case Shift::Rcl: r = alu::rcl<T>(v, count % (alu::kBits<T> + 1), carry); mask = flag::CF | flag::OF; break;
      case Shift::Rcr: r = alu::rcr<T>(v, count % (alu::kBits<T> + 1), carry); mask = flag::CF | flag::OF; break;
      case Shift::Shl: r = alu::shl<T>(v, count); break;
      case Shift::Shr: r = alu::shr<T>(v, count); break;
      case Shift::Sar: r = alu::sar<T>(v, count); break;
    }
    flags = r.flags;
    return r.value;
  });
  if (!done) return;
  // RCL/RCR by a multiple of width+1 rotate nothing but still write CF and OF.
  c.set_flags(flags, mask);
}

// SHLD/SHRD: the destination shifted with bits from the source. QUIRK: for a 16-bit
// operand and a count of 17-31 the SDM leaves the result and every status flag
// undefined; x86lab shifts the 48-bit value destination:source:destination, SHLD
// taking bits 47-32 of it shifted left by the count and SHRD bits 15-0 of it shifted
// right, CF the last bit shifted out (the result and CF an Intel host gives); OF and
// the rest as for any count (docs/undefined-flags.md; test
// UndefinedFlags.SixteenBitDoubleShiftsBeyond16ShiftDestinationSourceDestination).
template <class T, bool kLeft>
void double_shift(Cpu& c, const Instruction& i) {
  u8 count_operand;
  T source;
  if (!read_operand<u8>(c, i, 2, count_operand) || !read_operand<T>(c, i, 1, source)) return;
  const unsigned count = count_operand & 0x1F;
  if (count == 0) {
    T unused;
    (void)read_operand<T>(c, i, 0, unused);  // the operand is still read (and can fault)
    return;
  }
  u32 flags = 0;
  const bool done = modify_operand<T>(c, i, 0, [&](T destination) {
    constexpr unsigned bits = alu::kBits<T>;
    T result;
    bool cf;
    if constexpr (sizeof(T) == 4) {
      const u64 joined = kLeft ? (u64{destination} << 32) | source : (u64{source} << 32) | destination;
      result = kLeft ? static_cast<T>((joined << count) >> 32) : static_cast<T>(joined >> count);
      cf = kLeft ? (joined >> (64 - count)) & 1 : (joined >> (count - 1)) & 1;
    } else {
      // 16-bit: operate on destination:source:destination (48 bits).
      const u64 joined = kLeft ? (u64{destination} << 32) | (u64{source} << 16) | destination
                               : (u64{destination} << 32) | (u64{source} << 16) | destination;
      if (kLeft) {
        result = static_cast<T>(joined >> (32 - count));
        cf = (joined >> (48 - count)) & 1;
      } else {
        result = static_cast<T>(joined >> count);
        cf = (joined >> (count - 1)) & 1;
      }
    }
    flags = alu::zsp(result) | (cf ? flag::CF : 0);
    if ((result ^ destination) & alu::kSign<T>) flags |= flag::OF;
    (void)bits;
    return result;
  });
  if (!done) return;
  c.set_flags(flags, flag::kStatus);
}

// The rows of cpu/opcode_map.tsv whose family is exec_shift (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_shift.inc"
};

}  // namespace

FormList shift_forms() { return kForms; }

}  // namespace x86lab
