// Integer arithmetic and logic: ADD OR ADC SBB AND SUB XOR CMP TEST INC DEC NEG NOT,
// MUL IMUL DIV IDIV (Intel SDM Vol. 2, each instruction's page). Flags come from the
// pure functions of cpu/alu.h; undefined ones as cpu/undefined_flags.h states.
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"

namespace x86lab {
namespace {

// kResolved, the last template parameter of the executors below: the row's
// register-only specialisation (kind BR/VR in cpu/opcode_map.tsv; cpu/operands.h,
// dispatch_resolved), which the generator fills in.

// A binary operation writing operand 0 (or only flags, for CMP and TEST).
template <class T, alu::Result<T> (*Operation)(Cpu&, T, T), bool kWritesResult, bool kResolved>
void binary(Cpu& c, const Instruction& i) {
  T source;
  if (!read_operand<T, kResolved>(c, i, 1, source)) return;
  u32 flags = 0;
  if constexpr (kWritesResult) {
    const bool done = modify_operand<T, kResolved>(c, i, 0, [&](T destination) {
      const auto r = Operation(c, destination, source);
      flags = r.flags;
      return r.value;
    });
    if (!done) return;
  } else {
    T destination;
    if (!read_operand<T, kResolved>(c, i, 0, destination)) return;
    flags = Operation(c, destination, source).flags;
  }
  c.set_flags(flags, flag::kStatus);
}

template <class T> alu::Result<T> add_op(Cpu&, T a, T b) { return alu::add<T>(a, b); }
template <class T> alu::Result<T> adc_op(Cpu& c, T a, T b) { return alu::add<T>(a, b, c.flag_set(flag::CF)); }
template <class T> alu::Result<T> sub_op(Cpu&, T a, T b) { return alu::sub<T>(a, b); }
template <class T> alu::Result<T> sbb_op(Cpu& c, T a, T b) { return alu::sub<T>(a, b, c.flag_set(flag::CF)); }
template <class T> alu::Result<T> and_op(Cpu&, T a, T b) { return alu::logic<T>(a & b); }
template <class T> alu::Result<T> or_op(Cpu&, T a, T b) { return alu::logic<T>(a | b); }
template <class T> alu::Result<T> xor_op(Cpu&, T a, T b) { return alu::logic<T>(a ^ b); }

template <class T, bool kResolved> void add(Cpu& c, const Instruction& i) { binary<T, add_op<T>, true, kResolved>(c, i); }
template <class T, bool kResolved> void adc(Cpu& c, const Instruction& i) { binary<T, adc_op<T>, true, kResolved>(c, i); }
template <class T, bool kResolved> void sub(Cpu& c, const Instruction& i) { binary<T, sub_op<T>, true, kResolved>(c, i); }
template <class T, bool kResolved> void sbb(Cpu& c, const Instruction& i) { binary<T, sbb_op<T>, true, kResolved>(c, i); }
template <class T, bool kResolved> void and_(Cpu& c, const Instruction& i) { binary<T, and_op<T>, true, kResolved>(c, i); }
template <class T, bool kResolved> void or_(Cpu& c, const Instruction& i) { binary<T, or_op<T>, true, kResolved>(c, i); }
template <class T, bool kResolved> void xor_(Cpu& c, const Instruction& i) { binary<T, xor_op<T>, true, kResolved>(c, i); }
template <class T, bool kResolved> void cmp(Cpu& c, const Instruction& i) { binary<T, sub_op<T>, false, kResolved>(c, i); }
template <class T, bool kResolved> void test(Cpu& c, const Instruction& i) { binary<T, and_op<T>, false, kResolved>(c, i); }

// INC and DEC leave CF unchanged.
template <class T, bool kResolved>
void inc(Cpu& c, const Instruction& i) {
  u32 flags = 0;
  if (!modify_operand<T, kResolved>(c, i, 0, [&](T v) { const auto r = alu::add<T>(v, 1); flags = r.flags; return r.value; })) return;
  c.set_flags(flags, flag::kStatusNoCarry);
}
template <class T, bool kResolved>
void dec(Cpu& c, const Instruction& i) {
  u32 flags = 0;
  if (!modify_operand<T, kResolved>(c, i, 0, [&](T v) { const auto r = alu::sub<T>(v, 1); flags = r.flags; return r.value; })) return;
  c.set_flags(flags, flag::kStatusNoCarry);
}

template <class T, bool kResolved>
void neg(Cpu& c, const Instruction& i) {
  u32 flags = 0;
  if (!modify_operand<T, kResolved>(c, i, 0, [&](T v) { const auto r = alu::sub<T>(0, v); flags = r.flags; return r.value; })) return;
  c.set_flags(flags, flag::kStatus);
}

template <class T, bool kResolved>
void not_(Cpu& c, const Instruction& i) {
  (void)modify_operand<T, kResolved>(c, i, 0, [](T v) { return static_cast<T>(~v); });  // (nothing follows)
}

// The accumulator pair for multiply and divide: AX (byte), DX:AX, EDX:EAX.
template <class T>
u64 read_pair(Cpu& c) {
  if constexpr (sizeof(T) == 1) return c.reg<u16>(EAX);
  else return (u64{c.reg<T>(EDX)} << alu::kBits<T>) | c.reg<T>(EAX);
}
template <class T>
void write_pair(Cpu& c, u64 value) {
  if constexpr (sizeof(T) == 1) c.set_reg<u16>(EAX, static_cast<u16>(value));
  else {
    c.set_reg<T>(EAX, static_cast<T>(value));
    c.set_reg<T>(EDX, static_cast<T>(value >> alu::kBits<T>));
  }
}

// MUL/IMUL: CF = OF = the upper half is significant. SF, ZF, PF from the low half and
// AF cleared (undefined_flags.h).
template <class T>
u32 multiply_flags(T low, bool overflow) {
  return alu::zsp(low) | (overflow ? flag::CF | flag::OF : 0);
}

template <class T>
void mul(Cpu& c, const Instruction& i) {
  T source;
  if (!read_operand<T>(c, i, 0, source)) return;
  const u64 product = u64{c.reg<T>(EAX)} * u64{source};
  write_pair<T>(c, product);
  c.set_flags(multiply_flags<T>(static_cast<T>(product), (product >> alu::kBits<T>) != 0), flag::kStatus);
}

// IMUL Eb/Ev (one operand): the signed product in the accumulator pair.
template <class T>
void imul1(Cpu& c, const Instruction& i) {
  using S = alu::Signed<T>;
  T source;
  if (!read_operand<T>(c, i, 0, source)) return;
  const i64 product = i64{static_cast<S>(c.reg<T>(EAX))} * i64{static_cast<S>(source)};
  write_pair<T>(c, static_cast<u64>(product));
  c.set_flags(multiply_flags<T>(static_cast<T>(product), product != static_cast<S>(product)), flag::kStatus);
}

// IMUL Gv,Ev and IMUL Gv,Ev,Iz/Ib: a truncated signed product in a register.
template <class T, bool kResolved>
void imul(Cpu& c, const Instruction& i) {
  using S = alu::Signed<T>;
  const bool three = i.operands[2].method != OperandMethod::None;
  T a, b;
  if (!read_operand<T, kResolved>(c, i, three ? 1 : 0, a) || !read_operand<T, kResolved>(c, i, three ? 2 : 1, b)) return;
  const i64 product = i64{static_cast<S>(a)} * i64{static_cast<S>(b)};
  if (!write_operand<T, kResolved>(c, i, 0, static_cast<T>(product))) return;
  c.set_flags(multiply_flags<T>(static_cast<T>(product), product != static_cast<S>(product)), flag::kStatus);
}

// DIV/IDIV: #DE (signalled) for a zero divisor or a quotient that does not fit; flags unchanged.
template <class T>
void div(Cpu& c, const Instruction& i) {
  T source;
  if (!read_operand<T>(c, i, 0, source)) return;
  const u64 divisor = source;
  if (divisor == 0) return c.signal_fault(de("divide by zero"));
  const u64 dividend = read_pair<T>(c);
  const u64 quotient = dividend / divisor;
  if (quotient >> alu::kBits<T>) return c.signal_fault(de("quotient too large"));
  write_pair<T>(c, quotient | ((dividend % divisor) << alu::kBits<T>));
}

template <class T>
void idiv(Cpu& c, const Instruction& i) {
  using S = alu::Signed<T>;
  T source;
  if (!read_operand<T>(c, i, 0, source)) return;
  const i64 divisor = static_cast<S>(source);
  if (divisor == 0) return c.signal_fault(de("divide by zero"));
  using Wide = std::conditional_t<sizeof(T) == 4, i64, std::conditional_t<sizeof(T) == 2, i32, i16>>;
  const i64 dividend = static_cast<Wide>(static_cast<std::make_unsigned_t<Wide>>(read_pair<T>(c)));
  if (dividend == INT64_MIN && divisor == -1) return c.signal_fault(de("quotient too large"));
  const i64 quotient = dividend / divisor, remainder = dividend % divisor;
  if (quotient != static_cast<S>(quotient)) return c.signal_fault(de("quotient too large"));
  write_pair<T>(c, (u64{static_cast<T>(quotient)}) | (u64{static_cast<T>(remainder)} << alu::kBits<T>));
}

// The rows of cpu/opcode_map.tsv whose family is exec_arithmetic (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_arithmetic.inc"
};

}  // namespace

FormList arithmetic_forms() { return kForms; }

}  // namespace x86lab
