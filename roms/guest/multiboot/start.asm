; Multiboot 1 header and entry of the test kernels, and the interrupt entry stubs
; (Multiboot Specification 0.6.96, "Header layout"; SDM "Interrupt and Exception
; Handling": the stubs save the registers a C function may clobber and IRET).
bits 32
%include "multiboot_entry.inc"

section .text
global _start, irq0_entry, spurious7_entry, unexpected_entry
extern kernel_main, irq0_handler, spurious7_handler, unexpected_handler

MULTIBOOT_START stack_top

%macro ENTRY_STUB 2
%1:
  pushad
  cld
  call %2
  popad
  iretd
%endmacro
ENTRY_STUB irq0_entry, irq0_handler
ENTRY_STUB spurious7_entry, spurious7_handler
ENTRY_STUB unexpected_entry, unexpected_handler

section .bss
align 16
  resb 16384
stack_top:

section .note.GNU-stack noalloc noexec nowrite progbits
