// Rounding to single, double and double extended precision and to integers (Intel
// SDM Vol. 1, "Rounding", "Numeric Overflow Exception (#O)", "Numeric Underflow
// Exception (#U)").
#include "cpu/x87/rounding.h"

#include <bit>

#include "cpu/x87/wide.h"

namespace x86lab::x87 {
namespace {

struct Bits {
  u128 kept = 0;
  bool inexact = false;
  bool incremented = false;
};

// Drops the low `drop` bits (drop >= 1) of `m` and rounds by `rc`.
Bits round_bits(u128 m, int drop, bool sign, RoundingControl rc) {
  Bits b;
  bool half, sticky;
  if (drop > 128) {
    half = false;
    sticky = m != 0;
  } else if (drop == 128) {
    half = (m >> 127) != 0;
    sticky = (m << 1) != 0;
  } else {
    b.kept = m >> drop;
    half = ((m >> (drop - 1)) & 1) != 0;
    sticky = drop > 1 && (m << (129 - drop)) != 0;
  }
  b.inexact = half || sticky;
  switch (rc) {
    case RoundingControl::Nearest: b.incremented = half && (sticky || (b.kept & 1)); break;
    case RoundingControl::Down: b.incremented = sign && b.inexact; break;
    case RoundingControl::Up: b.incremented = !sign && b.inexact; break;
    case RoundingControl::TowardZero: b.incremented = false; break;
  }
  b.kept += b.incremented ? 1 : 0;
  return b;
}

int bit_width(u128 v) {
  const u64 high = static_cast<u64>(v >> 64);
  return high ? 64 + std::bit_width(high) : std::bit_width(static_cast<u64>(v));
}

// The largest finite value of the format (all `precision` bits set at emax).
Rounded largest(bool sign, const Format& f) {
  Rounded r;
  r.sign = sign;
  r.kept = f.precision == 64 ? ~0ull : (1ull << f.precision) - 1;
  r.ulp_exponent = f.emax - f.precision + 1;
  return r;
}

}  // namespace

Rounded round(const Exact& x, const Format& f, const RoundingMode& mode) {
  const u128 m = (u128{x.significand} << 64) | x.rest;
  // Rounding with an unbounded exponent decides tininess and overflow.
  Bits b = round_bits(m, 128 - f.precision, x.sign, mode.rc);
  i32 ulp = x.exponent - f.precision + 1;
  if (bit_width(b.kept) > f.precision) {  // the increment carried into a new leading bit
    b.kept >>= 1;
    ++ulp;
  }
  const i32 result_exponent = ulp + f.precision - 1;
  Rounded r;
  r.sign = x.sign;
  if (result_exponent > f.emax) {
    if (!mode.overflow_masked && result_exponent - f.bias_adjust <= f.emax) {
      r.kept = static_cast<u64>(b.kept);
      r.ulp_exponent = ulp - f.bias_adjust;
      r.exceptions = exception::OE | (b.inexact ? exception::PE : 0);
      r.rounded_up = b.incremented;
      return r;
    }
    if (!mode.overflow_masked) {
      // Massive overflow (FSCALE): even the bias-adjusted exponent overflows; the
      // result is a signed infinity (SDM "Numeric Overflow Exception").
      r.infinite = true;
      r.rounded_up = true;
      r.exceptions = exception::OE | exception::PE;
      return r;
    }
    // Masked: infinity unless the rounding control points toward zero from this sign.
    const bool to_infinity = mode.rc == RoundingControl::Nearest || (mode.rc == RoundingControl::Up && !x.sign) ||
                             (mode.rc == RoundingControl::Down && x.sign);
    if (to_infinity) {
      r.infinite = true;
      r.rounded_up = true;
    } else {
      r = largest(x.sign, f);
    }
    r.exceptions = exception::OE | exception::PE;
    return r;
  }
  if (result_exponent < f.emin) {
    if (!mode.underflow_masked && result_exponent + f.bias_adjust < f.emin) {
      // Massive underflow (FSCALE): a signed zero (SDM "Numeric Underflow Exception").
      r.exceptions = exception::UE | exception::PE;
      return r;
    }
    if (!mode.underflow_masked) {
      r.kept = static_cast<u64>(b.kept);
      r.ulp_exponent = ulp + f.bias_adjust;
      r.exceptions = exception::UE | (b.inexact ? exception::PE : 0);
      r.rounded_up = b.incremented;
      return r;
    }
    // Masked: denormalize, rounding at the format's smallest ulp.
    const Bits d = round_bits(m, 128 - f.precision + (f.emin - x.exponent), x.sign, mode.rc);
    r.kept = static_cast<u64>(d.kept);
    r.ulp_exponent = f.emin - f.precision + 1;
    r.exceptions = d.inexact ? exception::UE | exception::PE : 0;
    r.rounded_up = d.incremented;
    return r;
  }
  r.kept = static_cast<u64>(b.kept);
  r.ulp_exponent = ulp;
  r.exceptions = b.inexact ? exception::PE : 0;
  r.rounded_up = b.incremented;
  return r;
}

RoundedInteger round_to_integer(const Exact& x, RoundingControl rc) {
  RoundedInteger out;
  if (x.exponent >= 63) {
    // No fraction bits (the rest bits lie below 2^0 only when exponent < 127).
    out.magnitude = x.exponent == 63 ? x.significand : ~0ull;
    out.inexact = x.exponent == 63 && x.rest != 0;
    return out;
  }
  const u128 m = (u128{x.significand} << 64) | x.rest;
  const Bits b = round_bits(m, 127 - x.exponent, x.sign, rc);
  out.magnitude = static_cast<u64>(b.kept);
  out.inexact = b.inexact;
  out.rounded_up = b.incremented;
  return out;
}

Float80 pack_extended(const Rounded& r) {
  if (r.infinite) return infinity(r.sign);
  if (r.kept == 0) return zero(r.sign);
  const int width = std::bit_width(r.kept);
  const i32 e = r.ulp_exponent + width - 1;
  if (e < kExtended.emin) {
    // Denormal: the significand counts units of 2^(emin - 63).
    const int shift = r.ulp_exponent - (kExtended.emin - 63);
    return make_float80(r.sign, 0, r.kept << shift);
  }
  return make_float80(r.sign, static_cast<u16>(e + kExponentBias), r.kept << (64 - width));
}

namespace {
// Packs into an IEEE format with `fraction_bits` stored fraction bits.
u64 pack_ieee(const Rounded& r, const Format& f, int exponent_bits) {
  const int fraction_bits = f.precision - 1;
  const u64 sign = u64{r.sign} << (fraction_bits + exponent_bits);
  const u64 max_exponent = (1ull << exponent_bits) - 1;
  if (r.infinite) return sign | (max_exponent << fraction_bits);
  if (r.kept == 0) return sign;
  const int width = std::bit_width(r.kept);
  const i32 e = r.ulp_exponent + width - 1;
  const u64 fraction_mask = (1ull << fraction_bits) - 1;
  if (e < f.emin) return sign | ((r.kept << (r.ulp_exponent - (f.emin - fraction_bits))) & fraction_mask);
  const u64 normalized = width >= f.precision ? r.kept >> (width - f.precision) : r.kept << (f.precision - width);
  const u64 biased = static_cast<u64>(e - f.emin + 1);
  return sign | (biased << fraction_bits) | (normalized & fraction_mask);
}
}  // namespace

u32 pack_single(const Rounded& r) { return static_cast<u32>(pack_ieee(r, kSingle, 8)); }
u64 pack_double(const Rounded& r) { return pack_ieee(r, kDouble, 11); }

}  // namespace x86lab::x87
