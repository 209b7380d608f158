// Runs one test of the 80286 real-mode single-instruction suite (SingleStepTests 80286
// v1, captured from a Harris 80C286; ../shared/tests/sst286/README.md) on x86lab's CPU
// in real mode (Intel SDM Vol. 3, "8086 Emulation"), and handles the README's five
// differences between that 286 and a P6-class CPU, plus x86lab's rules 6-13, further
// differences the SDM documents (docs/sst286.md). Used by sst286_test.cpp.
#pragma once
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cpu/cpu.h"

namespace x86lab::sst286 {

inline constexpr u32 kMemoryBytes = 16u << 20;  // the 286's 24-bit address space, all RAM
inline constexpr unsigned kMaxSteps = 10000;     // enough for REP strings with CX = FFFFh
inline constexpr unsigned k286MaxInstructionBytes = 10;  // README difference 5 (the P6 allows 15)

// 16 MiB of memory that records every byte the CPU writes, so the runner can check
// that nothing outside the expected changes was written and restore it after each
// test without clearing 16 MiB. It answers the whole address space as RAM does.
class RecordingMemory final : public BusDevice {
 public:
  RecordingMemory() : bytes_(kMemoryBytes) {}
  u32 read(u32 offset, unsigned size) override;
  void write(u32 offset, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "recording-memory"; }

  u8 byte(u32 address) const { return bytes_[address]; }
  // Sets a byte as the test's initial state (not recorded as a CPU write).
  void poke(u32 address, u8 value);
  // Addresses the CPU wrote since the last clear(), each once, in first-write order.
  const std::vector<u32>& written() const { return written_; }
  // Zeroes every byte poked or written since the last clear().
  void clear();

 private:
  std::vector<u8> bytes_;
  std::vector<u8> write_seen_ = std::vector<u8>(kMemoryBytes);
  std::vector<u32> written_;
  std::vector<u32> touched_;
};

// A real-mode CPU on the recording memory, reused from test to test.
struct Machine {
  Counters counters;
  PhysicalBus bus{0, counters};
  PortBus ports{counters};  // no devices: every port reads FFh, as on the capture rig
  Mmu mmu{bus};
  RecordingMemory memory;
  Cpu cpu{mmu, ports, counters, default_profile()};

  Machine() { bus.map_mmio(0, kMemoryBytes, &memory); }
};

// What one test expects of a P6: registers, changed bytes, and which FLAGS bits do
// not count.
struct Expectation {
  std::map<std::string, u32> registers;   // ax ... flags, all 14
  std::map<u32, u8> initial_ram;          // as loaded (including any IVT entry the runner adds)
  std::map<u32, u8> final_ram;            // the bytes that change
  std::optional<u32> flag_address;        // where an interrupt pushed FLAGS
  u32 ignored_flags = 0;                  // bits 12-15 and the instruction's undefined flags
};

enum class Verdict { Pass, Fail, Skipped };

// x86lab's rules beyond the README's five (docs/sst286.md): 6 and 7 here, 8-13 in
// sst286_rules.h.
inline constexpr unsigned kFirstRule = 6, kLastRule = 13;

struct Outcome {
  Verdict verdict = Verdict::Pass;
  std::string detail;  // what differed, or why the test was skipped
  u32 rules = 0;       // bit n: x86lab rule n changed the expectation
  bool applied(unsigned rule) const { return (rules >> rule) & 1; }
};

// README difference 3: the P6 accepts LOCK only on a read-modify-write instruction
// with a memory destination (Intel SDM Vol. 2, "LOCK—Assert LOCK# Signal Prefix");
// true when `bytes` (prefixes, opcode, ModRM ...) carry LOCK on anything else.
bool lock_raises_ud_on_p6(std::span<const u8> bytes);

// The first memory access of `insn` that runs past offset FFFFh, the real-mode limit of
// every segment, as the P6 makes them (Intel SDM Vol. 3, "Interrupt 12—Stack Fault
// Exception (#SS)", "Interrupt 13—General Protection Exception (#GP)"), worked out from
// the decoded instruction and `regs`, the test's initial registers ("ax" ... "di", 16 bits).
// Covered: the ModRM memory operand; the stack reads of POP, POPF, POPA, RET, RETF, IRET
// and LEAVE (through SS:SP, and SS:BP for LEAVE), before the ModRM write of POP m16; the
// first element of a string instruction (source, then destination; none under REP with
// CX = 0). Stack writes (PUSH, CALL, INT, ENTER) are not covered.
struct LimitViolation {
  SegmentIndex segment = DS;    // SS: the P6 raises #SS (12); any other: #GP (13)
  bool string_element = false;  // the access is an element of MOVS CMPS LODS STOS SCAS INS OUTS
};
std::optional<LimitViolation> first_limit_violation(const Instruction& insn, const nlohmann::json& regs);

// Runs `test` (one JSON line of the suite) on `machine` and compares the result.
Outcome run_test(Machine& machine, const nlohmann::json& test);

}  // namespace x86lab::sst286
