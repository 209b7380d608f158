// The x87 transcendental instructions: FSIN, FCOS, FSINCOS, FPTAN, FPATAN, F2XM1,
// FYL2X, FYL2XP1 (Intel SDM Vol. 1, "Transcendental Instruction Accuracy"; Vol. 2,
// each instruction's table of results).
//
// Values are computed in quadruple precision (113 bits) and rounded once to the
// register by the rounding control, so results lie within 1 ulp of the exact value.
// Like the hardware, FSIN/FCOS/FSINCOS/FPTAN reduce their argument with a 66-bit
// approximation of pi, which fixes the results near multiples of pi/2 to those of an
// x87 rather than of exact mathematics.
#pragma once
#include "cpu/x87/arithmetic.h"

namespace x86lab::x87 {

// FSIN/FCOS/FSINCOS/FPTAN accept |x| < 2^63; above, C2 = 1 and nothing changes.
bool trigonometric_range(const Operand& x);

Result sine(const Operand& x, const Environment& env);
Result cosine(const Operand& x, const Environment& env);
Result tangent(const Operand& x, const Environment& env);
Result arctangent(const Operand& y, const Operand& x, const Environment& env);  // FPATAN: atan(y / x) by quadrant
Result exp2_minus_1(const Operand& x, const Environment& env);                 // F2XM1
Result y_log2_x(const Operand& y, const Operand& x, const Environment& env);    // FYL2X
Result y_log2_x_plus_1(const Operand& y, const Operand& x, const Environment& env);  // FYL2XP1

}  // namespace x86lab::x87
