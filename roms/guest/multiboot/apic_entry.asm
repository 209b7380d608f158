; Multiboot header, entry and interrupt stubs of the APIC test kernels (apic_*_kernel.c,
; ioapic_kernel.c, virtual_wire_kernel.c; SDM Vol. 3, "Interrupt and Exception
; Handling": which exceptions push an error code, the frame an interrupt gate leaves).
; Every vector 0-255 gets a stub that pushes a zero error code where the CPU pushes
; none, then its vector number, and jumps to one common path: PUSHAD, a call of
; interrupt_dispatch(struct interrupt_frame*), POPAD, drop vector and error code, IRETD.
; interrupt_stubs is the table of the 256 stub addresses that apic_kernel.h puts in the IDT.
bits 32
%include "multiboot_entry.inc"

section .text
global _start, interrupt_stubs
extern kernel_main, interrupt_dispatch

MULTIBOOT_START stack_top

interrupt_common:
  pushad
  cld
  push esp
  call interrupt_dispatch
  add esp, 4
  popad
  add esp, 8                       ; vector and error code
  iretd

%assign v 0
%rep 256
vector_stub_%[v]:
%if v != 8 && !(v >= 10 && v <= 14) && v != 17
  push dword 0                     ; no error code from the CPU
%endif
  push dword v
  jmp interrupt_common
%assign v v + 1
%endrep

section .rodata
align 4
interrupt_stubs:
%assign v 0
%rep 256
  dd vector_stub_%[v]
%assign v v + 1
%endrep

section .bss
align 16
  resb 16384
stack_top:

section .note.GNU-stack noalloc noexec nowrite progbits
