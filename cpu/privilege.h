// The privileged-instruction check (Intel SDM Vol. 3, "Privileged Instructions"):
// #GP(0) at CPL > 0 and in virtual-8086 mode; real mode has no privilege levels. With
// the other checks a row's attributes ask for before its executor (cpu/instruction.h).
#pragma once
#include "cpu/cpu.h"
#include "cpu/instruction.h"

namespace x86lab {

// True when the instruction may run. Otherwise raises #GP(0) through
// Cpu::signal_fault (no unwinding) and returns false: the executor returns at once.
[[nodiscard]] inline bool at_cpl0(Cpu& c) {
  if (c.real_mode() || (c.state.cpl == 0 && !c.virtual_8086())) [[likely]] return true;
  c.signal_fault(gp(0, "privileged instruction at CPL > 0"));
  return false;
}

// The executor of a row with kProtectedModeOnly, kDebugRegisterAccess or kPrivileged
// (cpu/generate_forms.cmake writes it into the row): those checks in that order, then
// `kExecute`. Only these rows pay for the checks; the dispatch of every instruction
// stays one indirect call.
template <unsigned kAttributes, Executor kExecute>
void checked(Cpu& c, const Instruction& i) {
  if constexpr ((kAttributes & kProtectedModeOnly) != 0)
    if (!c.protected_mode()) throw ud("protected-mode instruction in real or V86 mode");
  if constexpr ((kAttributes & kDebugRegisterAccess) != 0) c.check_debug_register_access();
  if constexpr ((kAttributes & kPrivileged) != 0)
    if (!at_cpl0(c)) return;
  kExecute(c, i);
}

}  // namespace x86lab
