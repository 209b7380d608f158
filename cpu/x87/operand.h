// Operands unpacked for arithmetic, and the conversions between the memory formats
// (single, double, double extended, word/short/long integer, packed BCD) and the
// registers (Intel SDM Vol. 1, "x87 FPU Floating-Point Data Types", "x87 FPU
// Integer Data Types", "Packed BCD Data Types", "Indefinites").
#pragma once
#include <array>

#include "cpu/x87/rounding.h"

namespace x86lab::x87 {

// An operand by class. Finite nonzero values (Normal, Denormal) are normalized:
// value = (-1)^sign * significand * 2^(exponent - 63) with bit 63 set, so a denormal
// single or double loaded into a register is still known to be a denormal operand.
struct Operand {
  Category category = Category::Zero;
  bool sign = false;
  i32 exponent = 0;
  u64 significand = 0;  // NaN: the double extended significand (payload at the top)

  bool finite_nonzero() const { return category == Category::Normal || category == Category::Denormal; }
  bool nan() const { return is_nan(category); }
  Exact exact() const { return {sign, exponent, significand, 0}; }
};

Operand unpack(Float80 v);
Operand unpack_single(u32 bits);
Operand unpack_double(u64 bits);
Operand unpack_integer(i64 value);

// The register value of an operand: exact for every class (a single or double
// denormal becomes a normal double extended value; a NaN keeps its payload).
Float80 to_float80(const Operand& op);
// A NaN with its quiet bit set.
constexpr Float80 quieted(Float80 nan) { return {nan.significand | kQuietBit, nan.sign_exponent}; }

// The result of converting a register to a memory format.
template <class T>
struct Converted {
  T value{};
  u8 exceptions = 0;
  bool rounded_up = false;
};

// FST/FSTP m32fp and m64fp: round by the rounding control to the destination's
// precision and range; SNaN and unsupported values are invalid (#IA); a QNaN keeps
// the top of its payload.
Converted<u32> to_single(Float80 v, const RoundingMode& mode);
Converted<u64> to_double(Float80 v, const RoundingMode& mode);

// FIST/FISTP: round to an integer of `bits` bits by the rounding control; NaN,
// infinity, unsupported values and out-of-range results are invalid and store the
// integer indefinite (the most negative integer).
Converted<i64> to_integer(Float80 v, RoundingControl rc, int bits);

// FBSTP: round to an integer; |value| >= 10^18 and non-numbers are invalid and store
// the packed BCD indefinite. Byte 9 holds the sign in bit 7.
using PackedBcd = std::array<u8, 10>;
Converted<PackedBcd> to_bcd(Float80 v, RoundingControl rc);
// FBLD: exact. Digits above 9 are undefined in the SDM; they are weighted like digits.
Float80 from_bcd(const PackedBcd& bcd);

}  // namespace x86lab::x87
