; Call gates and far returns across rings (Intel SDM Vol. 3, "Call Gates", "Accessing
; a Code Segment Through a Call Gate", "Stack Switching", "Returning from a Called
; Procedure"; Vol. 2, "CALL", "JMP", "RET"). One rule per case; the frames are read
; from the stack the INT 30h at the target lands on (F_RAW[3..] = the call's frame).
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"


tests:
  CASE "CALL through a 32-bit call gate at the same ring pushes CS and EIP"
  SET_GATE GDT, 0x80, SEL_CODE0, ABS(gate_arrive), 0x8C, 0
  TRY
  call 0x80:0
.ret1:
  CATCH
  EXPECT_ARRIVED SEL_CODE0
  EXPECT_EQ dword [F_RAW + 12], ABS(.ret1), "pushed EIP"
  EXPECT_EQ dword [F_RAW + 16], SEL_CODE0, "pushed CS"
  EXPECT_PUSHED 8, "8 bytes pushed"

  CASE "CALL through a 16-bit call gate pushes a 16-bit CS:IP"
  SET_GATE GDT, 0x88, SEL_CODE16, gate16_arrive, 0x84, 0
  TRY
  call 0x88:0
.ret2:
  CATCH
  EXPECT_ARRIVED SEL_CODE16
  EXPECT_RETURN16 ABS(.ret2), SEL_CODE0
  EXPECT_PUSHED 4, "4 bytes pushed"

  CASE "JMP through a call gate pushes nothing"
  TRY_ONE jmp 0x80:0
  EXPECT_ARRIVED SEL_CODE0
  EXPECT_PUSHED 0, "ESP unchanged by the JMP"

  CASE "CALL from ring 3 through a DPL-3 gate to ring 0 switches to SS0:ESP0"
  SET_GATE GDT, 0x90, SEL_CODE0, ABS(gate_arrive), 0xEC, 0
  TRY_RING3 r3_call_90
  EXPECT_ARRIVED SEL_CODE0
  EXPECT_EQ dword [F_HSS], SEL_STACK0, "SS = TSS SS0"
  EXPECT_EQ dword [F_HESP], ESP0_TOP - 16 - 12, "ESP = ESP0 - frame"
  EXPECT_EQ dword [F_RAW + 12], ABS(r3_call_90.ret), "pushed EIP"
  EXPECT_EQ dword [F_RAW + 16], SEL_CODE3, "pushed CS"
  EXPECT_EQ dword [F_RAW + 20], ESP3_TOP, "pushed ESP"
  EXPECT_EQ dword [F_RAW + 24], SEL_DATA3, "pushed SS"

  CASE "a 32-bit call gate copies its parameter dwords in order"
  SET_GATE GDT, 0x98, SEL_CODE0, ABS(gate_arrive), 0xEC, 3
  TRY_RING3 r3_call_98
  EXPECT_ARRIVED SEL_CODE0
  EXPECT_EQ dword [F_RAW + 20], 0x33333333, "parameter at the old ESP"
  EXPECT_EQ dword [F_RAW + 24], 0x22222222, "second parameter"
  EXPECT_EQ dword [F_RAW + 28], 0x11111111, "third parameter"
  EXPECT_EQ dword [F_RAW + 32], ESP3_TOP - 12, "pushed ESP below the parameters"
  EXPECT_EQ dword [F_RAW + 36], SEL_DATA3, "pushed SS"
  EXPECT_EQ dword [F_HESP], ESP0_TOP - 28 - 12, "ESP0 - 28 bytes"

  CASE "a 16-bit call gate copies parameter words"
  SET_GATE GDT, 0xA0, SEL_CODE16, gate16_arrive, 0xE4, 2
  TRY_RING3 r3_call_a0
  EXPECT_ARRIVED SEL_CODE16
  EXPECT_EQ word [F_RAW + 14], SEL_CODE3, "pushed CS"
  EXPECT_EQ word [F_RAW + 16], 0xBBBB, "word at the old SP"
  EXPECT_EQ word [F_RAW + 18], 0xAAAA, "second word"
  EXPECT_EQ word [F_RAW + 20], (ESP3_TOP - 4) & 0xFFFF, "pushed SP"
  EXPECT_EQ word [F_RAW + 22], SEL_DATA3, "pushed SS"

  CASE "RETF imm16 to an outer ring releases the parameters on both stacks"
  SET_GATE GDT, 0xA8, SEL_CODE0, ABS(retf_8), 0xEC, 2
  TRY_RING3 r3_call_a8
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_ESP], ESP3_TOP, "ring-3 ESP after RETF 8"
  EXPECT_EQ dword [F_SS], SEL_DATA3, "ring-3 SS restored"
  EXPECT_EQ dword [F_EIP], ABS(r3_call_a8.back) + 2, "returned after the CALL"

  CASE "a call gate with DPL < CPL raises #GP(gate selector)"
  SET_GATE GDT, 0xB0, SEL_CODE0, ABS(gate_arrive), 0x8C, 0
  FAULT_AT_CPL3 r3_call_b3, 13, 0xB0
  EXPECT_EQ dword [F_EIP], ABS(r3_call_b3), "EIP of the CALL"

  CASE "a call gate with DPL < RPL raises #GP(gate selector)"
  TRY_ONE call 0xB3:0
  EXPECT_FAULT 13, 0xB0

  CASE "a not-present call gate raises #NP(gate selector)"
  SET_GATE GDT, 0xB8, SEL_CODE0, ABS(gate_arrive), 0x0C, 0
  TRY_ONE call 0xB8:0
  EXPECT_FAULT 11, 0xB8

  CASE "a call gate with a null code selector raises #GP(0)"
  SET_GATE GDT, 0xC0, 0, ABS(gate_arrive), 0x8C, 0
  TRY_ONE call 0xC0:0
  EXPECT_FAULT 13, 0

  CASE "a call gate to a data segment raises #GP(target selector)"
  SET_GATE GDT, 0xC8, SEL_DATA0, ABS(gate_arrive), 0x8C, 0
  TRY_ONE call 0xC8:0
  EXPECT_FAULT 13, SEL_DATA0

  CASE "a call gate to code with DPL > CPL raises #GP(target selector)"
  SET_GATE GDT, 0xD0, SEL_CODE3, ABS(gate_arrive), 0x8C, 0
  TRY_ONE call 0xD0:0
  EXPECT_FAULT 13, SEL_CODE3 & 0xFFFC

  CASE "a call gate to a not-present code segment raises #NP(target selector)"
  SET_DESC GDT, 0xD8, 0, 0xFFFFF, 0x1A, 0xC
  SET_GATE GDT, 0xE0, 0xD8, ABS(gate_arrive), 0x8C, 0
  TRY_ONE call 0xE0:0
  EXPECT_FAULT 11, 0xD8

  CASE "JMP through a call gate to a more privileged ring raises #GP(target)"
  TRY_RING3 r3_jmp_90
  EXPECT_FAULT 13, SEL_CODE0

  CASE "a call gate offset beyond the target's limit raises #GP(0)"
  SET_DESC GDT, 0xE8, 0, 0x00FFF, 0x9A, 0x4
  SET_GATE GDT, 0xF0, 0xE8, 0x2000, 0x8C, 0
  TRY_ONE call 0xF0:0
  EXPECT_FAULT 13, 0

  CASE "CALL through a gate to conforming code keeps CPL 3 and its stack"
  SET_GATE GDT, 0xF8, SEL_CONF0, ABS(gate_arrive), 0xEC, 0
  TRY_RING3 r3_call_f8
  EXPECT_ARRIVED SEL_CONF0 | 3
  EXPECT_EQ dword [F_SS], SEL_DATA3, "still on the ring-3 stack"
  EXPECT_EQ dword [F_ESP], ESP3_TOP - 8, "CS:EIP pushed on the ring-3 stack"

  CASE "an inner-ring CALL with a null SS1 in the TSS raises #TS(0)"
  SET_GATE GDT, 0x100, SEL_CODE1 & 0xFFFC, ABS(gate_arrive), 0xEC, 0
  mov dword [TSS_MAIN + 0x10], 0
  FAULT_AT_CPL3 r3_call_100, 10, 0

  CASE "an inner-ring CALL whose new SS has DPL != new CPL raises #TS(SS)"
  mov dword [TSS_MAIN + 0x10], SEL_DATA0 | 1
  TRY_RING3 r3_call_100
  EXPECT_FAULT 10, SEL_DATA0

  CASE "an inner-ring CALL whose new SS is not present raises #SS(SS)"
  SET_DESC GDT, 0x108, 0, 0xFFFFF, 0xB2 & 0x7F, 0xC
  mov dword [TSS_MAIN + 0x10], 0x109
  TRY_RING3 r3_call_100
  EXPECT_FAULT 12, 0x108
  mov dword [TSS_MAIN + 0x10], SEL_DATA1

  CASE "an inner-ring CALL lands on SS1:ESP1 with CPL 1"
  TRY_RING3 r3_call_100
  EXPECT_ARRIVED SEL_CODE1
  EXPECT_EQ dword [ESP1_TOP - 12], SEL_CODE3, "pushed CS on the ring-1 stack"
  EXPECT_EQ dword [ESP1_TOP - 8], ESP3_TOP, "pushed ESP"
  EXPECT_EQ dword [ESP1_TOP - 4], SEL_DATA3, "pushed SS"
  EXPECT_EQ dword [F_ESP], ESP1_TOP - 16, "ring-1 ESP at INT 30h"
  EXPECT_EQ dword [F_SS], SEL_DATA1, "ring-1 SS"

  CASE "RETF to an outer ring nulls DS and ES holding a DPL-0 segment"
  SET_GATE GDT, 0x110, SEL_CODE0, ABS(load_segments_retf), 0xEC, 0
  TRY_RING3 r3_call_110
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_DS], 0, "DS nulled"
  EXPECT_EQ dword [F_ES], 0, "ES nulled"
  EXPECT_EQ dword [F_FS], SEL_DATA3, "FS (DPL 3) kept"
  EXPECT_EQ dword [F_GS], SEL_CONF0, "GS (conforming code) kept"

  CASE "RETF to a more privileged ring raises #GP(return CS)"
  FAULT_AT_CPL3 r3_retf_inner, 13, SEL_CODE0

  CASE "an inner-ring CALL with no room for the frame raises #SS(new SS)"
  SET_DESC GDT, 0x118, 0, 0x00FFF, 0xB2, 0x4
  mov dword [TSS_MAIN + 0x10], 0x119
  mov dword [TSS_MAIN + 0x0C], 8
  TRY_RING3 r3_call_100
  EXPECT_FAULT 12, 0x118
  mov dword [TSS_MAIN + 0x10], SEL_DATA1
  mov dword [TSS_MAIN + 0x0C], ESP1_TOP

  DONE

; ---- targets ----
gate_arrive:
  ARRIVE
retf_8:
  retf 8
load_segments_retf:
  mov ax, SEL_DATA0
  mov ds, ax
  mov es, ax
  mov ax, SEL_DATA3
  mov fs, ax
  mov ax, SEL_CONF0
  mov gs, ax
  retf

; ---- ring-3 callers ----
r3_call_90:
  call 0x93:0
.ret:
r3_call_98:
  push dword 0x11111111
  push dword 0x22222222
  push dword 0x33333333
  call 0x9B:0
r3_call_a0:
  push word 0xAAAA
  push word 0xBBBB
  call 0xA3:0
r3_call_a8:
  push dword 1
  push dword 2
  call 0xAB:0
.back:
  ARRIVE
r3_call_b3:
  call 0xB3:0
r3_jmp_90:
  jmp 0x93:0
r3_call_f8:
  call 0xFB:0
r3_call_100:
  call 0x103:0
r3_call_110:
  call 0x113:0
  ARRIVE
r3_retf_inner:
  push dword SEL_CODE0
  push dword ABS(gate_arrive)
  retf

bits 16
gate16_arrive:
  int ARRIVE_VECTOR
bits 32

ROM_END
