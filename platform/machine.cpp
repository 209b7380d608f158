// Machine assembly and the top-level run loop.
#include "platform/machine.h"

#include "platform/input_error.h"
#include "platform/rom_image.h"

namespace x86lab {

namespace {
u32 ram_bytes(u32 mib) {
  if (mib < 1 || mib > 3584) throw InputError("--memory must be between 1 and 3584 MiB, not " + std::to_string(mib));
  return mib * 1024u * 1024u;
}
}  // namespace

Machine::Machine(const MachineConfig& config)
    : bus(ram_bytes(config.memory_mib), counters),
      ports(counters),
      mmu(bus),
      cpu(mmu, ports, counters, *config.profile),
      config_(config),
      debug_ports_(config.debug_console, config.post, cpu) {
  if (!config.bios.empty()) map_bios(bus, config.bios);
  ports.attach(0x80, 0x80, &debug_ports_);
  ports.attach(0xE9, 0xE9, &debug_ports_);
  ports.attach(0xF4, 0xF4, &debug_ports_);
}

RunResult Machine::run() {
  for (;;) {
    const StopReason reason = cpu.run(config_.max_instructions);
    if (auto status = debug_ports_.exit_status()) return {RunResult::Reason::ExitPort, *status};
    switch (reason) {
      case StopReason::Shutdown: return {RunResult::Reason::Shutdown, 1};
      case StopReason::Halted:
        // HLT with IF = 0 can only be left by NMI or reset, and no device raises NMI:
        // the run ends with status 0 (with or without --exit-on-halt, which forces it).
        // HLT with IF = 1 and no interrupt source would wait forever: status 1.
        if (!cpu.flag_set(flag::IF) && (config_.exit_on_halt || !has_nmi_source_)) return {RunResult::Reason::Halted, 0};
        return {RunResult::Reason::HaltedForever, 1};
      case StopReason::InstructionLimit: return {RunResult::Reason::InstructionLimit, 1};
      case StopReason::StopRequested: break;
    }
  }
}

}  // namespace x86lab
