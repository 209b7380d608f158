; The compute benchmark as a 32-bit Linux program (the host CPU as a reference):
; the same instructions as the ROM's work (compute_loop.inc), then "checksum
; XXXXXXXX" on standard output. Built by bench/run_bench.sh with nasm -f elf32 and
; ld -m elf_i386; runs on an x86-64 host kernel with 32-bit support.
%ifndef ITERATIONS
  %define ITERATIONS 100000
%endif
%include "compute_loop.inc"

section .bss
alignb 4096
table: resb 0x10000
%define TABLE table

section .data
text: db "checksum "
digits: times 8 db 0
db 10
text_end:

section .text
global _start
_start:
  COMPUTE_WORK
  ; eight hex digits of EAX
  mov edi, digits
  mov ecx, 8
.digit:
  rol eax, 4
  mov edx, eax
  and edx, 15
  mov dl, [hex + edx]
  mov [edi], dl
  inc edi
  loop .digit
  mov eax, 4                        ; write(1, text, length)
  mov ebx, 1
  mov ecx, text
  mov edx, text_end - text
  int 0x80
  mov eax, 1                        ; exit(0)
  xor ebx, ebx
  int 0x80
COMPUTE_MIX
hex: db "0123456789ABCDEF"
