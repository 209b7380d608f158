// A PC: owns the counters, the physical and I/O buses, the MMU, the CPU and the
// devices, and runs them (DESIGN.md section 2, platform/).
#pragma once
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cpu/cpu.h"
#include "platform/debug_ports.h"

namespace x86lab {

struct MachineConfig {
  u32 memory_mib = 64;                       // RAM size in MiB (1 to 3584)
  std::vector<u8> bios;                      // ROM image, mapped at the top of 4 GiB; empty for none
  std::FILE* debug_console = nullptr;        // port E9h output, or null
  bool post = false;                         // print port 80h writes
  u64 max_instructions = UINT64_MAX;         // stop after this many steps (instructions and deliveries)
  bool exit_on_halt = false;                 // HLT with IF = 0 ends the run with status 0
  const CpuProfile* profile = &default_profile();
};

// How a run ended, and the process exit status it maps to (README "Exit status").
struct RunResult {
  enum class Reason { ExitPort, Halted, HaltedForever, InstructionLimit, Shutdown } reason;
  int exit_status;
};

class Machine {
 public:
  explicit Machine(const MachineConfig& config);

  // Runs from the current state until one of RunResult's reasons.
  RunResult run();

  const MachineConfig& config() const { return config_; }
  Counters counters;
  PhysicalBus bus;
  PortBus ports;
  Mmu mmu;
  Cpu cpu;

 private:
  MachineConfig config_;
  DebugPorts debug_ports_;
  bool has_nmi_source_ = false;  // no device of this machine raises NMI yet
};

}  // namespace x86lab
