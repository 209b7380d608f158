// Rounding of exact results to a destination format under the x87 rounding and
// precision controls, with the numeric overflow, underflow and inexact-result
// responses (Intel SDM Vol. 1, "Rounding", "x87 FPU Control Word", "Numeric Overflow
// Exception (#O)", "Numeric Underflow Exception (#U)", "Inexact-Result (Precision)
// Exception (#P)").
#pragma once
#include "cpu/x87/float80.h"

namespace x86lab::x87 {

// Exception flags, in the bit positions of the status word (flags) and the control
// word (masks).
namespace exception {
inline constexpr u8 IE = 1u << 0, DE = 1u << 1, ZE = 1u << 2, OE = 1u << 3, UE = 1u << 4, PE = 1u << 5;
inline constexpr u8 kAll = 0x3F;
}  // namespace exception

// Control word RC field.
enum class RoundingControl : u8 { Nearest = 0, Down = 1, Up = 2, TowardZero = 3 };

// A destination's precision (significand bits) and normal exponent range. Unmasked
// overflow and underflow deliver the result with the exponent wrapped by
// `bias_adjust` (24576 for double extended precision, 1536 double, 192 single).
struct Format {
  int precision;
  int emin, emax;
  int bias_adjust;
};
inline constexpr Format kSingle{24, -126, 127, 192};
inline constexpr Format kDouble{53, -1022, 1023, 1536};
inline constexpr Format kExtended{64, -16382, 16383, 24576};
// A register result under precision control: the precision shrinks, the exponent
// range stays that of double extended precision.
constexpr Format register_format(int precision) { return {precision, kExtended.emin, kExtended.emax, kExtended.bias_adjust}; }

// A finite nonzero exact (or sticky) value: (-1)^sign * (significand:rest) *
// 2^(exponent - 127), with bit 63 of significand set. `rest` holds the next 64 bits;
// its lowest bit may be a sticky bit standing for everything below.
struct Exact {
  bool sign = false;
  i32 exponent = 0;  // unbiased exponent of the leading bit
  u64 significand = 0;
  u64 rest = 0;
};

// How to round: the RC field and whether #U / #O are masked.
struct RoundingMode {
  RoundingControl rc = RoundingControl::Nearest;
  bool underflow_masked = true;
  bool overflow_masked = true;
};

// A rounded value: (-1)^sign * kept * 2^ulp_exponent, or infinity.
struct Rounded {
  bool sign = false;
  bool infinite = false;
  u64 kept = 0;
  i32 ulp_exponent = 0;
  u8 exceptions = 0;        // OE, UE, PE
  bool rounded_up = false;  // the magnitude grew (status word C1)
};

// Rounds `x` to `format`. Tininess is detected after rounding with an unbounded
// exponent, as the x87 does; a masked underflow denormalizes and signals #U only
// when the result is also inexact; an unmasked one signals #U for every tiny result
// and delivers it with the exponent raised by the bias adjustment. Overflow works
// alike: masked, infinity or the largest finite value by the rounding control;
// unmasked, the exponent lowered by the bias adjustment.
Rounded round(const Exact& x, const Format& format, const RoundingMode& mode);

// Rounds `x` to an integer by the rounding control. The magnitude is exact only when
// the integer is below 2^64 (exponent < 64); callers check ranges before.
struct RoundedInteger {
  u64 magnitude = 0;
  bool inexact = false;
  bool rounded_up = false;
};
RoundedInteger round_to_integer(const Exact& x, RoundingControl rc);

// Packing of rounded values. A Rounded whose exponent lies outside the format after a
// bias adjustment is packed by the caller's choice not to store it.
Float80 pack_extended(const Rounded& r);
u32 pack_single(const Rounded& r);
u64 pack_double(const Rounded& r);

}  // namespace x86lab::x87
