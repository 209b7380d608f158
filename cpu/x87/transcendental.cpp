// FSIN, FCOS, FPTAN, FPATAN, F2XM1, FYL2X, FYL2XP1 in quadruple precision, rounded
// once to double extended precision (Intel SDM Vol. 1, "Transcendental Instruction
// Accuracy"; Vol. 2, each instruction's table of results).
#include "cpu/x87/transcendental.h"

#include <cstring>

#include "cpu/x87/wide.h"

namespace x86lab::x87 {
namespace {

__extension__ typedef __float128 Quad;

// libquadmath (shipped with GCC), declared here so the header's complex types are not needed.
extern "C" {
Quad sinq(Quad);
Quad cosq(Quad);
Quad atan2q(Quad, Quad);
Quad expm1q(Quad);
Quad log2q(Quad);
Quad log1pq(Quad);
Quad logq(Quad);
Quad ldexpq(Quad, int);
}

Quad to_quad(const Operand& op) {
  const Quad magnitude = ldexpq(static_cast<Quad>(op.significand), op.exponent - 63);
  return op.sign ? -magnitude : magnitude;
}

// The exact value of a finite nonzero quad:
//   127  126     112 111                 0
//  [ S | exponent(15) | fraction (112)     ]
Exact from_quad(Quad q) {
  u128 bits;
  std::memcpy(&bits, &q, sizeof bits);
  const bool sign = (bits >> 127) != 0;
  const int biased = static_cast<int>((bits >> 112) & 0x7FFF);
  u128 m = bits & ((u128{1} << 112) - 1);
  int exponent;
  if (biased == 0) {
    exponent = -16382 - 112;  // weight of bit 0 of a quad denormal
  } else {
    m |= u128{1} << 112;
    exponent = biased - 16383 - 112;
  }
  int width = 0;
  for (u128 v = m; v; v >>= 1) ++width;
  m <<= 128 - width;
  return {sign, exponent + width - 1, static_cast<u64>(m >> 64), static_cast<u64>(m)};
}

bool sign_bit(Quad q) {
  u128 bits;
  std::memcpy(&bits, &q, sizeof bits);
  return (bits >> 127) != 0;
}

Result finish(Quad q, const Environment& env, u8 de) {
  if (q == 0) return {zero(sign_bit(q)), de};
  Result r = round_to_register(from_quad(q), kExtended, env);
  r.exceptions |= de;
  return r;
}
Result finish(const Exact& x, const Environment& env, u8 de) {
  Result r = round_to_register(x, kExtended, env);
  r.exceptions |= de;
  return r;
}

bool denormal_stops(const Operand& a, const Operand& b, const Environment& env, u8& flag) {
  flag = (a.category == Category::Denormal || b.category == Category::Denormal) ? exception::DE : 0;
  return flag && !env.masked(exception::DE);
}

const Quad kTiny = static_cast<Quad>(0x1p-40);
Quad magnitude(Quad q) { return q < 0 ? -q : q; }

// A value, and whether it is to be flagged inexact even when it rounds exactly: the
// leading term of a series whose next term lies beyond the x87's internal precision
// (below 2^-40: sin r = r, tan r = r, cos r = 1, atan t = t), which Intel processors
// return rounded in every rounding mode, and FYL2X's y * n for x = 2^n, which they
// flag inexact too.
struct Value {
  Exact exact;
  bool inexact = false;
};
constexpr Exact kExactOne{false, 0, kIntegerBit, 0};

Result finish(const Value& v, bool negate, const Environment& env, u8 de) {
  Exact x = v.exact;
  x.sign = x.sign != negate;
  Result r = finish(x, env, de);
  if (v.inexact) {
    r.exceptions |= exception::PE;
    if (x.exponent < kExtended.emin && env.mode.underflow_masked) r.exceptions |= exception::UE;
  }
  return r;
}

// a * b to 128 bits (the last one sticky) for a finite nonzero b: the final scaling
// by an operand happens here, not in quadruple precision, whose exponent range is
// only that of double extended precision.
Exact times(const Exact& a, const Operand& b) {
  const u128 low = u128{a.rest} * b.significand, high = u128{a.significand} * b.significand;
  // (high << 64) + low, 192 bits: [top:middle:bottom].
  const u128 middle_sum = (high & ~u64{0}) + (low >> 64);
  u64 top = static_cast<u64>(high >> 64) + static_cast<u64>(middle_sum >> 64);
  u64 middle = static_cast<u64>(middle_sum);
  bool sticky = static_cast<u64>(low) != 0;
  i32 exponent = a.exponent + b.exponent + 1;  // the product of [1,2) x [1,2) lies in [1,4)
  if (!(top >> 63)) {  // below 2: one bit less
    top = (top << 1) | (middle >> 63);
    middle = (middle << 1) | (static_cast<u64>(low) >> 63);
    sticky = (static_cast<u64>(low) << 1) != 0;
    --exponent;
  }
  return {a.sign != b.sign, exponent, top, middle | (sticky ? 1 : 0)};
}

// |x| = quadrant * pi66/2 + r with |r| <= pi66/4, exactly: pi66 is pi rounded to 66
// bits, C90FDAA22168C234C (hex) * 2^-66, the constant of the x87's argument reduction.
struct Reduced {
  Quad r;
  unsigned quadrant;
};
Reduced reduce(const Operand& x) {
  Operand absolute = x;
  absolute.sign = false;
  if (x.exponent < -1) return {to_quad(absolute), 0};  // |x| < 1/2 < pi/4
  constexpr u128 kHalfPi = (u128{0xC90FDAA22168C234ull} << 2) | 3;  // pi66/2 in units of 2^-65
  const u128 n = u128{x.significand} << (x.exponent + 2);         // |x| in units of 2^-65
  u128 k = n / kHalfPi;
  u128 rest = n - k * kHalfPi;
  bool negative = false;
  if (rest * 2 > kHalfPi) {
    ++k;
    rest = kHalfPi - rest;
    negative = true;
  }
  const Quad r = ldexpq(static_cast<Quad>(rest), -65);
  return {negative ? -r : r, static_cast<unsigned>(k & 3)};
}

Value sin_of(Quad r) { return magnitude(r) < kTiny ? Value{from_quad(r), true} : Value{from_quad(sinq(r))}; }
Value cos_of(Quad r) { return magnitude(r) < kTiny ? Value{kExactOne, true} : Value{from_quad(cosq(r))}; }

// The single-operand checks of the trigonometric instructions; true with `out` set
// when they decide the result.
bool trigonometric_special(const Operand& x, const Environment& env, Result& out, u8& de) {
  if (propagate_nan(x, out)) return true;
  if (x.category == Category::Infinity) {
    out = {kIndefinite, exception::IE};
    return true;
  }
  if (denormal_stops(x, x, env, de)) {
    out = {{}, de};
    return true;
  }
  return false;
}

bool is_one(const Operand& x) { return x.category == Category::Normal && x.exponent == 0 && x.significand == kIntegerBit; }

}  // namespace

bool trigonometric_range(const Operand& x) { return !x.finite_nonzero() || x.exponent < 63; }

namespace {

// sin x or cos x from r = x reduced by pi/2 into quadrant q: sin x is sin r, cos r,
// -sin r, -cos r for q = 0..3 (and the sign of x), cos x is cos r, -sin r, -cos r,
// sin r.
template <bool kCosine>
Result sine_or_cosine(const Operand& x, const Environment& env) {
  Result out;
  u8 de = 0;
  if (trigonometric_special(x, env, out, de)) return out;
  if (x.category == Category::Zero) {
    return {kCosine ? make_float80(false, kExponentBias, kIntegerBit) : zero(x.sign)};
  }
  const Reduced red = reduce(x);
  const bool odd = red.quadrant & 1;
  const Value v = odd != kCosine ? cos_of(red.r) : sin_of(red.r);
  const bool negative = kCosine ? red.quadrant == 1 || red.quadrant == 2 : (red.quadrant >= 2) != x.sign;
  return finish(v, negative, env, de);
}

}  // namespace

Result sine(const Operand& x, const Environment& env) { return sine_or_cosine<false>(x, env); }

Result cosine(const Operand& x, const Environment& env) { return sine_or_cosine<true>(x, env); }

Result tangent(const Operand& x, const Environment& env) {
  Result out;
  u8 de = 0;
  if (trigonometric_special(x, env, out, de)) return out;
  if (x.category == Category::Zero) return {zero(x.sign)};
  const Reduced red = reduce(x);
  if (red.quadrant & 1) {  // tan(r + pi/2) = -cot r
    const Quad cot = cosq(red.r) / sinq(red.r);
    return finish(x.sign ? cot : -cot, env, de);
  }
  const Value v = magnitude(red.r) < kTiny ? Value{from_quad(red.r), true} : Value{from_quad(sinq(red.r) / cosq(red.r))};
  return finish(v, x.sign, env, de);
}

Result arctangent(const Operand& y, const Operand& x, const Environment& env) {
  Result out;
  if (propagate_nan(x, y, out)) return out;
  u8 de;
  if (denormal_stops(x, y, env, de)) return {{}, de};
  // atan(y / x) for x > 0 and |y / x| < 2^-40 is the leading term y / x, computed
  // exactly: quadruple precision could not hold it beyond its exponent range.
  if (x.finite_nonzero() && y.finite_nonzero() && !x.sign && y.exponent - x.exponent < -41) {
    return finish(Value{exact_quotient(y, x), true}, false, env, de);
  }
  auto quad = [](const Operand& op) -> Quad {
    if (op.category == Category::Zero) return op.sign ? -static_cast<Quad>(0) : static_cast<Quad>(0);
    if (op.category == Category::Infinity) return op.sign ? -static_cast<Quad>(__builtin_inf()) : static_cast<Quad>(__builtin_inf());
    return to_quad(op);
  };
  return finish(atan2q(quad(y), quad(x)), env, de);
}

Result exp2_minus_1(const Operand& x, const Environment& env) {
  Result out;
  if (propagate_nan(x, out)) return out;
  if (x.category == Category::Zero) return {zero(x.sign)};
  if (x.category == Category::Infinity) {
    return {x.sign ? make_float80(true, kExponentBias, kIntegerBit) : infinity(false)};
  }
  u8 de;
  if (denormal_stops(x, x, env, de)) return {{}, de};
  // QUIRK: 2^1 - 1 and 2^-1 - 1 are exact, yet Intel processors flag #P; beyond
  // |x| = 1, where the SDM leaves the result undefined, they return x with #P.
  if (is_one(x)) {
    return {x.sign ? make_float80(true, kExponentBias - 1, kIntegerBit) : make_float80(false, kExponentBias, kIntegerBit),
            static_cast<u8>(exception::PE | de)};
  }
  if (x.exponent >= 0) return {to_float80(x), static_cast<u8>(exception::PE | de)};
  static const Quad kLn2 = logq(2);
  const Quad xq = to_quad(x);
  if (magnitude(xq) < kTiny) {
    // 2^x - 1 = x ln2 (1 + x ln2 / 2 + ...): the factor in quad, the product exact.
    return finish(times(from_quad(kLn2 * (1 + xq * kLn2 / 2)), x), env, de);
  }
  return finish(expm1q(xq * kLn2), env, de);
}

Result y_log2_x(const Operand& y, const Operand& x, const Environment& env) {
  Result out;
  if (propagate_nan(x, y, out)) return out;
  const bool x_zero = x.category == Category::Zero;
  if (x.sign && !x_zero) return {kIndefinite, exception::IE};
  const bool y_zero = y.category == Category::Zero, y_infinite = y.category == Category::Infinity;
  const bool x_infinite = x.category == Category::Infinity, x_one = is_one(x);
  const bool invalid = (y_zero && (x_zero || x_infinite)) || (y_infinite && x_one);
  if (invalid) return {kIndefinite, exception::IE};
  if (x_zero && !y_infinite) return {infinity(!y.sign), exception::ZE};  // y * log2(0): #Z outranks #D
  u8 de;
  if (denormal_stops(x, y, env, de)) return {{}, de};
  if (x_zero) return {infinity(!y.sign), de};  // y * -inf
  if (x_infinite) return {infinity(y.sign), de};
  const bool log_negative = x.exponent < 0;  // 0 < x < 1
  if (x_one) return {zero(y.sign), de};
  if (y_zero) return {zero(y.sign != log_negative), de};
  if (y_infinite) return {infinity(y.sign != log_negative), de};
  return finish(Value{times(from_quad(log2q(to_quad(x))), y), true}, false, env, de);
}

Result y_log2_x_plus_1(const Operand& y, const Operand& x, const Environment& env) {
  Result out;
  if (propagate_nan(x, y, out)) return out;
  const bool below_minus_one = x.sign && (x.category == Category::Infinity || (x.finite_nonzero() && x.exponent >= 0 && !is_one(x)));
  if (below_minus_one) return {kIndefinite, exception::IE};
  u8 de;
  if (denormal_stops(x, y, env, de)) return {{}, de};
  const bool y_zero = y.category == Category::Zero, y_infinite = y.category == Category::Infinity;
  if (x.category == Category::Zero) {
    if (y_infinite) return {kIndefinite, static_cast<u8>(exception::IE | de)};
    return {zero(y.sign != x.sign), de};
  }
  if (x.category == Category::Infinity) {
    if (y_zero) return {kIndefinite, static_cast<u8>(exception::IE | de)};
    return {infinity(y.sign), de};
  }
  if (is_one(x) && x.sign) {  // log2(0) = -inf
    if (y_zero) return {kIndefinite, static_cast<u8>(exception::IE | de)};
    return {infinity(!y.sign), static_cast<u8>((y_infinite ? 0 : exception::ZE) | de)};
  }
  if (y_zero) return {zero(y.sign != x.sign), de};
  if (y_infinite) return {infinity(y.sign != x.sign), de};
  static const Quad kLn2 = logq(2);
  const Quad xq = to_quad(x);
  if (magnitude(xq) < kTiny) {
    // log2(1 + x) = x / ln2 (1 - x/2 + x^2/3 - ...): the factor in quad, the products exact.
    const Exact log = times(from_quad((1 - xq / 2 + xq * xq / 3) / kLn2), x);
    return finish(times(log, y), env, de);
  }
  return finish(times(from_quad(log1pq(xq) / kLn2), y), env, de);
}

}  // namespace x86lab::x87
