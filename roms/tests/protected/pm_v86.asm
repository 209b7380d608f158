; Virtual-8086 mode (Intel SDM Vol. 3, "Virtual-8086 Mode": "Entering Virtual-8086
; Mode", "Sensitive Instructions", "Interrupt and Exception Handling in Virtual-8086
; Mode", "Class 1—Hardware Interrupt and Exception Handling"; Vol. 1 "I/O Permission
; Bit Map"; Vol. 2 "IRET", "INT n"). V86 code runs from the ROM alias at F000:xxxx
; with SS = DS = ES = 2000h, FS = 3000h, GS = 4000h. One rule per case.
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define VM      0x20000
%define IOPL3   0x3000
%define TSS_V   0x5100
%define SEL_V   0x80

; IRET_TO_V86 ip, eflags: IRETD to F000:ip in virtual-8086 mode.
%macro IRET_TO_V86 2
  push dword 0x4000              ; GS
  push dword 0x3000              ; FS
  push dword 0x2000              ; DS
  push dword 0x2000              ; ES
  push dword 0x2000              ; SS
  push dword 0xFFF0              ; ESP
  push dword VM | 2 | (%2)       ; EFLAGS
  push dword 0xF000              ; CS
  push dword %1                  ; EIP
  iretd
%endmacro

; GP_IN_V86 ip, eflags, eip, "check": V86 code at F000:ip (entered with `eflags`)
; raises #GP(0), and the pushed EIP is `eip`.
%macro GP_IN_V86 4
  TRY_ONE IRET_TO_V86 %1, %2
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_EIP], %3, %4
%endmacro

tests:
  mov word [0x20010], 0xBEEF

  CASE "IRETD with VM = 1 enters V86 mode with selector * 16 bases"
  TRY_ONE IRET_TO_V86 v86_read, IOPL3
  EXPECT_ARRIVED 0xF000
  EXPECT_EQ word [F_GPR], 0xBEEF, "DS:10h read linear 20010h"
  test dword [F_EFL], VM
  EXPECT nz, "pushed EFLAGS.VM"

  CASE "INT n from V86 mode pushes GS FS DS ES SS ESP EFLAGS CS EIP on the ring-0 stack"
  TRY_ONE IRET_TO_V86 v86_arrive, IOPL3
  EXPECT_ARRIVED 0xF000
  EXPECT_EQ dword [F_HESP], ESP0_TOP - 36, "nine dwords on SS0:ESP0"
  EXPECT_EQ dword [F_EIP], v86_arrive + 2, "EIP after INT"
  EXPECT_EQ dword [F_ESP], 0xFFF0, "V86 ESP"
  EXPECT_EQ dword [F_SS], 0x2000, "V86 SS"
  EXPECT_EQ dword [F_RAW + 20], 0x2000, "V86 ES"
  EXPECT_EQ dword [F_RAW + 24], 0x2000, "V86 DS"
  EXPECT_EQ dword [F_RAW + 28], 0x3000, "V86 FS"
  EXPECT_EQ dword [F_RAW + 32], 0x4000, "V86 GS"

  CASE "the handler of an interrupt from V86 mode sees null DS ES FS GS"
  TRY_ONE IRET_TO_V86 v86_arrive, IOPL3
  EXPECT_EQ dword [F_DS], 0, "DS"
  EXPECT_EQ dword [F_ES], 0, "ES"
  EXPECT_EQ dword [F_FS], 0, "FS"
  EXPECT_EQ dword [F_GS], 0, "GS"
  EXPECT_EQ dword [F_HSS], SEL_STACK0, "SS = TSS SS0"

  CASE "INT n in V86 mode with IOPL < 3 raises #GP(0)"
  GP_IN_V86 v86_arrive, 0, v86_arrive, "EIP of the INT"
  EXPECT_EQ dword [F_CS], 0xF000, "V86 CS"

  CASE "CLI in V86 mode with IOPL < 3 raises #GP(0)"
  GP_IN_V86 v86_cli, 0x1000, v86_cli, "EIP of CLI"

  CASE "STI in V86 mode with IOPL < 3 raises #GP(0)"
  GP_IN_V86 v86_sti, 0, v86_sti, "EIP of STI"

  CASE "PUSHF in V86 mode with IOPL < 3 raises #GP(0)"
  GP_IN_V86 v86_pushf, 0x2000, v86_pushf, "EIP of PUSHF"
  EXPECT_EQ dword [F_ESP], 0xFFF0, "nothing pushed"

  CASE "POPF in V86 mode with IOPL < 3 raises #GP(0)"
  GP_IN_V86 v86_popf, 0, v86_popf + 1, "EIP of POPF"

  CASE "IRET in V86 mode with IOPL < 3 raises #GP(0)"
  GP_IN_V86 v86_iret, 0, v86_iret, "EIP of IRET"

  CASE "CLI in V86 mode with IOPL 3 clears IF"
  TRY_ONE IRET_TO_V86 v86_cli, IOPL3 | 0x200
  EXPECT_ARRIVED 0xF000
  test dword [F_EFL], 0x200
  EXPECT z, "IF clear"

  CASE "PUSHFD in V86 mode with IOPL 3 pushes EFLAGS with VM clear"
  TRY_ONE IRET_TO_V86 v86_pushfd, IOPL3
  EXPECT_ARRIVED 0xF000
  mov eax, [F_GPR]
  and eax, VM | IOPL3
  EXPECT_EQ eax, IOPL3, "VM clear, IOPL 3 in the pushed image"

  CASE "IN in V86 mode at IOPL 3 is still checked against the I/O bitmap"
  or byte [IOMAP + 0x71 / 8], 1 << (0x71 % 8)
  GP_IN_V86 v86_in71, IOPL3, v86_in71, "EIP of IN"
  and byte [IOMAP + 0x71 / 8], ~(1 << (0x71 % 8))

  CASE "IN in V86 mode from a port clear in the bitmap works at IOPL 0"
  GP_IN_V86 v86_in80, 0, v86_in80 + 2, "the IN passed; the INT after it faulted"

  CASE "a word IN whose second port is denied raises #GP(0) in V86 mode"
  or byte [IOMAP + 0x83 / 8], 1 << (0x83 % 8)
  GP_IN_V86 v86_in82w, IOPL3, v86_in82w + 3, "EIP of IN AX,DX"
  and byte [IOMAP + 0x83 / 8], ~(1 << (0x83 % 8))

  CASE "HLT in V86 mode raises #GP(0)"
  GP_IN_V86 v86_hlt, IOPL3, v86_hlt, "EIP of HLT"

  CASE "MOV from CR0 in V86 mode raises #GP(0)"
  TRY_ONE IRET_TO_V86 v86_mov_cr0, IOPL3
  EXPECT_FAULT 13, 0

  CASE "LLDT in V86 mode raises #UD"
  TRY_ONE IRET_TO_V86 v86_lldt, IOPL3
  EXPECT_FAULT 6, NO_FAULT
  EXPECT_EQ dword [F_EIP], v86_lldt, "EIP of LLDT"

  CASE "INT3 in V86 mode at IOPL 0 goes through a DPL-3 gate"
  SET_IDT 3, SEL_CODE0, ABS(isr_stubs) + 3 * 8, 0xEE
  TRY_ONE IRET_TO_V86 v86_int3, 0
  RESTORE_IDT 3
  EXPECT_FAULT 3, NO_FAULT
  EXPECT_EQ dword [F_EIP], v86_int3 + 1, "EIP after INT3"
  EXPECT_EQ dword [F_SS], 0x2000, "V86 frame"

  CASE "#DE in V86 mode pushes the V86 frame with the faulting IP"
  TRY_ONE IRET_TO_V86 v86_div, IOPL3
  EXPECT_FAULT 0, NO_FAULT
  EXPECT_EQ dword [F_EIP], v86_div.div, "EIP of DIV"
  EXPECT_EQ dword [F_CS], 0xF000, "V86 CS"
  EXPECT_EQ dword [F_RAW + 24], 0x2000, "V86 DS"

  CASE "IRETD from the ring-0 handler returns to V86 mode"
  SET_IDT 0x31, SEL_CODE0, ABS(iret_handler), 0xEE
  TRY_ONE IRET_TO_V86 v86_int31, IOPL3
  EXPECT_ARRIVED 0xF000
  EXPECT_EQ dword [F_EIP], v86_int31 + 6, "continued after INT 31h"
  test dword [F_EFL], VM
  EXPECT nz, "still in V86 mode"
  EXPECT_EQ dword [F_RAW + 28], 0x3000, "FS restored by IRETD"

  CASE "a task switch to a TSS with EFLAGS.VM = 1 enters V86 mode"
  mov edi, TSS_V
  mov eax, v86_arrive
  mov ebx, 0xFFF0
  call make_tss32
  mov dword [TSS_V + 0x24], VM | IOPL3 | 2
  mov dword [TSS_V + 0x4C], 0xF000
  mov dword [TSS_V + 0x50], 0x2000
  mov dword [TSS_V + 0x48], 0x2000
  mov dword [TSS_V + 0x54], 0x2000
  mov dword [TSS_V + 0x58], 0x3000
  mov dword [TSS_V + 0x5C], 0x4000
  SET_DESC GDT, SEL_V, TSS_V, 0x67, 0x89, 0
  TRY_ONE jmp SEL_V:0
  EXPECT_ARRIVED 0xF000
  EXPECT_EQ dword [F_TR], SEL_V, "TR"
  test dword [F_EFL], VM
  EXPECT nz, "VM set"
  EXPECT_EQ dword [F_RAW + 28], 0x3000, "FS = 3000h"
  call restore_main_task

  CASE "a V86 word read at offset FFFFh raises #GP(0)"
  GP_IN_V86 v86_read_ffff, IOPL3, v86_read_ffff, "EIP of the MOV"

  CASE "INT n from V86 mode to a ring-3 handler raises #GP(handler CS)"
  SET_IDT 0x32, SEL_CODE3, ABS(iret_handler), 0xEE
  TRY_ONE IRET_TO_V86 v86_int32, IOPL3
  EXPECT_FAULT 13, SEL_CODE3 & 0xFFFC

  DONE

iret_handler:
  iretd

bits 16
v86_read:
  mov ax, [0x10]
v86_arrive:
  int ARRIVE_VECTOR
v86_cli:
  cli
  int ARRIVE_VECTOR
v86_sti:
  sti
  int ARRIVE_VECTOR
v86_pushf:
  pushf
  int ARRIVE_VECTOR
v86_popf:
  push ax
  popf
  int ARRIVE_VECTOR
v86_iret:
  iret
v86_pushfd:
  pushfd
  pop eax
  int ARRIVE_VECTOR
v86_in71:
  in al, 0x71
  int ARRIVE_VECTOR
v86_in80:
  in al, 0x80
  int ARRIVE_VECTOR
v86_in82w:
  mov dx, 0x82
  in ax, dx
  int ARRIVE_VECTOR
v86_hlt:
  hlt
  int ARRIVE_VECTOR
v86_mov_cr0:
  mov eax, cr0
  int ARRIVE_VECTOR
v86_lldt:
  lldt ax
  int ARRIVE_VECTOR
v86_int3:
  int3
  int ARRIVE_VECTOR
v86_div:
  xor dx, dx
  mov ax, 1
  xor cx, cx
.div:
  div cx
  int ARRIVE_VECTOR
v86_int31:
  int 0x31
  nop
  nop
  int ARRIVE_VECTOR
v86_read_ffff:
  mov ax, [0xFFFF]
  int ARRIVE_VECTOR
v86_int32:
  int 0x32
  int ARRIVE_VECTOR
bits 32

ROM_END
