// x87 data transfer: FLD, FST, FSTP, FILD, FIST, FISTP, FBLD, FBSTP, FXCH, FCMOVcc
// and the constants FLD1, FLDL2T, FLDL2E, FLDPI, FLDLG2, FLDLN2, FLDZ (Intel SDM
// Vol. 1, "Data Transfer Instructions", "Load Constant Instructions"; Vol. 2, each
// instruction's page). Memory operands are read first and written before any FPU
// state changes, so a fault leaves the FPU as it was.
#include "cpu/x87/exec_families.h"

namespace x86lab::x87 {
namespace {

// Pushes a value converted from memory: #D for a single/double denormal, #IA for an
// SNaN (delivered quieted when masked). Only an unmasked #IA keeps the value out.
void push_converted(Fpu& f, const Operand& op) {
  if (!f.empty(7)) {
    if (f.stack_overflow()) f.push(kIndefinite);
    return;
  }
  const u8 flags = op.category == Category::SignalingNaN ? exception::IE
                   : op.category == Category::Denormal   ? exception::DE
                                                         : 0;
  f.raise(flags);
  f.set_c1(false);
  // QUIRK: an unmasked #D still loads the value (measured on Intel hardware).
  if ((flags & exception::IE) && !f.masked(exception::IE)) return;
  const Float80 v = to_float80(op);
  f.push(op.category == Category::SignalingNaN ? quieted(v) : v);
}

// Pushes a value that needs no conversion check (m80, integers, BCD, ST(i)).
void push_exact(Fpu& f, Float80 v) {
  if (!f.empty(7)) {
    if (f.stack_overflow()) f.push(kIndefinite);
    return;
  }
  f.set_c1(false);
  f.push(v);
}

void fld_m32(Fpu& f) { push_converted(f, unpack_single(f.read<u32>())); }
void fld_m64(Fpu& f) { push_converted(f, unpack_double(f.read<u64>())); }
void fld_m80(Fpu& f) { push_exact(f, f.read_float80()); }
void fild_m16(Fpu& f) { push_exact(f, to_float80(unpack_integer(static_cast<i16>(f.read<u16>())))); }
void fild_m32(Fpu& f) { push_exact(f, to_float80(unpack_integer(static_cast<i32>(f.read<u32>())))); }
void fild_m64(Fpu& f) { push_exact(f, to_float80(unpack_integer(static_cast<i64>(f.read<u64>())))); }
void fbld(Fpu& f) {
  PackedBcd bcd;
  for (u32 k = 0; k < 10; ++k) bcd[k] = f.read<u8>(k);
  push_exact(f, from_bcd(bcd));
}

// FLD ST(i): the value is read before the push renumbers the stack.
void fld_st(Fpu& f) {
  const unsigned i = f.insn().rm;
  if (f.empty(i)) {  // underflow is reported before overflow
    if (f.stack_underflow()) f.push(kIndefinite);
    return;
  }
  push_exact(f, f.st(i));
}

// A store of ST(0) to memory finding ST(0) empty: with #IA masked `write` stores the
// QNaN (or integer) indefinite and a popping store pops; the stack underflow is
// flagged either way (SDM Vol. 1, "Stack Overflow or Underflow Exception (#IS)").
// False when ST(0) holds a value and the store goes on.
template <bool kPop, class Write>
bool store_underflowed(Fpu& f, Write write) {
  if (!f.empty(0)) return false;
  if (f.masked(exception::IE)) {
    write();
    if (kPop) f.pop();
  }
  f.stack_underflow();
  return true;
}

// The end of a store of ST(0) that goes ahead: `write` stores the converted value, its
// exceptions are flagged, C1 says whether it was rounded up, and a popping store pops.
template <bool kPop, class T, class Write>
void finish_store(Fpu& f, const Converted<T>& c, Write write) {
  write(c.value);
  f.raise(c.exceptions);
  f.set_c1(c.rounded_up);
  if (kPop) f.pop();
}

// A store of ST(0) to memory: `convert` gives the stored bits and the exceptions;
// `indefinite` is what a masked stack underflow stores. Unmasked #I, #O and #U store
// nothing and do not pop.
template <class T, bool kPop, class Convert>
void store_memory(Fpu& f, T indefinite, Convert convert) {
  if (store_underflowed<kPop>(f, [&] { f.write<T>(indefinite); })) return;
  const auto c = convert(f.st(0));
  const u8 unmasked = c.exceptions & ~f.s.control;
  if (unmasked & (exception::IE | exception::OE | exception::UE)) {
    // No store, no pop. QUIRK: only the exception that stopped it is flagged, not #P,
    // and C1 is cleared (measured on Intel hardware).
    f.raise(c.exceptions & (exception::IE | exception::OE | exception::UE));
    f.set_c1(false);
    return;
  }
  finish_store<kPop>(f, c, [&f](T value) { f.write<T>(value); });
}

template <bool kPop>
void fst_m32(Fpu& f) {
  const RoundingMode mode = f.environment().mode;
  store_memory<u32, kPop>(f, 0xFFC00000u, [&](Float80 v) { return to_single(v, mode); });
}
template <bool kPop>
void fst_m64(Fpu& f) {
  const RoundingMode mode = f.environment().mode;
  store_memory<u64, kPop>(f, 0xFFF8000000000000ull, [&](Float80 v) { return to_double(v, mode); });
}
template <class T, bool kPop>
void fist(Fpu& f) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  const RoundingControl rc = f.environment().mode.rc;
  const T indefinite = static_cast<T>(u64{1} << (kBits - 1));
  store_memory<T, kPop>(f, indefinite, [&](Float80 v) {
    const Converted<i64> c = to_integer(v, rc, kBits);
    return Converted<T>{static_cast<T>(c.value), c.exceptions, c.rounded_up};
  });
}

// FSTP m80fp: no conversion, no numeric exception.
void fstp_m80(Fpu& f) {
  if (store_underflowed<true>(f, [&] { f.write_float80(kIndefinite); })) return;
  f.write_float80(f.st(0));
  f.set_c1(false);
  f.pop();
}

void fbstp(Fpu& f) {
  const auto write = [&f](const PackedBcd& bcd) {
    f.check_write(10);
    for (u32 k = 0; k < 10; ++k) f.write<u8>(bcd[k], k);
  };
  if (store_underflowed<true>(f, [&] { write({0, 0, 0, 0, 0, 0, 0, 0xC0, 0xFF, 0xFF}); })) return;  // BCD indefinite
  const Converted<PackedBcd> c = to_bcd(f.st(0), f.environment().mode.rc);
  if (f.masked(exception::IE) || !(c.exceptions & exception::IE)) return finish_store<true>(f, c, write);
  // Unmasked #IA: no store, no pop.
  f.raise(c.exceptions);
  f.set_c1(c.rounded_up);
}

// FST/FSTP ST(i): a register copy without numeric exceptions.
template <bool kPop>
void fst_st(Fpu& f) {
  const unsigned i = f.insn().rm;
  if (f.empty(0)) {
    if (!f.stack_underflow()) return;
    f.set_st(i, kIndefinite);
  } else {
    f.set_c1(false);
    f.set_st(i, f.st(0));
  }
  if (kPop) f.pop();
}

// QUIRK: the undocumented D9 D8+i (FSTPNCE in Intel XED, "FSTP1" elsewhere) stores like
// FSTP ST(i), but an empty ST(0) raises no stack fault: the registers are left alone
// and the stack pops. Measured on Intel hardware by tests/cpu/x87_differential_test.cpp.
void fstpnce(Fpu& f) {
  if (!f.empty(0)) f.set_st(f.insn().rm, f.st(0));
  f.set_c1(false);
  f.pop();
}

// FXCH: an empty operand is a stack underflow; masked, it becomes the indefinite
// before the exchange.
void fxch(Fpu& f) {
  const unsigned i = f.insn().rm;
  Float80 a = f.st(0), b = f.st(i);
  if (f.empty(0) || f.empty(i)) {
    if (!f.stack_underflow()) return;
    if (f.empty(0)) a = kIndefinite;
    if (f.empty(i)) b = kIndefinite;
  } else {
    f.set_c1(false);
  }
  f.set_st(0, b);
  f.set_st(i, a);
}

// FCMOVcc ST(0), ST(i): the condition is the Jcc code of the EFLAGS test.
template <unsigned kCondition>
void fcmov(Fpu& f) {
  const unsigned i = f.insn().rm;
  if (f.empty(0) || f.empty(i)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  if (f.cpu().condition(kCondition)) f.set_st(0, f.st(i));  // C1 keeps its value
}

// The constants, each held to 128 bits (the last bit sticky: none is exact) and rounded
// by RC when loaded (387 and later).
//                                sign exponent significand           next 64 bits
constexpr Exact kOne{false, 0, 0x8000000000000000ull, 0};
constexpr Exact kLog2Ten{false, 1, 0xD49A784BCD1B8AFEull, 0x492BF6FF4DAFDB4Dull};
constexpr Exact kLog2E{false, 0, 0xB8AA3B295C17F0BBull, 0xBE87FED0691D3E89ull};
constexpr Exact kPi{false, 1, 0xC90FDAA22168C234ull, 0xC4C6628B80DC1CD1ull};
constexpr Exact kLog10Two{false, -2, 0x9A209A84FBCFF798ull, 0x8F8959AC0B7C9179ull};
constexpr Exact kLnTwo{false, -1, 0xB17217F7D1CF79ABull, 0xC9E3B39803F2F6AFull};

template <const Exact& kValue>
void load_constant(Fpu& f) {
  if (!f.empty(7)) {
    if (f.stack_overflow()) f.push(kIndefinite);
    return;
  }
  RoundingMode mode = f.environment().mode;
  const Rounded r = round(kValue, kExtended, mode);
  f.set_c1(false);
  f.push(pack_extended(r));
}
void fldz(Fpu& f) { push_exact(f, zero(false)); }

// The rows of cpu/opcode_map.tsv whose family is x87/exec_transfer (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/x87/exec_transfer.inc"
};

}  // namespace

FormList transfer_forms() { return kForms; }

}  // namespace x86lab::x87
