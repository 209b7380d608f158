// x87 transcendental instructions: FSIN, FCOS, FSINCOS, FPTAN, FPATAN, F2XM1, FYL2X,
// FYL2XP1 (Intel SDM Vol. 1, "Transcendental Instructions"; Vol. 2, each page).
#include "cpu/x87/exec_families.h"
#include "cpu/x87/transcendental.h"

namespace x86lab::x87 {
namespace {

constexpr Float80 kOne = make_float80(false, kExponentBias, kIntegerBit);

// FSIN and FCOS: ST(0) = f(ST(0)); an argument beyond 2^63 sets C2 and stays.
template <Result (*kFunction)(const Operand&, const Environment&)>
void trigonometric(Fpu& f) {
  f.set_condition(fsw::C2, 0);
  if (f.empty(0)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  const Operand x = f.operand(0);
  if (!trigonometric_range(x)) {
    f.set_condition(fsw::C2 | fsw::C1, fsw::C2);
    return;
  }
  f.store(0, kFunction(x, f.environment()));
}

// FSINCOS: ST(0) = cos, below it sin; FPTAN: ST(0) = 1.0, below it tan. Both need
// a free register for the push.
template <bool kSinCos>
void two_results(Fpu& f) {
  f.set_condition(fsw::C2, 0);
  if (!room_for_two_results(f)) return;
  const Operand x = f.operand(0);
  if (!trigonometric_range(x)) {
    f.set_condition(fsw::C2 | fsw::C1, fsw::C2);
    return;
  }
  const Environment env = f.environment();
  const Result first = kSinCos ? sine(x, env) : tangent(x, env);
  Result second = kSinCos ? cosine(x, env) : Result{kOne};
  if (is_nan(classify(first.value))) second = first;  // a NaN operand or #IA: both results are that NaN
  const Result both{first.value, static_cast<u8>(first.exceptions | second.exceptions),
                    kSinCos ? second.rounded_up : first.rounded_up};
  f.raise(both.exceptions);
  f.set_c1(both.rounded_up);
  if (f.stops(both.exceptions)) return;
  f.set_st(0, first.value);
  f.push(second.value);
}

// FPATAN, FYL2X, FYL2XP1: ST(1) = f(ST(1), ST(0)), then pop.
template <Result (*kFunction)(const Operand&, const Operand&, const Environment&)>
void binary_pop(Fpu& f) {
  if (f.empty(0) || f.empty(1)) {
    if (!f.stack_underflow()) return;
    f.set_st(1, kIndefinite);
    f.pop();
    return;
  }
  if (f.store(1, kFunction(f.operand(1), f.operand(0), f.environment()))) f.pop();
}

void f2xm1(Fpu& f) {
  if (f.empty(0)) {
    if (f.stack_underflow()) f.set_st(0, kIndefinite);
    return;
  }
  f.store(0, exp2_minus_1(f.operand(0), f.environment()));
}

// The rows of cpu/opcode_map.tsv whose family is x87/exec_transcendental (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/x87/exec_transcendental.inc"
};

}  // namespace

FormList transcendental_forms() { return kForms; }

}  // namespace x86lab::x87
