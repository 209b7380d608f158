; The ring-3 access instructions of the TLS stream replay (docs/scenarios/tls.md "Stream
; mode"): one stub per form, each a real %gs access (SDM Vol. 2, MOV 88/89/8A/8B,
; MOV C6/C7 /0, CMP 80/81/83 /7) followed by RET. The offset is in EBX (ModRM rm = 011,
; with a zero disp8 or disp32 for the longer forms), the value in EAX/AX/AL (reg = 000).
; Redundant GS prefixes (at most three prefix bytes in all, which the emulating #GP
; handler decodes) make the other lengths. stream_forms lists them: address, its twin's
; address (TWIN), operand size, write (1) or read (0), instruction length; stream_user.c picks, per record, the
; form of its size and direction with the nearest length (the first listed on a tie).
bits 32
global stream_forms, stream_form_count

%define IMM8 0x5A  ; every immediate byte (stored values and compare operands)

; TWIN size, write: the access of stream=virt-happy, as -mno-tls-direct-seg-refs code
; makes it (GCC manual, x86 options): the thread pointer loaded from %gs:0 (MOV EDX,GS:[0],
; 65 8B 15 disp32), then the access through DS at EDX+EBX (ModRM 04, SIB 1A: base EDX,
; index EBX) of the form's size and direction, then RET.
%macro TWIN 2
  db 0x65, 0x8B, 0x15, 0, 0, 0, 0
%if %1 == 2
  db 0x66
%endif
%if %1 == 1
  db 0x8A + %2 * (0x88 - 0x8A), 0x04, 0x1A   ; MOV AL,[EDX+EBX] / MOV [EDX+EBX],AL
%else
  db 0x8B + %2 * (0x89 - 0x8B), 0x04, 0x1A   ; MOV eAX,[EDX+EBX] / MOV [EDX+EBX],eAX
%endif
  ret
%endmacro

; FORM size, write, pads, bytes...: one stub with `pads` extra GS prefixes, and right
; after it its twin (TWIN), so that both designs run code of the same place and the
; same call and return: virt-happy adds the one load.
%macro FORM 4+
section .text
%%stub:
  times %3 db 0x65
  db %4
%%end:
  ret
%%twin:
  TWIN %1, %2
section .rodata
  dd %%stub, %%twin
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

section .note.GNU-stack noalloc noexec nowrite progbits
