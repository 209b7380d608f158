// The x87 error pins of a P6 processor (Intel SDM Vol. 1, Appendix D "Guidelines for
// Writing x87 FPU Exception Handlers", "MS-DOS Compatibility Sub-mode in the P6 Family
// and Pentium 4 Processors"; Vol. 3, "CR0.NE").
//
// FERR# is asserted as soon as the FPU flags an unmasked exception (the P6 reports
// immediately, never deferred) and deasserted when the flag is cleared (FNCLEX,
// FNINIT, FLDENV, FRSTOR, FNSAVE) or masked (FLDCW, FNSTENV); it does so whatever
// CR0.NE says. On a PC, FERR# latches IRQ 13 at the slave 8259A; a write to port F0h
// clears the latch and asserts IGNNE# until FERR# goes away. With CR0.NE = 0 a
// waiting x87 instruction finding an exception pending freezes until that interrupt
// arrives, or runs on if IGNNE# is asserted.
#pragma once
#include <functional>

namespace x86lab {

// The two lines as the platform wires them, in its signal-line idiom (one callback
// per line, like the PIT's OUT0 or a UART's IRQ). An empty line is not connected:
// FERR# goes nowhere and IGNNE# reads as deasserted.
struct X87ErrorPins {
  std::function<void(bool asserted)> ferr;  // FERR# changed level (true = asserted)
  std::function<bool()> ignne;              // samples the IGNNE# input (true = asserted)
};

}  // namespace x86lab
