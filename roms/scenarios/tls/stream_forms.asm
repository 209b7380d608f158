; The ring-3 access instructions of the TLS stream replay (docs/scenarios/tls.md "Stream
; mode"): one stub per form, each a real %gs access (SDM Vol. 2, MOV 88/89/8A/8B,
; MOV C6/C7 /0, CMP 80/81/83 /7) followed by RET. The offset is in EBX (ModRM rm = 011,
; with a zero disp8 or disp32 for the longer forms), the value in EAX/AX/AL (reg = 000).
; Redundant GS prefixes (at most three prefix bytes in all, which the emulating #GP
; handler decodes) make the other lengths. stream_forms lists them: address, operand
; size, write (1) or read (0), instruction length; stream_user.c picks, per record, the
; form of its size and direction with the nearest length (the first listed on a tie).
bits 32
global stream_forms, stream_form_count

%define IMM8 0x5A  ; every immediate byte (stored values and compare operands)

; FORM size, write, pads, bytes...: one stub with `pads` extra GS prefixes.
%macro FORM 4+
section .text
%%stub:
  times %3 db 0x65
  db %4
%%end:
  ret
section .rodata
  dd %%stub
  db %1, %2, %%end - %%stub, 0
%assign form_count form_count + 1
%endmacro

; FORMS size, write, max_pads, bytes...: the stub with 0 .. max_pads extra prefixes.
%macro FORMS 4+
%assign pads 0
%rep %3 + 1
FORM %1, %2, pads, %4
%assign pads pads + 1
%endrep
%endmacro

%assign form_count 0
section .rodata
align 4
stream_forms:
; 4 bytes, read: MOV eAX,m (3/4/7), CMP m,imm8 (8), CMP m,imm32 (11); +0..2 prefixes each
FORMS 4, 0, 2, 0x65, 0x8B, 0x03
FORMS 4, 0, 2, 0x65, 0x8B, 0x43, 0
FORMS 4, 0, 2, 0x65, 0x8B, 0x83, 0, 0, 0, 0
FORMS 4, 0, 2, 0x65, 0x83, 0xBB, 0, 0, 0, 0, IMM8
FORMS 4, 0, 2, 0x65, 0x81, 0xBB, 0, 0, 0, 0, IMM8, IMM8, IMM8, IMM8
; 4 bytes, write: MOV m,eAX (3/4/7), MOV m,imm32 (8/11)
FORMS 4, 1, 2, 0x65, 0x89, 0x03
FORMS 4, 1, 2, 0x65, 0x89, 0x43, 0
FORMS 4, 1, 2, 0x65, 0x89, 0x83, 0, 0, 0, 0
FORMS 4, 1, 2, 0x65, 0xC7, 0x43, 0, IMM8, IMM8, IMM8, IMM8
FORMS 4, 1, 2, 0x65, 0xC7, 0x83, 0, 0, 0, 0, IMM8, IMM8, IMM8, IMM8
; 2 bytes (66h prefix), read: MOV AX,m (4/5/8), CMP m,imm8 (6), CMP m,imm16 (10); +0..1 prefixes
FORMS 2, 0, 1, 0x66, 0x65, 0x8B, 0x03
FORMS 2, 0, 1, 0x66, 0x65, 0x8B, 0x43, 0
FORMS 2, 0, 1, 0x66, 0x65, 0x8B, 0x83, 0, 0, 0, 0
FORMS 2, 0, 1, 0x66, 0x65, 0x83, 0x7B, 0, IMM8
FORMS 2, 0, 1, 0x66, 0x65, 0x81, 0xBB, 0, 0, 0, 0, IMM8, IMM8
; 2 bytes, write: MOV m,AX (4/5/8), MOV m,imm16 (7/10)
FORMS 2, 1, 1, 0x66, 0x65, 0x89, 0x03
FORMS 2, 1, 1, 0x66, 0x65, 0x89, 0x43, 0
FORMS 2, 1, 1, 0x66, 0x65, 0x89, 0x83, 0, 0, 0, 0
FORMS 2, 1, 1, 0x66, 0x65, 0xC7, 0x43, 0, IMM8, IMM8
FORMS 2, 1, 1, 0x66, 0x65, 0xC7, 0x83, 0, 0, 0, 0, IMM8, IMM8
; 1 byte, read: MOV AL,m (3/4/7), CMP m,imm8 (8); +0..2 prefixes
FORMS 1, 0, 2, 0x65, 0x8A, 0x03
FORMS 1, 0, 2, 0x65, 0x8A, 0x43, 0
FORMS 1, 0, 2, 0x65, 0x8A, 0x83, 0, 0, 0, 0
FORMS 1, 0, 2, 0x65, 0x80, 0xBB, 0, 0, 0, 0, IMM8
; 1 byte, write: MOV m,AL (3/4/7), MOV m,imm8 (8)
FORMS 1, 1, 2, 0x65, 0x88, 0x03
FORMS 1, 1, 2, 0x65, 0x88, 0x43, 0
FORMS 1, 1, 2, 0x65, 0x88, 0x83, 0, 0, 0, 0
FORMS 1, 1, 2, 0x65, 0xC6, 0x83, 0, 0, 0, 0, IMM8

section .rodata
align 4
stream_form_count: dd form_count

; The thread-pointer forms of stream=virt-happy: what -mno-tls-direct-seg-refs code runs
; for a negative offset (GCC manual, x86 options: -mno-tls-direct-seg-refs), the thread
; pointer loaded from %gs:0 (MOV EDX,GS:[0], 65 8B 15 disp32) and the access through DS
; at EDX+EBX (SIB base EDX, index EBX: ModRM 04, SIB 1A), then RET: the same call and
; return as the %gs forms, plus the one load. stream_tp_forms lists them as stream_forms
; does, in the order [size 1, 2, 4][read, write].
%macro TPFORM 3+
section .text
%%stub:
  db 0x65, 0x8B, 0x15, 0, 0, 0, 0
  db %3
%%end:
  ret
section .rodata
  dd %%stub
  db %1, %2, %%end - %%stub, 0
%endmacro

global stream_tp_forms
section .rodata
align 4
stream_tp_forms:
TPFORM 1, 0, 0x8A, 0x04, 0x1A        ; MOV AL,[EDX+EBX]
TPFORM 1, 1, 0x88, 0x04, 0x1A        ; MOV [EDX+EBX],AL
TPFORM 2, 0, 0x66, 0x8B, 0x04, 0x1A  ; MOV AX,[EDX+EBX]
TPFORM 2, 1, 0x66, 0x89, 0x04, 0x1A  ; MOV [EDX+EBX],AX
TPFORM 4, 0, 0x8B, 0x04, 0x1A        ; MOV EAX,[EDX+EBX]
TPFORM 4, 1, 0x89, 0x04, 0x1A        ; MOV [EDX+EBX],EAX

section .note.GNU-stack noalloc noexec nowrite progbits
