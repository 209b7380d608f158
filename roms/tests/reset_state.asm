; The descriptor-table registers as the CPU leaves RESET (SDM Vol. 3, "Processor State
; After Reset", table "IA-32 Processor States Following Power-up, Reset, or INIT"):
; GDTR and IDTR both base 00000000H, limit FFFFH. SGDT and SIDT are the first
; instructions after the reset jump, so nothing has loaded either register yet.
%include "rom.inc"

section .text
start:
  sidt [0x500]                ; DS = 0 (base 0) from reset
  sgdt [0x508]
  REAL_MODE_START
  CHECK_EQ word [0x500], 0xFFFF, "IDTR limit FFFFh after reset"
  CHECK_EQ word [0x502], 0, "IDTR base bits 0-15 zero after reset"
  CHECK_EQ byte [0x504], 0, "IDTR base bits 16-23 zero after reset"
  CHECK_EQ word [0x508], 0xFFFF, "GDTR limit FFFFh after reset"
  CHECK_EQ word [0x50A], 0, "GDTR base bits 0-15 zero after reset"
  CHECK_EQ byte [0x50C], 0, "GDTR base bits 16-23 zero after reset"
  jmp pass

ROM_END
