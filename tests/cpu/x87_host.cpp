// The host x87 and x86lab side by side for the x87 tests (see x87_host.h).
#include "x87_host.h"

#include <cpuid.h>
#include <sys/mman.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include "cpu/cpu.h"
#include "segmentation/system_segments.h"

namespace x86lab::x87_testing {
namespace {

// The stub's data area: offsets the code below addresses through RDI.
constexpr u32 kIn = 0, kOut = 128, kHost = 256, kFlagsIn = 384, kFlagsOut = 392, kRaxOut = 400, kAreaBytes = 512;

void put32(std::vector<u8>& code, u32 v) {
  for (int k = 0; k < 4; ++k) code.push_back(static_cast<u8>(v >> (8 * k)));
}

// push rbx; mov rbx, rsi; fnsave [rdi+host]; frstor [rdi+in]; xor eax, eax;
// push qword [rdi+flags_in]; popfq; <instruction>; pushfq; pop qword [rdi+flags_out];
// mov [rdi+rax_out], rax; fnsave [rdi+out]; frstor [rdi+host]; pop rbx; ret
std::vector<u8> stub(const std::vector<u8>& instruction) {
  std::vector<u8> c = {0x53, 0x48, 0x89, 0xF3, 0xDD, 0xB7};
  put32(c, kHost);
  c.insert(c.end(), {0xDD, 0xA7});
  put32(c, kIn);
  c.insert(c.end(), {0x31, 0xC0, 0xFF, 0xB7});
  put32(c, kFlagsIn);
  c.push_back(0x9D);
  c.insert(c.end(), instruction.begin(), instruction.end());
  c.insert(c.end(), {0x9C, 0x8F, 0x87});
  put32(c, kFlagsOut);
  c.insert(c.end(), {0x48, 0x89, 0x87});
  put32(c, kRaxOut);
  c.insert(c.end(), {0xDD, 0xB7});
  put32(c, kOut);
  c.insert(c.end(), {0xDD, 0xA7});
  put32(c, kHost);
  c.insert(c.end(), {0x5B, 0xC3});
  return c;
}

constexpr u32 kStatusFlags = flag::CF | flag::PF | flag::AF | flag::ZF | flag::SF | flag::OF;

}  // namespace

bool host_is_intel() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
  return ebx == 0x756E6547u && edx == 0x49656E69u && ecx == 0x6C65746Eu;  // "GenuineIntel"
}

HostX87::HostX87() {
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw std::runtime_error("mmap of an executable page failed");
  page_ = static_cast<u8*>(page);
}

HostX87::~HostX87() { munmap(page_, 4096); }

Observation HostX87::run(const Case& c) {
  const std::vector<u8> code = stub(c.bytes);
  u8* area = page_ + 4096 - kAreaBytes;
  std::memcpy(page_, code.data(), code.size());
  std::memcpy(area + kIn, c.state.data(), kImageBytes);
  const u64 flags = (c.eflags & kStatusFlags) | 0x202;
  std::memcpy(area + kFlagsIn, &flags, 8);
  Memory memory = c.memory;
  using Stub = void (*)(u8*, u8*);
  reinterpret_cast<Stub>(page_)(area, memory.data());
  Observation o;
  o.completed = true;
  std::memcpy(o.state.data(), area + kOut, kImageBytes);
  o.memory = memory;
  u64 flags_out, rax;
  std::memcpy(&flags_out, area + kFlagsOut, 8);
  std::memcpy(&rax, area + kRaxOut, 8);
  o.eflags = static_cast<u32>(flags_out) & kStatusFlags;
  o.ax = static_cast<u16>(rax);
  return o;
}

struct SimulatedX87::Machine {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  Cpu cpu{mmu, ports, counters, default_profile()};
};

SimulatedX87::SimulatedX87() : machine_(std::make_unique<Machine>()) {}
SimulatedX87::~SimulatedX87() = default;

namespace {
constexpr u32 kCode = 0x1000, kData = 0x2000;
}  // namespace

Observation SimulatedX87::run(const Case& c) {
  Cpu& cpu = machine_->cpu;
  CpuState& s = cpu.state;
  s.cr0 = cr0::PE | cr0::ET | cr0::NE;
  s.cpl = 0;
  s.halted = s.shutdown = false;
  s.idtr = {0, 0};
  for (unsigned seg = 0; seg < 6; ++seg) load_flat_segment(s.segments[seg], seg == CS ? 0x08 : 0x10, seg == CS, 0);
  s.gpr = {};
  s.gpr[EBX] = kData;
  s.eip = kCode;
  s.eflags = (c.eflags & kStatusFlags) | flag::Reserved1;
  for (unsigned k = 0; k < c.bytes.size(); ++k) machine_->bus.poke(kCode + k, c.bytes[k]);
  for (unsigned k = 0; k < kMemoryBytes; ++k) machine_->bus.poke(kData + k, c.memory[k]);
  x87::load_state(s.fpu, x87::ImageLayout::Protected32, c.state.data());
  const auto before = machine_->counters.exceptions_by_vector;
  cpu.step();
  Observation o;
  o.completed = !s.shutdown && s.eip == kCode + c.bytes.size();
  for (unsigned v = 0; v < 32; ++v)
    if (machine_->counters.exceptions_by_vector[v] != before[v]) {
      o.vector = static_cast<int>(v);
      o.completed = false;
      break;
    }
  x87::store_state(s.fpu, x87::ImageLayout::Protected32, o.state.data());
  for (unsigned k = 0; k < kMemoryBytes; ++k) o.memory[k] = machine_->bus.peek(kData + k);
  o.eflags = s.eflags & kStatusFlags;
  o.ax = static_cast<u16>(s.gpr[EAX]);
  return o;
}

std::string hex(const u8* bytes, unsigned size) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  for (unsigned k = 0; k < size; ++k) {
    out += kDigits[bytes[k] >> 4];
    out += kDigits[bytes[k] & 15];
  }
  return out;
}

namespace {
u16 word(const Image& image, unsigned at) { return static_cast<u16>(image[at] | (image[at + 1] << 8)); }

std::string register_text(const Image& image, unsigned i) {
  const u8* p = image.data() + 28 + 10 * i;
  std::string text = hex(p + 9, 1) + hex(p + 8, 1) + ":";
  for (int k = 7; k >= 0; --k) text += hex(p + k, 1);
  return text;
}

std::string state_text(const Image& image) {
  std::ostringstream o;
  o << std::hex << "CW=" << word(image, 0) << " SW=" << word(image, 4) << " TW=" << word(image, 8);
  for (unsigned i = 0; i < 8; ++i) o << " ST" << i << "=" << register_text(image, i);
  return o.str();
}
}  // namespace

std::string describe(const Case& c) {
  std::ostringstream o;
  o << "bytes " << hex(c.bytes.data(), static_cast<unsigned>(c.bytes.size())) << " in: " << state_text(c.state)
    << " EFLAGS=" << std::hex << c.eflags << " mem=" << hex(c.memory.data(), 16);
  return o.str();
}

namespace {
// Bytes 2-3, 6-7 and 10-11 of the 32-bit environment: the upper halves of the CW, SW
// and TW doublewords, reserved (Vol. 1 "Saving the x87 FPU State with FSTENV/FNSTENV
// and FSAVE/FNSAVE").
bool reserved_half(unsigned k) { return k < 12 && (k & 2); }
}  // namespace

std::string differences(const Observation& host, const Observation& simulated, unsigned stored_environment,
                        Scope scope, u16 undefined_codes) {
  const bool architectural = scope == Scope::Architectural;
  std::ostringstream o;
  if (!simulated.completed) o << " x86lab raised vector " << simulated.vector << ";";
  // Image bytes 0-11 (CW, SW, TW with their reserved halves) and 28-107 (registers).
  bool image_differs = false;
  for (unsigned k = 0; k < kImageBytes; ++k) {
    if ((k >= 12 && k < 28) || (architectural && reserved_half(k))) continue;
    u8 ignored = 0;
    if (architectural && k == 4) ignored = static_cast<u8>(undefined_codes);
    if (architectural && k == 5) ignored = static_cast<u8>(undefined_codes >> 8);
    image_differs = image_differs || ((host.state[k] ^ simulated.state[k]) & ~ignored) != 0;
  }
  if (image_differs) o << "\n  host:   " << state_text(host.state) << "\n  x86lab: " << state_text(simulated.state);
  // Memory, without the pointer fields of a stored environment.
  for (unsigned k = 0; k < kMemoryBytes; ++k) {
    const bool pointer = (stored_environment == 28 && k >= 12 && k < 28) || (stored_environment == 14 && k >= 6 && k < 14);
    const bool reserved = architectural && stored_environment == 28 && reserved_half(k);
    if (!pointer && !reserved && host.memory[k] != simulated.memory[k]) {
      o << "\n  memory differs at " << k << ": host " << hex(host.memory.data(), 16) << "... x86lab "
        << hex(simulated.memory.data(), 16) << "...";
      break;
    }
  }
  if (host.eflags != simulated.eflags) o << "\n  EFLAGS host " << std::hex << host.eflags << " x86lab " << simulated.eflags;
  if (host.ax != simulated.ax) o << "\n  AX host " << std::hex << host.ax << " x86lab " << simulated.ax;
  return o.str();
}

// ---- inputs ----------------------------------------------------------------------

bool implementation_specific(const x87::Float80& v) {
  const bool integer_bit = (v.significand & x87::kIntegerBit) != 0;
  const bool exponent_zero = (v.sign_exponent & 0x7FFF) == 0;
  return exponent_zero ? integer_bit : !integer_bit;
}

namespace {
x87::Float80 any_extended(Random& r) {
  using x87::Float80;
  const bool sign = r.percent(50);
  const u16 s = sign ? 0x8000 : 0;
  const u64 bits = r.next();
  static const u64 kPayloads[] = {0, 1, 0x1234, 0x3FFFFFFFFFFFFFFFull};
  const u32 pick = r.below(100);
  if (pick < 8) return {0, s};
  if (pick < 14) return {((bits >> r.below(64)) & ~x87::kIntegerBit) | 1, s};     // denormal
  if (pick < 16) return {bits | x87::kIntegerBit, s};                              // pseudo-denormal
  if (pick < 20) return {x87::kIntegerBit, static_cast<u16>(s | 0x7FFF)};          // infinity
  if (pick < 26) {                                                                 // QNaN
    const u64 payload = r.percent(50) ? kPayloads[r.below(4)] : bits;
    return {0xC000000000000000ull | (payload & 0x3FFFFFFFFFFFFFFFull), static_cast<u16>(s | 0x7FFF)};
  }
  if (pick < 31) {                                                                 // SNaN
    const u64 payload = (r.percent(50) ? kPayloads[r.below(4)] : bits) & 0x3FFFFFFFFFFFFFFFull;
    return {x87::kIntegerBit | (payload ? payload : 1), static_cast<u16>(s | 0x7FFF)};
  }
  if (pick < 34) {                                                                 // unsupported
    const u16 e = r.percent(50) ? 0x7FFF : static_cast<u16>(1 + r.below(0x7FFE));
    return {bits & ~x87::kIntegerBit, static_cast<u16>(s | e)};
  }
  if (pick < 46) {                                                                 // integers and halves
    const int width = static_cast<int>(r.below(66));
    const u64 magnitude = width == 0 ? 0 : (width >= 64 ? bits : bits >> (64 - width));
    if (magnitude == 0) return {0, s};
    const int lead = 63 - __builtin_clzll(magnitude);
    const bool half = r.percent(30);
    return {magnitude << (63 - lead), static_cast<u16>(s | (16383 + lead - (half ? 1 : 0)))};
  }
  u64 significand = bits | x87::kIntegerBit;
  if (r.percent(35)) significand &= ~0ull << r.below(64);                          // short significand: ties
  u16 exponent;
  if (pick < 52) exponent = static_cast<u16>(1 + r.below(80));                     // near the denormals
  else if (pick < 56) exponent = static_cast<u16>(0x7FFE - r.below(80));           // near overflow
  else if (pick < 60) exponent = static_cast<u16>(1 + r.below(0x7FFE));            // anywhere
  else exponent = static_cast<u16>(16383 - 70 + r.below(141));                     // around 1
  return {significand, static_cast<u16>(s | exponent)};
}

// An IEEE value with `fraction_bits` stored bits and `exponent_bits` exponent bits.
u64 random_ieee(Random& r, int fraction_bits, int exponent_bits) {
  const u64 sign = u64{r.percent(50)} << (fraction_bits + exponent_bits);
  const u64 max_exponent = (1ull << exponent_bits) - 1, bias = max_exponent >> 1;
  u64 fraction = r.next() & ((1ull << fraction_bits) - 1);
  if (r.percent(30)) fraction &= ~0ull << r.below(static_cast<u32>(fraction_bits));
  const u32 pick = r.below(100);
  u64 exponent;
  if (pick < 8) return sign;
  if (pick < 16) exponent = 0;
  else if (pick < 22) return sign | (max_exponent << fraction_bits);
  else if (pick < 30) {
    exponent = max_exponent;
    if (fraction == 0) fraction = 1;
  } else if (pick < 40) exponent = 1 + r.below(8);
  else if (pick < 50) exponent = max_exponent - 1 - r.below(8);
  else if (pick < 60) exponent = 1 + r.below(static_cast<u32>(max_exponent - 1));
  else exponent = bias - 40 + r.below(81);
  if (exponent == 0 && fraction == 0) fraction = 1;
  return sign | (exponent << fraction_bits) | fraction;
}
}  // namespace

x87::Float80 random_extended(Random& r, Scope scope) {
  x87::Float80 v = any_extended(r);
  while (scope == Scope::Architectural && implementation_specific(v)) v = any_extended(r);
  return v;
}

u32 random_single(Random& r) { return static_cast<u32>(random_ieee(r, 23, 8)); }
u64 random_double(Random& r) { return random_ieee(r, 52, 11); }

i64 random_integer(Random& r, int bits) {
  const u64 half = 1ull << (bits - 1);
  switch (r.below(6)) {
    case 0: return static_cast<i64>(0 - half);  // the most negative
    case 1: return static_cast<i64>(half - 1);
    case 2: return static_cast<i64>(r.below(21)) - 10;
    default: {
      const int width = 1 + static_cast<int>(r.below(static_cast<u32>(bits)));
      u64 v = r.next() >> (64 - width);
      if (width == bits) v &= half - 1;
      return r.percent(50) ? -static_cast<i64>(v) : static_cast<i64>(v);
    }
  }
}

x87::PackedBcd random_bcd(Random& r) {
  x87::PackedBcd bcd{};
  const unsigned digits = r.below(19);
  for (unsigned d = 0; d < digits; ++d) {
    const u8 digit = static_cast<u8>(r.below(10));
    bcd[d / 2] |= static_cast<u8>(d % 2 ? digit << 4 : digit);
  }
  bcd[9] = r.percent(50) ? 0x80 : 0;
  return bcd;
}

Image random_state(Random& r, u16 control, Scope scope) {
  x86lab::FpuState s;
  s.control = control;
  const u16 masked_flags = control & 0x3F & static_cast<u16>(r.next());
  u16 status = static_cast<u16>(masked_flags | (r.next() & (fsw::kConditionCodes | fsw::kTop)));
  if ((status & fsw::IE) && r.percent(50)) status |= fsw::SF;
  s.status = status;
  u16 tag = 0;
  for (unsigned reg = 0; reg < 8; ++reg) {
    s.registers[reg] = random_extended(r, scope);
    if (r.percent(15)) tag |= static_cast<u16>(3u << (2 * reg));
  }
  s.tag = tag;
  Image image{};
  x87::store_state(s, x87::ImageLayout::Protected32, image.data());
  return image;
}

}  // namespace x86lab::x87_testing
