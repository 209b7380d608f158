; Self-modifying code (SDM Vol. 3 "Self-Modifying Code": a write to a code byte that
; is about to execute, even one already prefetched, takes effect; the check is by
; physical address, so a write through another linear alias counts too). Code is
; copied to RAM at 40000h, executed, changed in place and executed again.
%include "rom.inc"
%include "pm.inc"
%include "paging.inc"

%define CODE 0x40000
%define ALIAS (WINDOW + 0x0000)   ; another linear address of the code page

PAGING_ROM_START
; COPY dest, label, length: copies bytes from the ROM to RAM.
%macro COPY 3
  mov esi, ABS(%2)
  mov edi, %1
  mov ecx, %3
  rep movsb
%endmacro
; RUN address: calls code in RAM.
%macro RUN 1
  mov edx, %1
  call edx
%endmacro

PAGING_PM_ENTRY
  cld

  ; Run, change an immediate, run again.
  COPY CODE, mov_eax_ret, 6
  RUN CODE
  CASE_EQ eax, 0x11111111, "code copied to RAM runs"
  mov dword [CODE + 1], 0x22222222
  RUN CODE
  CASE_EQ eax, 0x22222222, "a changed immediate is seen by the next execution"

  ; A write through another linear address of the same physical page.
  mov dword [PTE(ALIAS)], CODE | P | W
  mov dword [ALIAS + 1], 0x33333333
  RUN CODE
  CASE_EQ eax, 0x33333333, "a write through a linear alias changes the code"

  ; REP MOVSB copies new code over the old.
  COPY CODE + 0x2000, mov_eax_ret_2, 6
  mov esi, CODE + 0x2000
  mov edi, CODE
  mov ecx, 6
  rep movsb
  RUN CODE
  CASE_EQ eax, 0x44444444, "code replaced by REP MOVSB runs in its new form"

  ; An instruction that straddles two pages, changed in its second page.
  COPY CODE + 0xFFE, mov_eax_ret, 6
  RUN CODE + 0xFFE
  CASE_EQ eax, 0x11111111, "an instruction across a page boundary runs"
  mov byte [CODE + 0x1001], 0x55
  RUN CODE + 0xFFE
  CASE_EQ eax, 0x11551111, "a write to its second page changes it"

  ; The instruction right after the write is changed (already prefetched on hardware).
  COPY CODE + 0x100, patch_next, patch_next_end - patch_next
  RUN CODE + 0x100
  CASE_EQ al, 0x55, "a write to the next instruction takes effect"

  ; STOSB turns the following instructions into NOPs before they run.
  COPY CODE + 0x200, nop_out, nop_out_end - nop_out
  xor eax, eax
  RUN CODE + 0x200
  CASE_EQ eax, 0x90, "instructions overwritten by STOSB just ahead do not run (EAX keeps AL = 90h)"

  ; The next instruction, already decoded, in the next 64-byte code block: the store
  ; at 33Ah-33Fh writes the immediate of MOV AL at 340h.
  COPY CODE + 0x33A, patch_next_block, patch_next_block_end - patch_next_block
  mov bl, 0x11
  RUN CODE + 0x33A
  CASE_EQ al, 0x11, "a store into the next instruction (next code block) takes effect"
  mov bl, 0x22
  RUN CODE + 0x33A
  CASE_EQ al, 0x22, "and again once that instruction has run (its decode is dropped)"

  ; An instruction across two code blocks (3BEh-3C2h), changed in the second.
  COPY CODE + 0x3BE, mov_eax_ret, 6
  RUN CODE + 0x3BE
  CASE_EQ eax, 0x11111111, "an instruction across two code blocks runs"
  mov byte [CODE + 0x3C2], 0x66
  RUN CODE + 0x3BE
  CASE_EQ eax, 0x66111111, "a write to its second block changes it"

  ; A counter right after its code, in the same block: the code keeps running.
  COPY CODE + 0x400, count_beside, count_beside_end - count_beside
  RUN CODE + 0x400
  RUN CODE + 0x400
  CASE_EQ eax, 2, "code that increments a counter beside itself runs on"
  FINISH

section .rodata
mov_eax_ret:
  db 0xB8
  dd 0x11111111                    ; mov eax, 11111111h
  db 0xC3                          ; ret
mov_eax_ret_2:
  db 0xB8
  dd 0x44444444
  db 0xC3
; At CODE+100h: mov byte [CODE+108h], 55h; mov al, 11h; ret
patch_next:
  db 0xC6, 0x05
  dd CODE + 0x108
  db 0x55
  db 0xB0, 0x11
  db 0xC3
patch_next_end:
; At CODE+200h: mov edi, CODE+20Ah; mov al, 90h; stosb; stosb; nop; inc eax; inc eax; ret
nop_out:
  db 0xBF
  dd CODE + 0x20A
  db 0xB0, 0x90
  db 0xAA, 0xAA
  db 0x90
  db 0x40, 0x40
  db 0xC3
nop_out_end:
; At CODE+33Ah: mov [CODE+341h], bl; mov al, 0 (at 340h); ret
patch_next_block:
  db 0x88, 0x1D
  dd CODE + 0x341
  db 0xB0, 0x00
  db 0xC3
patch_next_block_end:
; At CODE+400h: inc dword [CODE+40Ch]; mov eax, [CODE+40Ch]; ret; dd 0
count_beside:
  db 0xFF, 0x05
  dd CODE + 0x40C
  db 0xA1
  dd CODE + 0x40C
  db 0xC3
  dd 0
count_beside_end:
PAGING_GDT

ROM_END
