; The built-in demo: from the reset vector into protected mode, showing the two
; things x86lab exists to make visible: the CPU's implied locked write of a
; descriptor's Accessed bit, and the descriptor cache that keeps using the old
; descriptor after the GDT entry changes, until the register is reloaded.
%include "rom.inc"
%include "pm.inc"

section .text
bits 16
start:
  xor ax, ax
  mov ss, ax
  mov sp, 0x7000
  PRINT "x86lab demo: reset at F000:FFF0, now in real mode", 10
  ENTER_PM gdt, gdt_end

bits 32
pm_entry:
  mov ax, 0x18
  mov ss, ax
  mov esp, 0x7000
  PRINT32 "protected mode: CS=08h (flat 32-bit code), SS=18h", 10

  PRINT32 "GDT[2] access byte before MOV DS,10h: "
  mov al, [ss:GDT_RAM + 2*8 + 5]
  call print_hex8_32
  mov ax, 0x10
  mov ds, ax
  PRINT32 10, "GDT[2] access byte after  MOV DS,10h: "
  mov al, [ss:GDT_RAM + 2*8 + 5]
  call print_hex8_32
  PRINT32 10, "  (the CPU set the Accessed bit with a locked read-modify-write)", 10

  ; The descriptor cache: move DS's base in the GDT to 100000h; DS keeps base 0.
  mov byte [0x500], 0x11
  mov byte [0x100500], 0x22
  mov byte [ss:GDT_RAM + 2*8 + 4], 0x10        ; base bits 23:16 = 10h
  PRINT32 "GDT[2] base changed to 100000h; [DS:500h] still reads "
  mov al, [0x500]
  call print_hex8_32
  mov ax, 0x10
  mov ds, ax
  PRINT32 10, "after reloading DS, [DS:500h] reads "
  mov al, [0x500]
  call print_hex8_32
  PRINT32 10, "demo done: CLI; HLT", 10
  cli
  hlt

section .rodata
align 8
gdt:
  dq 0
  DESCRIPTOR 0, 0xFFFFF, 0x9A, 0xC    ; 08h: flat 32-bit code, A=0
  DESCRIPTOR 0, 0xFFFFF, 0x92, 0xC    ; 10h: flat data, A=0
  DESCRIPTOR 0, 0xFFFFF, 0x92, 0xC    ; 18h: flat stack, A=0
gdt_end:

ROM_END
