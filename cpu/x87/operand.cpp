// Unpacking of register and memory operands, and the store conversions (Intel SDM
// Vol. 1, "x87 FPU Floating-Point Data Types", "Indefinites"; Vol. 2, "FST/FSTP",
// "FIST/FISTP", "FBSTP", "FBLD").
#include "cpu/x87/operand.h"

#include <bit>

namespace x86lab::x87 {
namespace {

// A finite nonzero operand from a magnitude `fraction * 2^ulp_exponent`.
Operand from_magnitude(bool sign, u64 magnitude, i32 ulp_exponent, Category category) {
  const int width = std::bit_width(magnitude);
  return {category, sign, ulp_exponent + width - 1, magnitude << (64 - width)};
}

// Unpacks an IEEE single or double (`fraction_bits` stored fraction bits).
Operand unpack_ieee(u64 bits, int fraction_bits, int exponent_bits, int bias) {
  const bool sign = (bits >> (fraction_bits + exponent_bits)) & 1;
  const u64 max_exponent = (1ull << exponent_bits) - 1;
  const u64 biased = (bits >> fraction_bits) & max_exponent;
  const u64 fraction = bits & ((1ull << fraction_bits) - 1);
  if (biased == 0) {
    if (fraction == 0) return {Category::Zero, sign, 0, 0};
    return from_magnitude(sign, fraction, 1 - bias - fraction_bits, Category::Denormal);
  }
  const u64 significand = kIntegerBit | (fraction << (63 - fraction_bits));
  if (biased == max_exponent) {
    if (fraction == 0) return {Category::Infinity, sign, 0, kIntegerBit};
    const bool quiet = (significand & kQuietBit) != 0;
    return {quiet ? Category::QuietNaN : Category::SignalingNaN, sign, 0, significand};
  }
  return {Category::Normal, sign, static_cast<i32>(biased) - bias, significand};
}

// True for a rounded result the caller will not store: an unmasked overflow or
// underflow delivers no value to memory.
bool unmasked_range_error(const Rounded& r, const RoundingMode& mode) {
  return ((r.exceptions & exception::OE) && !mode.overflow_masked) ||
         ((r.exceptions & exception::UE) && !mode.underflow_masked);
}

// The NaN or special conversion to an IEEE format; returns false for finite values.
bool convert_special(Float80 v, int fraction_bits, int exponent_bits, u64& out, u8& exceptions) {
  const u64 sign = u64{v.sign()} << (fraction_bits + exponent_bits);
  const u64 exponent_all_ones = ((1ull << exponent_bits) - 1) << fraction_bits;
  const u64 quiet = 1ull << (fraction_bits - 1);
  const u64 fraction = (v.significand >> (63 - fraction_bits)) & ((1ull << fraction_bits) - 1);
  switch (classify(v)) {
    case Category::Unsupported:
      exceptions = exception::IE;
      out = (u64{1} << (fraction_bits + exponent_bits)) | exponent_all_ones | quiet;
      return true;
    case Category::SignalingNaN:
      exceptions = exception::IE;
      out = sign | exponent_all_ones | quiet | fraction;
      return true;
    case Category::QuietNaN: out = sign | exponent_all_ones | fraction; return true;
    case Category::Infinity: out = sign | exponent_all_ones; return true;
    case Category::Zero: out = sign; return true;
    default: return false;
  }
}

template <class T>
Converted<T> to_ieee(Float80 v, const RoundingMode& mode, const Format& format, int exponent_bits) {
  Converted<T> c;
  u64 special = 0;
  if (convert_special(v, format.precision - 1, exponent_bits, special, c.exceptions)) {
    c.value = static_cast<T>(special);
    return c;
  }
  const Rounded r = round(unpack(v).exact(), format, mode);
  c.exceptions = r.exceptions;
  c.rounded_up = r.rounded_up;
  if (!unmasked_range_error(r, mode)) c.value = static_cast<T>(format.precision == 24 ? pack_single(r) : pack_double(r));
  return c;
}

}  // namespace

Operand unpack(Float80 v) {
  const Category category = classify(v);
  const bool sign = v.sign();
  switch (category) {
    case Category::Zero: return {category, sign, 0, 0};
    case Category::Denormal:
      // A pseudo-denormal (J = 1) has the value of exponent 1; a denormal counts
      // units of 2^(emin - 63).
      return from_magnitude(sign, v.significand, kExtended.emin - 63, category);
    case Category::Normal: return {category, sign, v.exponent() - kExponentBias, v.significand};
    default: return {category, sign, 0, v.significand};
  }
}

Operand unpack_single(u32 bits) { return unpack_ieee(bits, 23, 8, 127); }
Operand unpack_double(u64 bits) { return unpack_ieee(bits, 52, 11, 1023); }

Operand unpack_integer(i64 value) {
  if (value == 0) return {Category::Zero, false, 0, 0};
  const bool sign = value < 0;
  const u64 magnitude = sign ? 0 - static_cast<u64>(value) : static_cast<u64>(value);
  return from_magnitude(sign, magnitude, 0, Category::Normal);
}

Float80 to_float80(const Operand& op) {
  switch (op.category) {
    case Category::Zero: return zero(op.sign);
    case Category::Normal:
    case Category::Denormal:
      if (op.exponent < kExtended.emin) {
        return make_float80(op.sign, 0, op.significand >> (kExtended.emin - op.exponent));
      }
      return make_float80(op.sign, static_cast<u16>(op.exponent + kExponentBias), op.significand);
    case Category::Infinity: return infinity(op.sign);
    default: return make_float80(op.sign, kMaxExponent, op.significand);
  }
}

Converted<u32> to_single(Float80 v, const RoundingMode& mode) { return to_ieee<u32>(v, mode, kSingle, 8); }
Converted<u64> to_double(Float80 v, const RoundingMode& mode) { return to_ieee<u64>(v, mode, kDouble, 11); }

namespace {
// The integer part of a register value by the rounding control, or nothing (IE) for
// non-numbers and magnitudes above `limit_positive` / `limit_negative`.
struct IntegerPart {
  bool valid = false;
  bool sign = false;
  u64 magnitude = 0;
  u8 exceptions = 0;
  bool rounded_up = false;
};
IntegerPart integer_part(Float80 v, RoundingControl rc, u64 limit_positive, u64 limit_negative) {
  IntegerPart p;
  const Operand op = unpack(v);
  p.sign = op.sign;
  if (op.category == Category::Zero) {
    p.valid = true;
    return p;
  }
  if (!op.finite_nonzero() || op.exponent >= 64) {
    p.exceptions = exception::IE;
    return p;
  }
  const RoundedInteger r = round_to_integer(op.exact(), rc);
  if (r.magnitude > (op.sign ? limit_negative : limit_positive)) {
    p.exceptions = exception::IE;
    return p;
  }
  p.valid = true;
  p.magnitude = r.magnitude;
  p.exceptions = r.inexact ? exception::PE : 0;
  p.rounded_up = r.rounded_up;
  return p;
}
}  // namespace

Converted<i64> to_integer(Float80 v, RoundingControl rc, int bits) {
  const u64 half = 1ull << (bits - 1);
  const IntegerPart p = integer_part(v, rc, half - 1, half);
  Converted<i64> c;
  c.exceptions = p.exceptions;
  c.rounded_up = p.rounded_up;
  if (!p.valid) {
    c.value = static_cast<i64>(0 - half);  // the integer indefinite
    return c;
  }
  c.value = static_cast<i64>(p.sign ? 0 - p.magnitude : p.magnitude);
  return c;
}

Converted<PackedBcd> to_bcd(Float80 v, RoundingControl rc) {
  constexpr u64 kLimit = 999'999'999'999'999'999ull;
  const IntegerPart p = integer_part(v, rc, kLimit, kLimit);
  Converted<PackedBcd> c;
  c.exceptions = p.exceptions;
  c.rounded_up = p.rounded_up;
  if (!p.valid) {
    c.value = {0, 0, 0, 0, 0, 0, 0, 0xC0, 0xFF, 0xFF};  // the packed BCD indefinite
    return c;
  }
  u64 m = p.magnitude;
  for (unsigned i = 0; i < 9; ++i) {
    const u8 low = static_cast<u8>(m % 10);
    m /= 10;
    const u8 high = static_cast<u8>(m % 10);
    m /= 10;
    c.value[i] = static_cast<u8>(high << 4 | low);
  }
  c.value[9] = p.sign ? 0x80 : 0;
  return c;
}

Float80 from_bcd(const PackedBcd& bcd) {
  u64 magnitude = 0;
  for (int i = 8; i >= 0; --i) magnitude = magnitude * 100 + (bcd[i] >> 4) * 10 + (bcd[i] & 0xF);
  const bool sign = (bcd[9] & 0x80) != 0;
  if (magnitude == 0) return zero(sign);
  return to_float80(from_magnitude(sign, magnitude, 0, Category::Normal));
}

}  // namespace x86lab::x87
