; Protected-mode segment rules (SDM Vol. 3 "Protection", "Automatic Locking",
; Vol. 2 "MOV"): the Accessed bit is set on load, the descriptor cache stays stale
; after a GDT edit until reloaded, a limit violation raises #GP(0), a not-present
; data segment raises #NP(selector), a null SS raises #GP(0), and unreal mode keeps
; a 4 GiB FS limit after returning to real mode.
%include "rom.inc"
%include "pm.inc"

%define IDT_RAM 0x2000
%define FAULT_VECTOR 0x800     ; last fault: vector
%define FAULT_CODE   0x804     ; error code
%define FAULT_SKIP   0x808     ; bytes the handler skips

section .text
bits 16
start:
  REAL_MODE_START
  ENTER_PM gdt, gdt_end

bits 32
; Installs a 32-bit interrupt gate for vector %1 to handler %2.
%macro GATE 2
  mov eax, ABS(%2)
  mov word [IDT_RAM + %1 * 8], ax
  mov word [IDT_RAM + %1 * 8 + 2], 0x08
  mov word [IDT_RAM + %1 * 8 + 4], 0x8E00
  shr eax, 16
  mov word [IDT_RAM + %1 * 8 + 6], ax
%endmacro

pm_entry:
  mov ax, 0x18
  mov ss, ax
  mov esp, 0x7000
  ; Accessed bit: entry 2 starts with A = 0.
  mov al, [ss:GDT_RAM + 2*8 + 5]
  cmp al, 0x92
  CHECK32 e, "GDT[2] access byte starts at 92h"
  mov ax, 0x10
  mov ds, ax
  mov es, ax
  cmp byte [GDT_RAM + 2*8 + 5], 0x93
  CHECK32 e, "MOV DS sets the Accessed bit (93h)"
  GATE 11, np_handler
  GATE 12, ss_handler
  GATE 13, gp_handler
  mov word [0x1F00], 0x7FF
  mov dword [0x1F02], IDT_RAM
  lidt [0x1F00]

  ; Limit: GS = entry 4 (base 0, limit FFFh, byte granular).
  mov ax, 0x20
  mov gs, ax
  mov dword [FAULT_VECTOR], 0xFF
  mov eax, [gs:dword 0xFFC]          ; last dword inside the limit: no fault
  cmp dword [FAULT_VECTOR], 0xFF
  CHECK32 e, "access at the limit does not fault"
  mov dword [FAULT_SKIP], 6
  mov eax, [gs:dword 0xFFE]          ; 65 A1 FE0F0000 crosses the limit: #GP(0)
  cmp dword [FAULT_VECTOR], 13
  CHECK32 e, "access across the limit raises #GP"
  cmp dword [FAULT_CODE], 0
  CHECK32 e, "limit #GP has error code 0"

  ; Not present: entry 5 has P = 0 -> #NP(28h).
  mov dword [FAULT_VECTOR], 0xFF
  mov dword [FAULT_SKIP], 2
  mov ax, 0x28
  mov fs, ax                         ; 8E E0: 2 bytes
  cmp dword [FAULT_VECTOR], 11
  CHECK32 e, "not-present segment raises #NP"
  cmp dword [FAULT_CODE], 0x28
  CHECK32 e, "#NP error code is the selector"

  ; Null SS: #GP(0).
  mov dword [FAULT_VECTOR], 0xFF
  xor eax, eax
  mov ss, ax                         ; 8E D0: 2 bytes
  cmp dword [FAULT_VECTOR], 13
  CHECK32 e, "null SS raises #GP"
  cmp dword [FAULT_CODE], 0
  CHECK32 e, "null SS error code 0"

  ; Stale cache: rewrite entry 2's base to 100000h; DS still uses base 0.
  mov byte [0x600], 0x11
  mov byte [0x100600], 0x22
  mov byte [GDT_RAM + 2*8 + 4], 0x10
  cmp byte [0x600], 0x11
  CHECK32 e, "DS cache stays stale after a GDT edit"
  mov ax, 0x10
  mov ds, ax
  cmp byte [0x600], 0x22
  CHECK32 e, "reloading DS picks up the new base"
  mov byte [ss:GDT_RAM + 2*8 + 4], 0
  mov ds, ax

  ; Unreal mode: FS = 4 GiB flat, back to real mode, FS keeps its limit.
  mov ax, 0x10
  mov fs, ax
  mov dword [0x123456], 0xCAFEF00D
  jmp 0x30:to_16bit
bits 16
to_16bit:
  mov ax, 0x38
  mov ss, ax
  mov eax, cr0
  and al, 0xFE
  mov cr0, eax
  jmp 0xF000:real_again
real_again:
  REAL_MODE_START
  xor ax, ax
  mov fs, ax                         ; real-mode load: base 0, limit kept (4 GiB)
  mov eax, [fs:dword 0x123456]
  cmp eax, 0xCAFEF00D
  CHECK e, "unreal mode reads above 1 MiB through FS"
  jmp pass

bits 32
; Per-vector stubs record the vector; the common part records the error code and
; skips FAULT_SKIP bytes of the faulting instruction.
np_handler:
  mov dword [ss:FAULT_VECTOR], 11
  jmp fault_common
ss_handler:
  mov dword [ss:FAULT_VECTOR], 12
  jmp fault_common
gp_handler:
  mov dword [ss:FAULT_VECTOR], 13
fault_common:
  push eax
  mov eax, [esp + 4]                 ; error code
  mov [ss:FAULT_CODE], eax
  mov eax, [esp + 8]                 ; EIP of the faulting instruction
  add eax, [ss:FAULT_SKIP]
  mov [esp + 8], eax
  pop eax
  add esp, 4                         ; drop the error code
  iretd

section .rodata
align 8
gdt:
  dq 0
  DESCRIPTOR 0, 0xFFFFF, 0x9A, 0xC    ; 08h: flat 32-bit code
  DESCRIPTOR 0, 0xFFFFF, 0x92, 0xC    ; 10h: flat data, A=0
  DESCRIPTOR 0, 0xFFFFF, 0x92, 0xC    ; 18h: flat stack
  DESCRIPTOR 0, 0x00FFF, 0x92, 0x4    ; 20h: data, limit FFFh, byte granular
  DESCRIPTOR 0, 0xFFFFF, 0x12, 0xC    ; 28h: data, not present
  DESCRIPTOR 0xF0000, 0x0FFFF, 0x9A, 0x0  ; 30h: 16-bit code at F0000h
  DESCRIPTOR 0, 0x0FFFF, 0x92, 0x0    ; 38h: 16-bit data, 64 KiB
gdt_end:

ROM_END
