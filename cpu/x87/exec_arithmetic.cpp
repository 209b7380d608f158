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

// The six operations of one escape byte, as the SDM orders them by ModRM.reg; the
// mnemonic starts with `prefix` ("F" for real operands, "FI" for integer ones).
#define MEMORY_ROWS(opcode, Source, size, prefix)                                                        \
  {opcode, 0, prefix "ADD", size, X87(arithmetic_memory<Op::Add, Source>), kMemoryOnly},                 \
  {opcode, 1, prefix "MUL", size, X87(arithmetic_memory<Op::Multiply, Source>), kMemoryOnly},            \
  {opcode, 4, prefix "SUB", size, X87(arithmetic_memory<Op::Subtract, Source>), kMemoryOnly},            \
  {opcode, 5, prefix "SUBR", size, X87(arithmetic_memory<Op::SubtractReverse, Source>), kMemoryOnly},    \
  {opcode, 6, prefix "DIV", size, X87(arithmetic_memory<Op::Divide, Source>), kMemoryOnly},              \
  {opcode, 7, prefix "DIVR", size, X87(arithmetic_memory<Op::DivideReverse, Source>), kMemoryOnly}

constexpr InstructionForm kForms[] = {
    MEMORY_ROWS(0xD8, Single, "Md", "F"),
    MEMORY_ROWS(0xDC, Double, "Mq", "F"),
    MEMORY_ROWS(0xDA, Short, "Md", "FI"),
    MEMORY_ROWS(0xDE, Word, "Mw", "FI"),
    {0xD8, 0, "FADD", "ST,ST(i)", X87(arithmetic_register<Op::Add, false, false>), kRegisterOnly},
    {0xD8, 1, "FMUL", "ST,ST(i)", X87(arithmetic_register<Op::Multiply, false, false>), kRegisterOnly},
    {0xD8, 4, "FSUB", "ST,ST(i)", X87(arithmetic_register<Op::Subtract, false, false>), kRegisterOnly},
    {0xD8, 5, "FSUBR", "ST,ST(i)", X87(arithmetic_register<Op::SubtractReverse, false, false>), kRegisterOnly},
    {0xD8, 6, "FDIV", "ST,ST(i)", X87(arithmetic_register<Op::Divide, false, false>), kRegisterOnly},
    {0xD8, 7, "FDIVR", "ST,ST(i)", X87(arithmetic_register<Op::DivideReverse, false, false>), kRegisterOnly},
    {0xDC, 0, "FADD", "ST(i),ST", X87(arithmetic_register<Op::Add, true, false>), kRegisterOnly},
    {0xDC, 1, "FMUL", "ST(i),ST", X87(arithmetic_register<Op::Multiply, true, false>), kRegisterOnly},
    {0xDC, 4, "FSUBR", "ST(i),ST", X87(arithmetic_register<Op::SubtractReverse, true, false>), kRegisterOnly},
    {0xDC, 5, "FSUB", "ST(i),ST", X87(arithmetic_register<Op::Subtract, true, false>), kRegisterOnly},
    {0xDC, 6, "FDIVR", "ST(i),ST", X87(arithmetic_register<Op::DivideReverse, true, false>), kRegisterOnly},
    {0xDC, 7, "FDIV", "ST(i),ST", X87(arithmetic_register<Op::Divide, true, false>), kRegisterOnly},
    {0xDE, 0, "FADDP", "ST(i),ST", X87(arithmetic_register<Op::Add, true, true>), kRegisterOnly},
    {0xDE, 1, "FMULP", "ST(i),ST", X87(arithmetic_register<Op::Multiply, true, true>), kRegisterOnly},
    {0xDE, 4, "FSUBRP", "ST(i),ST", X87(arithmetic_register<Op::SubtractReverse, true, true>), kRegisterOnly},
    {0xDE, 5, "FSUBP", "ST(i),ST", X87(arithmetic_register<Op::Subtract, true, true>), kRegisterOnly},
    {0xDE, 6, "FDIVRP", "ST(i),ST", X87(arithmetic_register<Op::DivideReverse, true, true>), kRegisterOnly},
    {0xDE, 7, "FDIVP", "ST(i),ST", X87(arithmetic_register<Op::Divide, true, true>), kRegisterOnly},
    {0xD9, 4, "FCHS", "", X87(sign_operation<true>), kRegisterOnly, 0},
    {0xD9, 4, "FABS", "", X87(sign_operation<false>), kRegisterOnly, 1},
    {0xD9, 6, "FXTRACT", "", X87(fxtract), kRegisterOnly, 4},
    {0xD9, 6, "FPREM1", "", X87(fprem<true>), kRegisterOnly, 5},
    {0xD9, 7, "FPREM", "", X87(fprem<false>), kRegisterOnly, 0},
    {0xD9, 7, "FSQRT", "", X87(unary<&square_root>), kRegisterOnly, 2},
    {0xD9, 7, "FRNDINT", "", X87(unary<&round_to_integral>), kRegisterOnly, 4},
    {0xD9, 7, "FSCALE", "", X87(fscale), kRegisterOnly, 5},
};

#undef MEMORY_ROWS

}  // namespace

FormList arithmetic_forms() { return kForms; }

}  // namespace x86lab::x87
