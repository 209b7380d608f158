; The PC timer devices from real mode: the 8259A pair initialised by ICW1-4, IMR
; readback, 8254 counter 0 in mode 2 delivering IRQ 0 through the IVT while the CPU
; sleeps in HLT, ISR/IRR reads through OCW3 and EOI (Intel 8259A and 82C54 data
; sheets); the read-back status byte; counter 2 OUT through port 61h; MC146818
; registers A, B, D and CMOS RAM; the 8042 self test.
%include "rom.inc"

TICKS equ 10

section .text
start:
  REAL_MODE_START
  SET_VECTOR 0x08, irq0
  ; A CPU with a local APIC (CPUID.1:EDX bit 9) passes the 8259A's INTR to the core
  ; only through LINT0, which is masked after reset; with the APIC globally disabled
  ; (IA32_APIC_BASE bit 11) the pin is the plain INTR input (SDM "Local APIC State
  ; After Power-Up or Reset"). x86lab's profiles have an APIC since issue 34.
  mov eax, 1
  cpuid
  test edx, 1 << 9
  jz .no_apic
  mov ecx, 0x1B
  rdmsr
  and eax, ~(1 << 11)
  wrmsr
.no_apic:
  mov word [0x600], 0              ; tick count
  mov word [0x602], 0              ; handlers that saw ISR bit 0 set
  mov word [0x604], 0              ; handlers that saw IRR bit 0 clear

  ; 8259A pair: edge, cascade, ICW4 (8086 mode); master base 08h, slave base 70h.
  mov al, 0x11
  out 0x20, al
  out 0xA0, al
  mov al, 0x08
  out 0x21, al
  mov al, 0x70
  out 0xA1, al
  mov al, 0x04
  out 0x21, al
  mov al, 0x02
  out 0xA1, al
  mov al, 0x01
  out 0x21, al
  out 0xA1, al
  mov al, 0xFF
  out 0xA1, al
  mov al, 0xFE                     ; only IRQ 0
  out 0x21, al
  in al, 0x21
  CHECK_EQ al, 0xFE, "master IMR reads back"

  ; 8254 counter 0: mode 2, LSB then MSB, 1193 (about 1 kHz).
  mov al, 0x34
  out 0x43, al
  mov al, 1193 & 0xFF
  out 0x40, al
  mov al, 1193 >> 8
  out 0x40, al
  mov al, 0xE2                     ; read-back: status of counter 0
  out 0x43, al
  in al, 0x40
  and al, 0x3F
  CHECK_EQ al, 0x34, "read-back status: LSB/MSB access, mode 2, binary"

  ; The first interrupt arrives while the CPU spins (bounded, so that a machine
  ; that never delivers it reports instead of sleeping forever); the rest wake HLT.
  sti
  mov ecx, 100000000
.spin:
  cmp word [0x600], 0
  jne .first_tick
  dec ecx
  jnz .spin
.first_tick:
  cmp word [0x600], 0
  CHECK ne, "IRQ 0 from the 8259A reaches a CPU whose local APIC is globally disabled"
.wait:
  hlt
  cmp word [0x600], TICKS
  jb .wait
  cli
  CHECK_EQ word [0x602], TICKS, "ISR bit 0 set inside every IRQ 0 handler"
  CHECK_EQ word [0x604], TICKS, "IRR bit 0 clear after the acknowledge"
  mov al, 0x0B
  out 0x20, al
  in al, 0x20
  CHECK_EQ al, 0, "ISR clear after EOI"

  ; Counter 2 in mode 0 with its gate opened through port 61h.
  in al, 0x61
  and al, 0xFC
  or al, 0x01
  out 0x61, al
  mov al, 0xB0
  out 0x43, al
  mov al, 200
  out 0x42, al
  xor al, al
  out 0x42, al
  in al, 0x61
  test al, 0x20
  CHECK z, "counter 2 OUT low while counting"
  mov ecx, 10000000
.out2:
  in al, 0x61
  test al, 0x20
  jnz .out2_high
  dec ecx
  jnz .out2
.out2_high:
  test al, 0x20
  CHECK nz, "counter 2 OUT high at terminal count"

  ; MC146818: register D has VRT, register A runs the 32.768 kHz divider,
  ; register B is in BCD; CMOS RAM keeps a byte.
  mov al, 0x0D
  out 0x70, al
  in al, 0x71
  CHECK_EQ al, 0x80, "RTC register D: valid RAM and time"
  mov al, 0x0A
  out 0x70, al
  in al, 0x71
  and al, 0x70
  CHECK_EQ al, 0x20, "RTC register A: divider running"
  mov al, 0x40
  out 0x70, al
  mov al, 0x5A
  out 0x71, al
  mov al, 0x0B
  out 0x70, al
  in al, 0x71
  test al, 0x04
  CHECK z, "RTC in BCD mode"
  mov al, 0x40
  out 0x70, al
  in al, 0x71
  CHECK_EQ al, 0x5A, "CMOS RAM byte 40h reads back"

  ; 8042: empty the output buffer, then the controller self test answers 55h.
  mov cx, 16
.flush:
  in al, 0x64
  test al, 0x01
  jz .flushed
  in al, 0x60
  loop .flush
.flushed:
  mov al, 0xAA
  out 0x64, al
  mov ecx, 1000000
.kbc:
  in al, 0x64
  test al, 0x01
  jnz .kbc_ready
  dec ecx
  jnz .kbc
.kbc_ready:
  in al, 0x60
  CHECK_EQ al, 0x55, "8042 self test answers 55h"
  jmp pass

irq0:
  push ax
  push ds
  xor ax, ax
  mov ds, ax
  mov al, 0x0B                     ; OCW3: read ISR
  out 0x20, al
  in al, 0x20
  test al, 0x01
  jz .after_isr
  inc word [0x602]
.after_isr:
  mov al, 0x0A                     ; OCW3: read IRR
  out 0x20, al
  in al, 0x20
  test al, 0x01
  jnz .irr_set
  inc word [0x604]
.irr_set:
  inc word [0x600]
  mov al, 0x20                     ; non-specific EOI
  out 0x20, al
  pop ds
  pop ax
  iret

ROM_END
