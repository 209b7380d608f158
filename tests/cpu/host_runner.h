// Runs one IA-32 instruction on the host CPU and on an x86lab Cpu from the same state,
// for the host differential tests (Intel SDM Vol. 1, "Basic Execution Environment";
// Vol. 2, "Instruction Format").
//
// The host is an x86-64 process. An instruction without a REX prefix has the same
// operand-size semantics and flags in 64-bit mode as in 32-bit protected mode, so each
// instruction runs natively from an executable page: a stub loads the eight 32-bit
// registers and EFLAGS, executes the bytes and saves them again. Memory operands point
// into one buffer mapped at the same low address in the host process and in x86lab's
// physical memory, so the same register values address the same bytes on both sides
// (x86lab runs with flat 4 GiB segments and CS.D = 1, without paging).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "cpu/cpu.h"

// The host stub is x86-64 machine code for the Linux signal and mapping interfaces.
#if defined(__x86_64__) && defined(__linux__)
#define X86LAB_HOST_CPU_SUPPORTED 1
#else
#define X86LAB_HOST_CPU_SUPPORTED 0
#endif

namespace x86lab::testing {

// The state an instruction under test reads and writes besides the data buffer.
struct RegisterState {
  std::array<u32, 8> gpr{};  // EAX ECX EDX EBX ESP EBP ESI EDI
  u32 eflags = flag::Reserved1;
};

// How one execution ended.
enum class Ending : u8 {
  Completed,    // the instruction retired
  DivideError,  // #DE (vector 0; SIGFPE on the host)
  OtherFault,   // any other exception or signal
};

struct Outcome {
  Ending ending = Ending::Completed;
  int detail = 0;       // the host signal number or x86lab's vector for OtherFault
  RegisterState after;  // registers and flags after the instruction (or at the fault)
};

// The data buffer both sides share: host virtual address = x86lab physical address.
inline constexpr u32 kDataAddress = 0x000C7F80u;  // straddles a page boundary (0xC8000)
inline constexpr u32 kDataBytes = 0x100;

// The host CPU. Maps its code, context and data pages at fixed low addresses and
// installs SIGFPE/SIGILL/SIGSEGV/SIGBUS handlers (on an alternate stack) while it
// lives; only one may exist at a time. The constructor throws std::runtime_error
// when the mapping is refused.
class HostCpu {
 public:
  HostCpu();
  ~HostCpu();
  static constexpr bool supported() { return X86LAB_HOST_CPU_SUPPORTED; }
  HostCpu(const HostCpu&) = delete;
  HostCpu& operator=(const HostCpu&) = delete;

  // The shared data buffer (kDataBytes bytes at kDataAddress).
  u8* data() { return reinterpret_cast<u8*>(static_cast<std::uintptr_t>(kDataAddress)); }

  // Executes `bytes` (at most 15, no REX prefix, no control transfer) with `before`.
  // Only the status flags and DF of `before.eflags` are used.
  Outcome run(std::span<const u8> bytes, const RegisterState& before);
};

// x86lab in flat 32-bit protected mode at CPL 0: CS, DS, ES, SS base 0 and limit
// 4 GiB, CS.D = 1, no paging, an empty IDT (so an exception is counted by vector and
// then shuts the CPU down, leaving registers and memory as the fault left them).
class SimulatedCpu {
 public:
  SimulatedCpu();
  ~SimulatedCpu();

  // Copies the host's data buffer in before `run` and out after it.
  void load_data(std::span<const u8> bytes);
  void store_data(std::span<u8> bytes) const;

  Outcome run(std::span<const u8> bytes, const RegisterState& before);

 private:
  struct Machine;
  std::unique_ptr<Machine> machine_;
};

}  // namespace x86lab::testing
