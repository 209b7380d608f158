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

namespace x86lab {

class X87ErrorPins {
 public:
  virtual ~X87ErrorPins() = default;
  // FERR# changed level (true = asserted).
  virtual void ferr(bool asserted) = 0;
  // The IGNNE# input (true = asserted).
  virtual bool ignne() const = 0;
};

}  // namespace x86lab
