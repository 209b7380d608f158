// The x87 double extended-precision format and the classes of its encodings (Intel
// SDM Vol. 1, "Floating-Point Data Types", "Real Number and Non-number Encodings",
// "x87 FPU Floating-Point Data Types" and "Unsupported Double Extended-Precision
// Floating-Point Encodings and Pseudo-Denormals").
#pragma once
#include "trace/types.h"

namespace x86lab::x87 {

//   79  78             64  63  62                                         0
//  [ S | exponent (15)    | J | fraction (63)                               ]
// The integer bit J is explicit: normals have J = 1; exponent 0 with J = 1 is a
// pseudo-denormal; J = 0 with a nonzero exponent is an unsupported encoding.
struct Float80 {
  u64 significand = 0;    // bit 63 is J
  u16 sign_exponent = 0;  // bit 15 the sign, bits 14-0 the biased exponent

  constexpr bool sign() const { return (sign_exponent & 0x8000) != 0; }
  constexpr u16 exponent() const { return sign_exponent & 0x7FFF; }
  constexpr bool operator==(const Float80&) const = default;
};

inline constexpr int kExponentBias = 16383;
inline constexpr u16 kMaxExponent = 0x7FFF;
inline constexpr u64 kIntegerBit = 1ull << 63;
inline constexpr u64 kQuietBit = 1ull << 62;

// The QNaN floating-point indefinite: the default result of a masked invalid operation.
inline constexpr Float80 kIndefinite{0xC000000000000000ull, 0xFFFF};

constexpr Float80 make_float80(bool sign, u16 exponent, u64 significand) {
  return {significand, static_cast<u16>((sign ? 0x8000 : 0) | exponent)};
}
constexpr Float80 zero(bool sign) { return make_float80(sign, 0, 0); }
constexpr Float80 infinity(bool sign) { return make_float80(sign, kMaxExponent, kIntegerBit); }
constexpr Float80 negate(Float80 v) { return {v.significand, static_cast<u16>(v.sign_exponent ^ 0x8000)}; }
constexpr Float80 absolute(Float80 v) { return {v.significand, static_cast<u16>(v.sign_exponent & 0x7FFF)}; }

enum class Category : u8 {
  Zero,
  Denormal,      // exponent 0, nonzero significand (J = 0 denormal or J = 1 pseudo-denormal)
  Normal,
  Infinity,
  QuietNaN,
  SignalingNaN,
  Unsupported,   // unnormal, pseudo-NaN, pseudo-infinity: invalid operands since the 387
};

constexpr Category classify(Float80 v) {
  const u16 e = v.exponent();
  const bool j = (v.significand & kIntegerBit) != 0;
  if (e == 0) return v.significand == 0 ? Category::Zero : Category::Denormal;
  if (!j) return Category::Unsupported;
  if (e != kMaxExponent) return Category::Normal;
  if ((v.significand & ~kIntegerBit) == 0) return Category::Infinity;
  return (v.significand & kQuietBit) ? Category::QuietNaN : Category::SignalingNaN;
}

constexpr bool is_nan(Category c) { return c == Category::QuietNaN || c == Category::SignalingNaN; }

}  // namespace x86lab::x87
