// FADD/FSUB/FMUL/FDIV/FSQRT/FRNDINT/FSCALE/FXTRACT/FPREM/FPREM1 and comparisons on
// unpacked operands (Intel SDM Vol. 2, each instruction's "Operation" and its table of
// results for zeros, infinities and NaNs; Vol. 1, "Operating on SNaNs and QNaNs").
#include "cpu/x87/arithmetic.h"

#include <bit>

#include "cpu/x87/wide.h"

namespace x86lab::x87 {

Environment Environment::from_control(u16 control) {
  Environment env;
  env.masks = control & exception::kAll;
  env.mode.rc = static_cast<RoundingControl>((control >> 10) & 3);
  env.mode.underflow_masked = (control & exception::UE) != 0;
  env.mode.overflow_masked = (control & exception::OE) != 0;
  switch ((control >> 8) & 3) {
    case 0: env.precision = 24; break;
    case 2: env.precision = 53; break;
    default: env.precision = 64; break;
  }
  return env;
}

Result round_to_register(const Exact& x, const Format& format, const Environment& env) {
  const Rounded r = round(x, format, env.mode);
  return {pack_extended(r), r.exceptions, r.rounded_up};
}

bool propagate_nan(const Operand& a, const Operand& b, Result& out) {
  if (a.category == Category::Unsupported || b.category == Category::Unsupported) {
    out = {kIndefinite, exception::IE};
    return true;
  }
  if (!a.nan() && !b.nan()) return false;
  const bool signaling = a.category == Category::SignalingNaN || b.category == Category::SignalingNaN;
  const Operand* pick = a.nan() ? &a : &b;
  if (a.nan() && b.nan()) {
    // A QNaN beats an SNaN; between two of a kind the larger significand wins.
    // QUIRK: between equal significands the positive one (measured on Intel hardware).
    if (a.category != b.category) pick = a.category == Category::QuietNaN ? &a : &b;
    else if (a.significand != b.significand) pick = b.significand > a.significand ? &b : &a;
    else pick = a.sign ? &b : &a;
  }
  out = {quieted(to_float80(*pick)), static_cast<u8>(signaling ? exception::IE : 0)};
  return true;
}

bool propagate_nan(const Operand& a, Result& out) { return propagate_nan(a, Operand{}, out); }

namespace {

constexpr bool is_denormal(const Operand& op) { return op.category == Category::Denormal; }

// The denormal-operand flag; true when it is unmasked (the operation stops).
bool denormal_stops(const Operand& a, const Operand& b, const Environment& env, u8& flag) {
  flag = (is_denormal(a) || is_denormal(b)) ? exception::DE : 0;
  return flag && !env.masked(exception::DE);
}

int bit_width(u128 v) {
  const u64 high = static_cast<u64>(v >> 64);
  return high ? 64 + std::bit_width(high) : std::bit_width(static_cast<u64>(v));
}

// An Exact from a nonzero 128-bit magnitude whose bit `point` has weight 2^exponent_at_point.
Exact normalize(bool sign, u128 m, i32 exponent_at_point, int point) {
  const int width = bit_width(m);
  m <<= 128 - width;
  return {sign, exponent_at_point + (width - 1 - point), static_cast<u64>(m >> 64), static_cast<u64>(m)};
}

// a + b for finite nonzero operands; false when the exact sum is zero.
bool exact_sum(const Operand& a, bool a_sign, const Operand& b, bool b_sign, Exact& out) {
  const bool a_larger = a.exponent > b.exponent || (a.exponent == b.exponent && a.significand >= b.significand);
  const Operand& big = a_larger ? a : b;
  const Operand& small = a_larger ? b : a;
  const bool big_sign = a_larger ? a_sign : b_sign, small_sign = a_larger ? b_sign : a_sign;
  const u32 distance = static_cast<u32>(big.exponent - small.exponent);
  const u128 x = u128{big.significand} << 62;  // leading bit at 125: room for a carry
  u128 y = u128{small.significand} << 62;
  if (distance >= 126) {
    y = 1;  // wholly below the rounding point: a sticky bit
  } else if (distance > 0) {
    const bool lost = (y & ((u128{1} << distance) - 1)) != 0;
    y = (y >> distance) | (lost ? 1 : 0);
  }
  const u128 m = big_sign == small_sign ? x + y : x - y;
  if (m == 0) return false;
  out = normalize(big_sign, m, big.exponent, 125);
  return true;
}

Exact exact_product(const Operand& a, const Operand& b) {
  const u128 p = u128{a.significand} * b.significand;  // weight of bit 126: 2^(ea + eb)
  return normalize(a.sign != b.sign, p, a.exponent + b.exponent, 126);
}

}  // namespace

Exact exact_quotient(const Operand& a, const Operand& b) {
  // Two 64-bit quotient digits and a sticky remainder: the leading bit lands at 127.
  const int shift = a.significand >= b.significand ? 63 : 64;
  const u128 n = u128{a.significand} << shift;
  const u64 q1 = static_cast<u64>(n / b.significand);
  const u64 r1 = static_cast<u64>(n % b.significand);
  const u128 n2 = u128{r1} << 64;
  u64 q2 = static_cast<u64>(n2 / b.significand);
  if (n2 % b.significand != 0) q2 |= 1;
  return {a.sign != b.sign, a.exponent - b.exponent + 63 - shift, q1, q2};
}

namespace {

// sqrt of a positive finite operand, digit by digit over a 194-bit radicand.
Exact exact_square_root(const Operand& a) {
  // radicand = significand * 2^shift with (exponent - 63 - shift) even.
  const i32 unbiased = a.exponent - 63;
  const int shift = (unbiased & 1) ? 129 : 128;
  auto radicand_bit = [&](int position) -> u64 {
    const int from = position - shift;
    return from >= 0 && from < 64 ? (a.significand >> from) & 1 : 0;
  };
  u128 root = 0, rest = 0;
  for (int pair = 96; pair >= 0; --pair) {
    rest = (rest << 2) | (radicand_bit(2 * pair + 1) << 1) | radicand_bit(2 * pair);
    const u128 trial = (root << 2) | 1;
    root <<= 1;
    if (rest >= trial) {
      rest -= trial;
      root |= 1;
    }
  }
  Exact e = normalize(false, root, (unbiased - shift) / 2, 0);
  e.rest |= rest != 0 ? 1 : 0;
  return e;
}

Result add_or_subtract(const Operand& a, const Operand& b, bool subtract, const Environment& env) {
  Result out;
  if (propagate_nan(a, b, out)) return out;
  u8 de;
  if (denormal_stops(a, b, env, de)) return {{}, de};
  const bool b_sign = b.sign != subtract;
  if (a.category == Category::Infinity || b.category == Category::Infinity) {
    if (a.category == b.category && a.sign != b_sign) return {kIndefinite, static_cast<u8>(exception::IE | de)};
    return {infinity(a.category == Category::Infinity ? a.sign : b_sign), de};
  }
  const bool sum_of_zeros_sign = a.sign == b_sign ? a.sign : env.mode.rc == RoundingControl::Down;
  Exact sum;
  if (a.category == Category::Zero && b.category == Category::Zero) return {zero(sum_of_zeros_sign), de};
  if (a.category == Category::Zero) {
    sum = b.exact();
    sum.sign = b_sign;
  } else if (b.category == Category::Zero) {
    sum = a.exact();
  } else if (!exact_sum(a, a.sign, b, b_sign, sum)) {
    return {zero(env.mode.rc == RoundingControl::Down), de};
  }
  out = round_to_register(sum, env.precision_format(), env);
  out.exceptions |= de;
  return out;
}

}  // namespace

Result add(const Operand& a, const Operand& b, const Environment& env) { return add_or_subtract(a, b, false, env); }
Result subtract(const Operand& a, const Operand& b, const Environment& env) { return add_or_subtract(a, b, true, env); }

Result multiply(const Operand& a, const Operand& b, const Environment& env) {
  Result out;
  if (propagate_nan(a, b, out)) return out;
  u8 de;
  if (denormal_stops(a, b, env, de)) return {{}, de};
  const bool sign = a.sign != b.sign;
  const bool a_inf = a.category == Category::Infinity, b_inf = b.category == Category::Infinity;
  const bool a_zero = a.category == Category::Zero, b_zero = b.category == Category::Zero;
  if ((a_inf && b_zero) || (a_zero && b_inf)) return {kIndefinite, static_cast<u8>(exception::IE | de)};
  if (a_inf || b_inf) return {infinity(sign), de};
  if (a_zero || b_zero) return {zero(sign), de};
  out = round_to_register(exact_product(a, b), env.precision_format(), env);
  out.exceptions |= de;
  return out;
}

Result divide(const Operand& a, const Operand& b, const Environment& env) {
  Result out;
  if (propagate_nan(a, b, out)) return out;
  const bool sign = a.sign != b.sign;
  const bool a_inf = a.category == Category::Infinity, b_inf = b.category == Category::Infinity;
  const bool a_zero = a.category == Category::Zero, b_zero = b.category == Category::Zero;
  if ((a_inf && b_inf) || (a_zero && b_zero)) return {kIndefinite, exception::IE};
  // Division by zero outranks the denormal-operand exception (SDM "Floating-Point
  // Exception Priority"): x / 0 signals #Z alone.
  if (b_zero && !a_inf) return {infinity(sign), exception::ZE};
  u8 de;
  if (denormal_stops(a, b, env, de)) return {{}, de};
  if (a_inf) return {infinity(sign), de};
  if (b_inf) return {zero(sign), de};
  if (a_zero) return {zero(sign), de};
  out = round_to_register(exact_quotient(a, b), env.precision_format(), env);
  out.exceptions |= de;
  return out;
}

Result square_root(const Operand& a, const Environment& env) {
  Result out;
  if (propagate_nan(a, out)) return out;
  if (a.category == Category::Zero) return {zero(a.sign)};
  if (a.sign) return {kIndefinite, exception::IE};
  u8 de;
  if (denormal_stops(a, a, env, de)) return {{}, de};
  if (a.category == Category::Infinity) return {infinity(false)};
  out = round_to_register(exact_square_root(a), env.precision_format(), env);
  out.exceptions |= de;
  return out;
}

Result round_to_integral(const Operand& a, const Environment& env) {
  Result out;
  if (propagate_nan(a, out)) return out;
  if (!a.finite_nonzero()) return {to_float80(a)};
  u8 de;
  if (denormal_stops(a, a, env, de)) return {{}, de};
  if (a.exponent >= 63) return {to_float80(a)};
  const RoundedInteger r = round_to_integer(a.exact(), env.mode.rc);
  out.exceptions = static_cast<u8>(de | (r.inexact ? exception::PE : 0));
  out.rounded_up = r.rounded_up;
  if (r.magnitude == 0) {
    out.value = zero(a.sign);
  } else {
    const int width = std::bit_width(r.magnitude);
    out.value = make_float80(a.sign, static_cast<u16>(width - 1 + kExponentBias), r.magnitude << (64 - width));
  }
  return out;
}

Result scale(const Operand& a, const Operand& b, const Environment& env) {
  Result out;
  if (propagate_nan(a, b, out)) return out;
  u8 de;
  if (denormal_stops(a, b, env, de)) return {{}, de};
  if (b.category == Category::Infinity) {
    const bool invalid = b.sign ? a.category == Category::Infinity : a.category == Category::Zero;
    if (invalid) return {kIndefinite, static_cast<u8>(exception::IE | de)};
    if (a.finite_nonzero()) return {b.sign ? zero(a.sign) : infinity(a.sign), de};
    return {to_float80(a), de};
  }
  if (!a.finite_nonzero()) return {to_float80(a), de};
  // The scale truncated toward zero; beyond +-2^17 every result over- or underflows alike.
  i32 n = 0;
  if (b.finite_nonzero() && b.exponent >= 0) {
    n = b.exponent > 17 ? (1 << 17) : static_cast<i32>(b.significand >> (63 - b.exponent));
    if (b.sign) n = -n;
  }
  // QUIRK: a zero scale leaves a denormal unchanged even with #U unmasked, where a
  // scale in (-1, 1), also 0 after truncation, delivers it bias-adjusted with #U.
  if (b.category == Category::Zero) return {to_float80(a), de};
  Exact x = a.exact();
  x.exponent += n;
  out = round_to_register(x, kExtended, env);
  out.exceptions |= de;
  return out;
}

Extracted extract(const Operand& a, const Environment& env) {
  Result nan;
  if (propagate_nan(a, nan)) return {nan.value, nan.value, nan.exceptions};
  if (a.category == Category::Zero) return {infinity(true), zero(a.sign), exception::ZE};
  if (a.category == Category::Infinity) return {infinity(false), infinity(a.sign)};
  u8 de;
  if (denormal_stops(a, a, env, de)) return {{}, {}, de};
  return {to_float80(unpack_integer(a.exponent)), make_float80(a.sign, kExponentBias, a.significand), de};
}

namespace {
// The truncated quotient's low bits and the remainder of |a| / (|b| * 2^(d - reduction))
// where d = ea - eb >= 0; the remainder counts units of 2^(eb - 63 + d - reduction).
struct Division {
  u64 quotient = 0;
  u64 remainder = 0;
};
Division long_division(u64 dividend, u64 divisor, int steps) {
  u128 r = dividend;
  u64 q = 0;
  if (r >= divisor) {
    r -= divisor;
    q = 1;
  }
  for (int i = 0; i < steps; ++i) {
    r <<= 1;
    q <<= 1;
    if (r >= divisor) {
      r -= divisor;
      q |= 1;
    }
  }
  return {q, static_cast<u64>(r)};
}
}  // namespace

Remainder remainder(const Operand& a, const Operand& b, bool ieee, const Environment& env) {
  Remainder out;
  if (propagate_nan(a, b, out.result)) return out;
  if (a.category == Category::Infinity || b.category == Category::Zero) {
    out.result = {kIndefinite, exception::IE};
    return out;
  }
  u8 de;
  if (denormal_stops(a, b, env, de)) {
    out.result = {{}, de};
    return out;
  }
  if (b.category == Category::Infinity || a.category == Category::Zero) {
    out.result = {to_float80(a), de};  // QUIRK: unchanged, no #U even for a denormal
    return out;
  }
  const i32 d = a.exponent - b.exponent;
  bool sign = a.sign;
  u64 magnitude;
  i32 unit;  // the remainder counts units of 2^unit
  if (d >= 64) {
    // Partial remainder, C2 = 1. QUIRK: the SDM's "implementation-dependent N between
    // 32 and 63" is 32 + d mod 32 on Intel hardware: d drops to a multiple of 32.
    const int reduction = 32 + d % 32;
    const Division q = long_division(a.significand, b.significand, reduction);
    magnitude = q.remainder;
    unit = b.exponent - 63 + (d - reduction);
    out.complete = false;
  } else if (d < 0 && !(ieee && d == -1)) {
    magnitude = a.significand;  // |a| < |b| (or < |b|/2 for FPREM1): the quotient is 0
    unit = a.exponent - 63;
  } else {
    Division q;
    if (d == -1) {
      q = {0, a.significand};
      unit = a.exponent - 63;
    } else {
      q = long_division(a.significand, b.significand, d);
      unit = b.exponent - 63;
    }
    magnitude = q.remainder;
    if (ieee) {
      // Round the quotient to nearest even: compare the remainder with |b| / 2.
      const u128 twice = u128{magnitude} << 1;
      const u128 divisor = u128{b.significand} << (d == -1 ? 1 : 0);  // |b| in the remainder's units
      if (twice > divisor || (twice == divisor && (q.quotient & 1))) {
        ++q.quotient;
        magnitude = static_cast<u64>(divisor - magnitude);
        sign = !sign;
      }
    }
    out.quotient = static_cast<unsigned>(q.quotient & 7);
  }
  if (magnitude == 0) {
    out.result = {zero(a.sign), de};
    return out;
  }
  const int width = std::bit_width(magnitude);
  const Exact x{sign, unit + width - 1, magnitude << (64 - width), 0};
  out.result = round_to_register(x, kExtended, env);
  out.result.exceptions |= de;
  return out;
}

Comparison compare(const Operand& a, const Operand& b, bool quiet) {
  if (a.category == Category::Unsupported || b.category == Category::Unsupported) return {Relation::Unordered, exception::IE};
  if (a.nan() || b.nan()) {
    const bool signaling = a.category == Category::SignalingNaN || b.category == Category::SignalingNaN;
    return {Relation::Unordered, static_cast<u8>(signaling || !quiet ? exception::IE : 0)};
  }
  const u8 de = (is_denormal(a) || is_denormal(b)) ? exception::DE : 0;
  // Order by sign, then class (zero < finite < infinity), then magnitude.
  auto rank = [](const Operand& op) {
    return op.category == Category::Zero ? 0 : op.category == Category::Infinity ? 2 : 1;
  };
  auto magnitude_order = [&]() -> int {
    if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
    if (rank(a) != 1) return 0;
    if (a.exponent != b.exponent) return a.exponent < b.exponent ? -1 : 1;
    if (a.significand != b.significand) return a.significand < b.significand ? -1 : 1;
    return 0;
  };
  const bool a_zero = a.category == Category::Zero, b_zero = b.category == Category::Zero;
  Relation relation;
  if (a_zero && b_zero) {
    relation = Relation::Equal;
  } else if (a.sign != b.sign && !(a_zero || b_zero)) {
    relation = a.sign ? Relation::Less : Relation::Greater;
  } else if (a_zero || b_zero) {
    const Operand& nonzero = a_zero ? b : a;
    const bool nonzero_greater = !nonzero.sign;
    relation = (a_zero ? !nonzero_greater : nonzero_greater) ? Relation::Greater : Relation::Less;
  } else {
    const int order = magnitude_order();
    relation = order == 0 ? Relation::Equal : ((order < 0) != a.sign) ? Relation::Less : Relation::Greater;
  }
  return {relation, de};
}

}  // namespace x86lab::x87
