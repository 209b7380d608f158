; Privileged instructions, IOPL-sensitive instructions, the I/O permission bitmap and
; the unprivileged descriptor instructions in protected mode (Intel SDM Vol. 3,
; "Privileged Instructions", "Protection"; Vol. 1, "I/O Privilege Level", "I/O
; Permission Bit Map"; Vol. 2, each instruction's "Protected Mode Exceptions"). One
; rule per case; ring-3 code addresses memory through SS (DS is null after IRET).
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define IOPL3 0x3000
%define ZF    0x40

; GP_AT_CPL3 "case", label: the instruction at `label` raises #GP(0) at CPL 3.
%macro GP_AT_CPL3 2
  CASE %1
  TRY_RING3 %2
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_EIP], ABS(%2), "EIP of the instruction"
%endmacro

%macro DENY_PORT 1
  or byte [IOMAP + (%1) / 8], 1 << ((%1) % 8)
%endmacro
%macro ALLOW_PORT 1
  and byte [IOMAP + (%1) / 8], ~(1 << ((%1) % 8))
%endmacro

tests:
  GP_AT_CPL3 "HLT at CPL 3 raises #GP(0)", r3_hlt
  GP_AT_CPL3 "LGDT at CPL 3 raises #GP(0)", r3_lgdt
  GP_AT_CPL3 "LIDT at CPL 3 raises #GP(0)", r3_lidt
  GP_AT_CPL3 "LLDT at CPL 3 raises #GP(0)", r3_lldt
  GP_AT_CPL3 "LTR at CPL 3 raises #GP(0)", r3_ltr
  GP_AT_CPL3 "MOV to CR0 at CPL 3 raises #GP(0)", r3_mov_cr0
  GP_AT_CPL3 "CLTS at CPL 3 raises #GP(0)", r3_clts
  GP_AT_CPL3 "LMSW at CPL 3 raises #GP(0)", r3_lmsw
  GP_AT_CPL3 "INVLPG at CPL 3 raises #GP(0)", r3_invlpg
  GP_AT_CPL3 "RDMSR at CPL 3 raises #GP(0)", r3_rdmsr
  GP_AT_CPL3 "WBINVD at CPL 3 raises #GP(0)", r3_wbinvd
  GP_AT_CPL3 "CLI at CPL 3 with IOPL 0 raises #GP(0)", r3_cli

  CASE "MOV from CR3 at CPL 1 raises #GP(0)"
  TRY_ONE IRET_TO SEL_CODE1, ABS(r1_mov_cr3), SEL_DATA1, ESP1_TOP, 2
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_CS], SEL_CODE1, "in ring 1"

  CASE "SGDT at CPL 3 stores GDTR"
  mov dword [SCRATCH], 0
  mov word [SCRATCH + 4], 0
  TRY_RING3 r3_sgdt
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ word [SCRATCH], GDT_ENTRIES * 8 - 1, "limit"
  EXPECT_EQ dword [SCRATCH + 2], GDT_RAM, "base"

  CASE "SMSW at CPL 3 returns the low word of CR0"
  TRY_RING3 r3_smsw
  EXPECT_ARRIVED SEL_CODE3
  mov eax, cr0
  EXPECT_EQ word [F_GPR], ax, "machine status word"

  CASE "STR at CPL 3 returns the TSS selector"
  TRY_RING3 r3_str
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ word [F_GPR], SEL_TSS, "TR"

  CASE "CLI at CPL 3 with IOPL 3 clears IF"
  TRY_RING3 r3_cli, IOPL3 | 0x200 | 2
  EXPECT_ARRIVED SEL_CODE3
  test dword [F_EFL], 0x200
  EXPECT z, "IF clear"

  CASE "IN at CPL 3 with IOPL 0 from a denied port raises #GP(0)"
  DENY_PORT 0x80
  TRY_RING3 r3_in80
  ALLOW_PORT 0x80
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_EIP], ABS(r3_in80), "EIP of IN"

  CASE "IN at CPL 3 with IOPL 0 from an allowed port does not fault"
  TRY_RING3 r3_in80
  EXPECT_ARRIVED SEL_CODE3

  CASE "IN at CPL 3 with IOPL 3 ignores the bitmap"
  DENY_PORT 0x80
  TRY_RING3 r3_in80, IOPL3 | 2
  ALLOW_PORT 0x80
  EXPECT_ARRIVED SEL_CODE3

  CASE "a word OUT whose second port is denied raises #GP(0)"
  DENY_PORT 0x81
  TRY_RING3 r3_out80w
  ALLOW_PORT 0x81
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_EIP], ABS(r3_out80w) + 4, "EIP of OUT"

  CASE "OUTSB at CPL 3 is checked against the I/O bitmap"
  DENY_PORT 0x80
  TRY_RING3 r3_outsb
  ALLOW_PORT 0x80
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_EIP], ABS(r3_outsb) + 9, "EIP of OUTSB"

  CASE "a port whose bitmap byte lies beyond the TSS limit is denied"
  mov word [TSS_MAIN + 0x66], 0x2060
  TRY_RING3 r3_in80
  mov word [TSS_MAIN + 0x66], 0x68
  EXPECT_FAULT 13, 0

  CASE "POPF at CPL 3 cannot change IOPL"
  TRY_RING3 r3_popf_iopl
  EXPECT_ARRIVED SEL_CODE3
  test dword [F_EFL], IOPL3
  EXPECT z, "IOPL 0"

  CASE "RDTSC with CR4.TSD at CPL 3 raises #GP(0)"
  mov eax, cr4
  or eax, 4
  mov cr4, eax
  TRY_RING3 r3_rdtsc
  mov eax, cr4
  and eax, ~4
  mov cr4, eax
  EXPECT_FAULT 13, 0

  CASE "LAR at CPL 3 returns the access rights of a DPL-3 segment"
  SET_DESC GDT, 0x80, 0, 0x0FFFF, 0xF3, 0xC
  TRY_RING3 r3_lar
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_GPR + 4], 0x00C0F300, "ECX = access rights"
  test dword [F_EFL], ZF
  EXPECT nz, "ZF set"

  CASE "LAR at CPL 3 of a DPL-0 segment clears ZF and leaves the destination"
  TRY_RING3 r3_lar_dpl0
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_GPR + 4], 0x12345678, "ECX unchanged"
  test dword [F_EFL], ZF
  EXPECT z, "ZF clear"

  CASE "LSL returns the byte limit of a page-granular segment"
  SET_DESC GDT, 0x88, 0, 0x0000F, 0xF3, 0xC
  TRY_RING3 r3_lsl
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_GPR + 4], 0xFFFF, "ECX = limit"

  CASE "VERW of a read-only data segment clears ZF"
  SET_DESC GDT, 0x90, 0, 0xFFFFF, 0xF1, 0xC
  TRY_RING3 r3_verw
  EXPECT_ARRIVED SEL_CODE3
  test dword [F_EFL], ZF
  EXPECT z, "ZF clear"

  CASE "VERR of a read-only data segment sets ZF"
  TRY_RING3 r3_verr
  EXPECT_ARRIVED SEL_CODE3
  test dword [F_EFL], ZF
  EXPECT nz, "ZF set"

  CASE "ARPL raises a lower RPL to the source's and sets ZF"
  TRY_RING3 r3_arpl
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ word [F_GPR], 0x13, "AX = 13h"
  test dword [F_EFL], ZF
  EXPECT nz, "ZF set"

  ; ARPL writes only when it raises the RPL (docs/test386.md, "ARPL").
  SET_DESC GDT, 0x98, 0, 0xFFFFF, 0x90, 0xC        ; read-only data, DPL 0
  CASE "ARPL of a word in a read-only segment whose RPL is high enough does not fault"
  mov word [SCRATCH], 0x0013
  mov bx, 0x0002
  TRY
  mov ax, 0x98
  mov es, ax
  arpl [es:SCRATCH], bx
  pushfd
  pop ecx
  CATCH
  mov ax, SEL_DATA0
  mov es, ax
  EXPECT_NO_FAULT
  EXPECT_EQ word [SCRATCH], 0x13, "word unchanged"
  test ecx, ZF
  EXPECT z, "ZF clear"

  CASE "ARPL that must raise the RPL of a word in a read-only segment raises #GP(0)"
  mov word [SCRATCH], 0x0010
  TRY
  mov ax, 0x98
  mov es, ax
  arpl [es:SCRATCH], bx
  CATCH
  mov ax, SEL_DATA0
  mov es, ax
  EXPECT_FAULT 13, 0
  EXPECT_EQ word [SCRATCH], 0x10, "word unchanged"

  DONE

r3_hlt:
  hlt
r3_lgdt:
  lgdt [ss:SCRATCH]
r3_lidt:
  lidt [ss:SCRATCH]
r3_lldt:
  lldt ax
r3_ltr:
  ltr ax
r3_mov_cr0:
  mov cr0, eax
r3_clts:
  clts
r3_lmsw:
  lmsw ax
r3_invlpg:
  invlpg [ss:SCRATCH]
r3_rdmsr:
  rdmsr
r3_wbinvd:
  wbinvd
r3_cli:
  cli
  ARRIVE
r1_mov_cr3:
  mov eax, cr3
r3_sgdt:
  sgdt [ss:SCRATCH]
  ARRIVE
r3_smsw:
  smsw ax
  ARRIVE
r3_str:
  str ax
  ARRIVE
r3_in80:
  in al, 0x80
  ARRIVE
r3_out80w:
  mov dx, 0x80
  out dx, ax
  ARRIVE
r3_outsb:
  mov dx, 0x80
  mov esi, SCRATCH
  ss outsb
  ARRIVE
r3_popf_iopl:
  push dword IOPL3 | 2
  popfd
  ARRIVE
r3_rdtsc:
  rdtsc
r3_lar:
  mov ax, 0x83
  lar ecx, ax
  ARRIVE
r3_lar_dpl0:
  mov ecx, 0x12345678
  mov ax, SEL_DATA0
  lar ecx, ax
  ARRIVE
r3_lsl:
  mov ax, 0x8B
  lsl ecx, ax
  ARRIVE
r3_verw:
  mov ax, 0x93
  verw ax
  ARRIVE
r3_verr:
  mov ax, 0x93
  verr ax
  ARRIVE
r3_arpl:
  mov ax, 0x10
  mov bx, 0x23
  arpl ax, bx
  ARRIVE

ROM_END
