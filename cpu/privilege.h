// The privileged-instruction check (Intel SDM Vol. 3, "Privileged Instructions"):
// #GP(0) at CPL > 0 and in virtual-8086 mode; real mode has no privilege levels.
#pragma once
#include "cpu/cpu.h"

namespace x86lab {

// True when the instruction may run. Otherwise raises #GP(0) through
// Cpu::signal_fault (no unwinding) and returns false: the executor returns at once.
[[nodiscard]] inline bool at_cpl0(Cpu& c) {
  if (c.real_mode() || (c.state.cpl == 0 && !c.virtual_8086())) [[likely]] return true;
  c.signal_fault(gp(0, "privileged instruction at CPL > 0"));
  return false;
}

}  // namespace x86lab
