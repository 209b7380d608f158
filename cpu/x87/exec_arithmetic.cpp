// x87 basic arithmetic: FADD, FSUB, FSUBR, FMUL, FDIV, FDIVR with their P and I forms,
// FCHS, FABS, FSQRT, FRNDINT, FSCALE, FXTRACT, FPREM, FPREM1 (Intel SDM Vol. 1,
// "Basic Arithmetic Instructions"; Vol. 2, each instruction's page).
#include "cpu/x87/exec_families.h"

namespace x86lab::x87 {
namespace {

enum class Op : u8 { Add, Multiply, Subtract, SubtractReverse, Divide, DivideReverse };

Result compute(Op op, const Operand& destination, const Operand& source, const Environment& env) {
  switch (op) {
    case Op::Add: return add(destination, source, env);
    case Op::Multiply: return multiply(destination, source, env);
    case Op::Subtract: return subtract(destination, source, env);
    case Op::SubtractReverse: return subtract(source, destination, env);
    case Op::Divide: return divide(destination, source, env);
    case Op::DivideReverse: return divide(source, destination, env);
  }
  return {};
}

// ST(0) = ST(0) op memory.
template <Op kOp, class Source>
void arithmetic_memory(Fpu& f) {
  const Operand source = Source::read(f);
  if (f.empty(0)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  f.store(0, compute(kOp, f.operand(0), source, f.environment()));
}

// D8: ST(0) = ST(0) op ST(i); DC: ST(i) = ST(i) op ST(0); DE: the same and pop.
template <Op kOp, bool kToStackRegister, bool kPop>
void arithmetic_register(Fpu& f) {
  const unsigned i = f.insn().rm;
  const unsigned destination = kToStackRegister ? i : 0, source = kToStackRegister ? 0 : i;
  if (f.empty(0) || f.empty(i)) {
    if (!f.stack_underflow()) return;
    f.set_st(destination, kIndefinite);
    if (kPop) f.pop();
    return;
  }
  const Result r = compute(kOp, f.operand(destination), f.operand(source), f.environment());
  if (f.store(destination, r) && kPop) f.pop();
}

// A one-operand instruction on ST(0).
template <Result (*kOperation)(const Operand&, const Environment&)>
void unary(Fpu& f) {
  if (f.empty(0)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  f.store(0, kOperation(f.operand(0), f.environment()));
}

// FCHS and FABS change only the sign bit: no numeric exception, not even for SNaNs.
template <bool kNegate>
void sign_operation(Fpu& f) {
  if (f.empty(0)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  f.set_c1(false);
  f.set_st(0, kNegate ? negate(f.st(0)) : absolute(f.st(0)));
}

void fscale(Fpu& f) {
  if (f.empty(0) || f.empty(1)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  f.store(0, scale(f.operand(0), f.operand(1), f.environment()));
}

void fxtract(Fpu& f) {
  if (!room_for_two_results(f)) return;
  const Extracted e = extract(f.operand(0), f.environment());
  f.raise(e.exceptions);
  f.set_c1(false);
  if (f.stops(e.exceptions)) return;
  f.set_st(0, e.exponent);
  f.push(e.significand);
}

// FPREM/FPREM1: C2 = 1 for a partial remainder; a complete one puts the quotient's
// low bits in C0 (bit 2), C3 (bit 1) and C1 (bit 0). QUIRK: every other outcome
// clears C2, and a NaN result leaves C0 and C3 (measured on Intel hardware).
template <bool kIeee>
void fprem(Fpu& f) {
  f.set_condition(fsw::C2, 0);
  if (f.empty(0) || f.empty(1)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  const Remainder r = remainder(f.operand(0), f.operand(1), kIeee, f.environment());
  if (!f.store(0, r.result) || is_nan(classify(r.result.value))) return;
  const unsigned q = r.quotient;
  f.set_condition(fsw::kConditionCodes, (r.complete ? 0 : fsw::C2) | ((q & 4) ? fsw::C0 : 0) |
                                            ((q & 2) ? fsw::C3 : 0) | ((q & 1) ? fsw::C1 : 0));
}

// The rows of cpu/opcode_map.tsv whose family is x87/exec_arithmetic (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/x87/exec_arithmetic.inc"
};

#undef MEMORY_ROWS

}  // namespace

FormList arithmetic_forms() { return kForms; }

}  // namespace x86lab::x87
