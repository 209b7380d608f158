; Alignment checking (Intel SDM Vol. 3, "Interrupt 17 - Alignment Check Exception
; (#AC)"; Vol. 1 "Alignment of Words, Doublewords, Quadwords"): #AC(0) for an
; unaligned data access at CPL 3 when CR0.AM and EFLAGS.AC are both set. One rule per
; case; ring-3 code addresses memory through SS (DS is null after the IRET).
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define AC    0x40000
%define AM    0x40000
%define VM    0x20000

%macro SET_AM 0
  mov eax, cr0
  or eax, AM
  mov cr0, eax
%endmacro
%macro CLEAR_AM 0
  mov eax, cr0
  and eax, ~AM
  mov cr0, eax
%endmacro

tests:
  CASE "a misaligned dword read at CPL 3 with CR0.AM and EFLAGS.AC raises #AC(0)"
  SET_AM
  TRY_RING3 r3_read_dword, AC | 2
  EXPECT_FAULT 17, 0
  EXPECT_EQ dword [F_EIP], ABS(r3_read_dword), "EIP of the read"
  EXPECT_EQ dword [F_CS], SEL_CODE3, "in ring 3"

  CASE "a misaligned word write at CPL 3 raises #AC(0)"
  TRY_RING3 r3_write_word, AC | 2
  EXPECT_FAULT 17, 0
  EXPECT_EQ dword [F_EIP], ABS(r3_write_word), "EIP of the write"

  CASE "a push to a misaligned stack at CPL 3 raises #AC(0)"
  TRY_ONE IRET_TO SEL_CODE3, ABS(r3_push), SEL_DATA3, ESP3_TOP - 2, AC | 2
  EXPECT_FAULT 17, 0
  EXPECT_EQ dword [F_ESP], ESP3_TOP - 2, "ESP unchanged"

  CASE "an aligned dword access at CPL 3 does not raise #AC"
  TRY_RING3 r3_read_aligned, AC | 2
  EXPECT_ARRIVED SEL_CODE3

  CASE "a byte access is never misaligned"
  TRY_RING3 r3_read_byte, AC | 2
  EXPECT_ARRIVED SEL_CODE3

  CASE "with EFLAGS.AC clear a misaligned access does not raise #AC"
  TRY_RING3 r3_read_dword
  EXPECT_ARRIVED SEL_CODE3

  CASE "at CPL 0 a misaligned access does not raise #AC"
  pushfd
  or dword [esp], AC
  popfd
  TRY_ONE mov eax, [SCRATCH + 1]
  pushfd
  and dword [esp], ~AC
  popfd
  EXPECT_NO_FAULT

  CASE "a misaligned access in V86 mode (CPL 3) raises #AC(0)"
  TRY
  push dword 0
  push dword 0
  push dword 0x2000
  push dword 0x2000
  push dword 0x2000
  push dword 0xFFF0
  push dword VM | AC | 0x3002
  push dword 0xF000
  push dword v86_read
  iretd
  CATCH
  EXPECT_FAULT 17, 0
  EXPECT_EQ dword [F_CS], 0xF000, "V86 CS"
  EXPECT_EQ dword [F_EIP], v86_read, "EIP of the read"

  CASE "with CR0.AM clear a misaligned access does not raise #AC"
  CLEAR_AM
  TRY_RING3 r3_read_dword, AC | 2
  EXPECT_ARRIVED SEL_CODE3

  DONE

r3_read_dword:
  mov eax, [ss:SCRATCH + 1]
  ARRIVE
r3_write_word:
  mov [ss:SCRATCH + 3], ax
  ARRIVE
r3_push:
  push eax
  ARRIVE
r3_read_aligned:
  mov eax, [ss:SCRATCH + 4]
  ARRIVE
r3_read_byte:
  mov al, [ss:SCRATCH + 1]
  ARRIVE

bits 16
v86_read:
  mov ax, [1]
  int ARRIVE_VECTOR
bits 32

ROM_END
