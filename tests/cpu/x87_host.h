// Runs one x87 instruction on the host CPU's own x87 and on x86lab from the same FPU
// state, for the x87 differential and accuracy tests (Intel SDM Vol. 1, "Programming
// with the x87 FPU").
//
// The host is an x86-64 process; x87 instructions without a REX prefix mean the same
// in 64-bit mode as in 32-bit protected mode, and FNSAVE/FRSTOR use the 108-byte
// 32-bit protected-mode image. A stub on an executable page saves the host's FPU,
// loads the case's image with FRSTOR, sets the status flags, runs the instruction,
// and saves the result with FNSAVE. The memory operand is always [EBX] (ModRM.rm = 3,
// mod = 0): the host's RBX and x86lab's EBX point at a 128-byte buffer each.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cpu/x87/environment.h"
#include "cpu/x87/operand.h"
#include "trace/types.h"

namespace x86lab::x87_testing {

inline constexpr unsigned kImageBytes = 108;
inline constexpr unsigned kMemoryBytes = 128;
using Image = std::array<u8, kImageBytes>;
using Memory = std::array<u8, kMemoryBytes>;

struct Case {
  std::vector<u8> bytes;  // the instruction, at most 15 bytes, no REX prefix
  Image state{};          // FRSTOR image, 32-bit protected layout
  Memory memory{};        // the bytes at [EBX]
  u32 eflags = 0x202;     // CF PF AF ZF SF OF as FCMOVcc reads them
};

struct Observation {
  bool completed = false;  // false: x86lab delivered an exception (vector in `vector`)
  int vector = -1;
  Image state{};           // FNSAVE image after the instruction
  Memory memory{};
  u32 eflags = 0;
  u16 ax = 0;
};

// The host's x87. Not thread-safe; the host's own FPU state is saved and restored.
class HostX87 {
 public:
  HostX87();
  ~HostX87();
  HostX87(const HostX87&) = delete;
  HostX87& operator=(const HostX87&) = delete;
  Observation run(const Case& c);

 private:
  u8* page_ = nullptr;
};

// True on an Intel host: the behaviours x86lab models where the SDM leaves a choice
// were measured on Intel processors; other vendors may differ there.
bool host_is_intel();

// What a comparison with the host covers.
//   Intel: every bit of the FPU state, memory, EFLAGS and AX (FPU pointers aside), on an
//     Intel host only: x86lab makes the choices the SDM leaves open as Intel processors do.
//   Architectural: only what IEEE 754 and the SDM define, which the x87 of any x86-64
//     host produces: the inputs avoid the encodings whose handling is the
//     implementation's (pseudo-denormals, unsupported encodings, reserved control-word
//     bits, an inconsistent ES/B in a loaded status word), and the reserved upper
//     halves of the 32-bit environment's words and the condition codes that the
//     instruction's SDM page calls undefined are not compared.
enum class Scope : u8 { Intel, Architectural };

// x86lab in flat 32-bit protected mode at CPL 0, CR0.NE = 1, no paging, no IDT.
class SimulatedX87 {
 public:
  SimulatedX87();
  ~SimulatedX87();
  Observation run(const Case& c);

 private:
  struct Machine;
  std::unique_ptr<Machine> machine_;
};

// Describes how two observations differ, ignoring the FPU pointers (FIP, FCS, FOP,
// FDP, FDS: the host runs at 64-bit addresses and may deprecate FCS/FDS/FOP) in the
// images and in environments the instruction stored to memory (`stored_environment`:
// 0 none, 14 or 28 bytes). With Scope::Architectural it also ignores the reserved
// upper halves of the 32-bit environment words (image and a stored 28-byte
// environment) and the status-word bits in `undefined_codes` (of C0-C3) after the
// instruction. Empty when they agree.
std::string differences(const Observation& host, const Observation& simulated, unsigned stored_environment,
                        Scope scope = Scope::Intel, u16 undefined_codes = 0);

// Printable forms for failure messages.
std::string hex(const u8* bytes, unsigned size);
std::string describe(const Case& c);

// ---- inputs ----------------------------------------------------------------------
struct Random {
  u64 state;
  explicit Random(u64 seed) : state(seed * 0x9E3779B97F4A7C15ull + 1) {}
  u64 next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
  }
  u32 below(u32 n) { return static_cast<u32>(next() % n); }
  bool percent(u32 p) { return below(100) < p; }
};

// An 80-bit value from a mix of classes: zeros, denormals, pseudo-denormals, normals
// of every exponent range, values with short significands (rounding ties), integers,
// halves, infinities, QNaNs and SNaNs (with shared payloads), unsupported encodings.
// Scope::Architectural draws again where Intel would give a pseudo-denormal or an
// unsupported encoding (the Intel sequence is unchanged).
x87::Float80 random_extended(Random& r, Scope scope = Scope::Intel);
u32 random_single(Random& r);
u64 random_double(Random& r);
i64 random_integer(Random& r, int bits);
x87::PackedBcd random_bcd(Random& r);

// A random FPU state with no pending exception: control word `control` (rounding and
// precision fields as given, masks as given), status flags only where masked, some
// registers empty; register contents as random_extended(r, scope) gives them.
Image random_state(Random& r, u16 control, Scope scope = Scope::Intel);

// True for the 80-bit encodings whose handling the SDM leaves to the implementation:
// pseudo-denormals (exponent 0, integer bit 1; Vol. 1 "Pseudo-Denormal Numbers") and
// the unsupported encodings (pseudo-NaNs, pseudo-infinities, unnormals: integer bit 0
// with a nonzero exponent; Vol. 1 "Unsupported Double Extended-Precision Floating-Point
// Encodings and Pseudo-Denormals").
bool implementation_specific(const x87::Float80& v);

}  // namespace x86lab::x87_testing
