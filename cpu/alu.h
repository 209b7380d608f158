// Pure ALU functions with exact status flags (Intel SDM Vol. 2, each instruction's
// "Flags Affected"). Each returns the result and the six status flags; the caller
// writes only the flags the instruction defines plus the undefined ones chosen in
// cpu/undefined_flags.h. Generic over operand width T = u8, u16 or u32.
//
// On an x86-64 host, add, sub, logic and zsp take the status flags from the host's
// own ADD/ADC/SUB/SBB/TEST (LAHF and SETO): the same six flags by the same SDM
// definitions, in a few host instructions instead of computing each flag. The
// portable functions (portable::add ...) stay the reference: constant evaluation
// and other hosts use them, and tests/cpu/alu_test.cpp compares the two.
#pragma once
#include <bit>
#include <type_traits>

#include "cpu/flags.h"

namespace x86lab::alu {

template <class T>
inline constexpr unsigned kBits = sizeof(T) * 8;
template <class T>
inline constexpr T kSign = static_cast<T>(T{1} << (kBits<T> - 1));
template <class T>
using Signed = std::make_signed_t<T>;

template <class T>
struct Result {
  T value;
  u32 flags;  // status flags (CF PF AF ZF SF OF) as they stand after the operation
};

inline constexpr u32 parity(u32 value) { return (std::popcount(value & 0xFFu) & 1) ? 0 : flag::PF; }

// The portable definitions, flag by flag.
namespace portable {
// ZF, SF and PF of a result.
template <class T>
constexpr u32 zsp(T value) {
  return (value == 0 ? flag::ZF : 0) | ((value & kSign<T>) ? flag::SF : 0) | parity(value);
}

template <class T>
constexpr Result<T> add(T a, T b, bool carry_in = false) {
  const u64 wide = u64{a} + u64{b} + (carry_in ? 1 : 0);
  const T r = static_cast<T>(wide);
  u32 f = zsp(r) | ((wide >> kBits<T>) ? flag::CF : 0) | (((a ^ b ^ r) & 0x10) ? flag::AF : 0);
  if ((a ^ r) & (b ^ r) & kSign<T>) f |= flag::OF;
  return {r, f};
}

template <class T>
constexpr Result<T> sub(T a, T b, bool borrow_in = false) {
  const T r = static_cast<T>(a - b - (borrow_in ? 1 : 0));
  u32 f = zsp(r) | ((u64{a} < u64{b} + (borrow_in ? 1 : 0)) ? flag::CF : 0) | (((a ^ b ^ r) & 0x10) ? flag::AF : 0);
  if ((a ^ b) & (a ^ r) & kSign<T>) f |= flag::OF;
  return {r, f};
}
}  // namespace portable

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define X86LAB_HOST_FLAGS 1
// The host's flags after one x86 instruction. LAHF puts SF ZF 0 AF 0 PF 1 CF in AH at
// their EFLAGS bit positions; SETO puts OF in AL. EAX is zeroed first (before the
// instruction, as XOR writes flags) so that the partial writes do not wait for its
// previous value. (LAHF in 64-bit mode needs
// CPUID.80000001H:ECX[0], present on every x86-64 processor since 2006.)
namespace host {
inline constexpr u32 kLahfFlags = flag::CF | flag::PF | flag::AF | flag::ZF | flag::SF;
inline u32 flags_of(u32 ax) { return ((ax >> 8) & kLahfFlags) | ((ax & 1) << 11); }

// One two-operand instruction at width T: `op` (add, sub) without a carry, `op_carry`
// (adc, sbb) after STC when `carry` is set. When the caller's carry is the constant
// false, the second form is not compiled in.
#define X86LAB_HOST_BINARY(op, op_carry, suffix, m)                                              \
  if (carry)                                                                                     \
    asm("xor %%eax, %%eax\n\tstc\n\t" op_carry suffix " %" m "[b], %" m "[a]\n\tlahf\n\tseto %%al" \
        : [a] "+r"(a), "=&a"(ax)                                                                 \
        : [b] "r"(b)                                                                             \
        : "cc");                                                                                 \
  else                                                                                           \
    asm("xor %%eax, %%eax\n\t" op suffix " %" m "[b], %" m "[a]\n\tlahf\n\tseto %%al"                \
        : [a] "+r"(a), "=&a"(ax)                                                                 \
        : [b] "r"(b)                                                                             \
        : "cc")
template <class T>
inline Result<T> add(T a, T b, bool carry) {
  u32 ax;
  if constexpr (sizeof(T) == 1) X86LAB_HOST_BINARY("add", "adc", "b", "b");
  else if constexpr (sizeof(T) == 2) X86LAB_HOST_BINARY("add", "adc", "w", "w");
  else X86LAB_HOST_BINARY("add", "adc", "l", "k");
  return {a, flags_of(ax)};
}
template <class T>
inline Result<T> sub(T a, T b, bool carry) {
  u32 ax;
  if constexpr (sizeof(T) == 1) X86LAB_HOST_BINARY("sub", "sbb", "b", "b");
  else if constexpr (sizeof(T) == 2) X86LAB_HOST_BINARY("sub", "sbb", "w", "w");
  else X86LAB_HOST_BINARY("sub", "sbb", "l", "k");
  return {a, flags_of(ax)};
}
#undef X86LAB_HOST_BINARY

// ZF, SF and PF of `value` (TEST value, value; its AF is undefined and masked off).
template <class T>
inline u32 zsp(T value) {
  u32 ax;
  if constexpr (sizeof(T) == 1) asm("xor %%eax, %%eax\n\ttest %b[v], %b[v]\n\tlahf" : "=&a"(ax) : [v] "r"(value) : "cc");
  else if constexpr (sizeof(T) == 2) asm("xor %%eax, %%eax\n\ttest %w[v], %w[v]\n\tlahf" : "=&a"(ax) : [v] "r"(value) : "cc");
  else asm("xor %%eax, %%eax\n\ttest %k[v], %k[v]\n\tlahf" : "=&a"(ax) : [v] "r"(value) : "cc");
  return (ax >> 8) & (flag::PF | flag::ZF | flag::SF);
}
}  // namespace host
#endif

// ZF, SF and PF of a result.
template <class T>
constexpr u32 zsp(T value) {
#ifdef X86LAB_HOST_FLAGS
  if (!std::is_constant_evaluated()) return host::zsp<T>(value);
#endif
  return portable::zsp<T>(value);
}

template <class T>
constexpr Result<T> add(T a, T b, bool carry_in = false) {
#ifdef X86LAB_HOST_FLAGS
  if (!std::is_constant_evaluated()) return host::add<T>(a, b, carry_in);
#endif
  return portable::add<T>(a, b, carry_in);
}

template <class T>
constexpr Result<T> sub(T a, T b, bool borrow_in = false) {
#ifdef X86LAB_HOST_FLAGS
  if (!std::is_constant_evaluated()) return host::sub<T>(a, b, borrow_in);
#endif
  return portable::sub<T>(a, b, borrow_in);
}

// AND, OR, XOR, TEST: CF = OF = 0; AF undefined (cleared, see undefined_flags.h).
template <class T>
constexpr Result<T> logic(T r) {
  return {r, zsp(r)};
}

// SHL/SAL. `count` is already masked to 5 bits and non-zero.
template <class T>
constexpr Result<T> shl(T a, unsigned count) {
  const T r = count >= kBits<T> ? T{0} : static_cast<T>(a << count);
  const bool cf = count <= kBits<T> && ((u64{a} >> (kBits<T> - count)) & 1);
  u32 f = zsp(r) | (cf ? flag::CF : 0);
  if (bool((r & kSign<T>) != 0) != cf) f |= flag::OF;  // OF = MSB(result) XOR CF
  return {r, f};
}

template <class T>
constexpr Result<T> shr(T a, unsigned count) {
  const T r = count >= kBits<T> ? T{0} : static_cast<T>(a >> count);
  const bool cf = count <= kBits<T> && ((u64{a} >> (count - 1)) & 1);
  u32 f = zsp(r) | (cf ? flag::CF : 0);
  if (a & kSign<T>) f |= flag::OF;  // OF = MSB of the original operand
  return {r, f};
}

template <class T>
constexpr Result<T> sar(T a, unsigned count) {
  const auto s = static_cast<Signed<T>>(a);
  const unsigned c = count >= kBits<T> ? kBits<T> - 1 : count;
  const T r = static_cast<T>(s >> c);
  const bool cf = count >= kBits<T> ? (a & kSign<T>) != 0 : ((s >> (count - 1)) & 1) != 0;
  return {r, zsp(r) | (cf ? flag::CF : 0)};  // OF = 0
}

// Rotates return only CF and OF; the caller keeps the other flags.
template <class T>
constexpr Result<T> rol(T a, unsigned count) {
  const T r = std::rotl(a, static_cast<int>(count % kBits<T>));
  const bool cf = r & 1;
  return {r, (cf ? flag::CF : 0) | ((bool(r & kSign<T>) != cf) ? flag::OF : 0)};
}

template <class T>
constexpr Result<T> ror(T a, unsigned count) {
  const T r = std::rotr(a, static_cast<int>(count % kBits<T>));
  const bool msb = r & kSign<T>, next = r & (kSign<T> >> 1);
  return {r, (msb ? flag::CF : 0) | (msb != next ? flag::OF : 0)};
}

// Rotate through carry by `count` (already reduced modulo width + 1, non-zero).
template <class T>
constexpr Result<T> rcl(T a, unsigned count, bool carry) {
  T r = a;
  bool cf = carry;
  for (unsigned i = 0; i < count; ++i) {
    const bool out = r & kSign<T>;
    r = static_cast<T>((r << 1) | (cf ? 1 : 0));
    cf = out;
  }
  return {r, (cf ? flag::CF : 0) | ((bool(r & kSign<T>) != cf) ? flag::OF : 0)};
}

template <class T>
constexpr Result<T> rcr(T a, unsigned count, bool carry) {
  T r = a;
  bool cf = carry;
  for (unsigned i = 0; i < count; ++i) {
    const bool out = r & 1;
    r = static_cast<T>((r >> 1) | (cf ? kSign<T> : 0));
    cf = out;
  }
  const bool msb = r & kSign<T>, next = r & (kSign<T> >> 1);
  return {r, (cf ? flag::CF : 0) | (msb != next ? flag::OF : 0)};
}

}  // namespace x86lab::alu
