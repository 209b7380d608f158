; Exception and interrupt delivery through the IDT (Intel SDM Vol. 3, "Interrupt and
; Exception Handling": "Error Code" (EXT, IDT, TI), "Interrupt Descriptor Table",
; "Exception and Interrupt Handling", "Interrupt 8 - Double Fault Exception", the
; per-exception pages; "Debug Exceptions": RF in the pushed image; Vol. 2 "INT n/INTO/
; INT3", "BOUND", "IRET", "POPF"). One rule per case.
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define SEEN_EFL  (T_VARS + 4)
%define BOUNDS    (T_VARS + 8)
%define RF        0x10000

tests:
  mov al, 0xFF                    ; mask both 8259As: IF is set in some cases
  out 0x21, al
  out 0xA1, al

  CASE "INT n through a DPL-0 gate from ring 3 raises #GP(vector*8+2)"
  SET_IDT 0x40, SEL_CODE0, ABS(gate_arrive), 0x8E
  TRY_RING3 r3_int40
  EXPECT_FAULT 13, 0x40 * 8 + 2
  EXPECT_EQ dword [F_EIP], ABS(r3_int40), "EIP of the INT"

  CASE "an exception whose IDT gate is not present raises #NP(vector*8+2+EXT)"
  SET_IDT 6, SEL_CODE0, ABS(gate_arrive), 0x0E
  TRY
.ud:
  ud2
  CATCH
  RESTORE_IDT 6
  EXPECT_FAULT 11, 6 * 8 + 3
  EXPECT_EQ dword [F_EIP], ABS(.ud), "EIP of UD2"

  CASE "INT n beyond the IDT limit raises #GP(vector*8+2)"
  mov word [IDT_RAM - 6], 0x3F * 8 + 7
  lidt [IDT_RAM - 6]
  TRY_ONE int 0x40
  mov word [IDT_RAM - 6], 0x7FF
  lidt [IDT_RAM - 6]
  EXPECT_FAULT 13, 0x40 * 8 + 2

  CASE "an IDT entry that is not a gate raises #GP(vector*8+2)"
  mov dword [IDT_RAM + 0x41 * 8], 0x0000FFFF
  mov dword [IDT_RAM + 0x41 * 8 + 4], 0x00CF9200
  TRY_ONE int 0x41
  EXPECT_FAULT 13, 0x41 * 8 + 2

  CASE "INT n to a gate whose code segment is not present raises #NP(selector)"
  SET_DESC GDT, 0x80, 0, 0xFFFFF, 0x1A, 0xC
  SET_IDT 0x42, 0x80, ABS(gate_arrive), 0x8E
  TRY_ONE int 0x42
  EXPECT_FAULT 11, 0x80

  CASE "an exception to a gate whose code segment is not present raises #NP(selector+EXT)"
  SET_IDT 6, 0x80, ABS(gate_arrive), 0x8E
  TRY_ONE ud2
  RESTORE_IDT 6
  EXPECT_FAULT 11, 0x81

  CASE "an exception to a gate with a null code selector raises #GP(EXT)"
  SET_IDT 6, 0, ABS(gate_arrive), 0x8E
  TRY_ONE ud2
  RESTORE_IDT 6
  EXPECT_FAULT 13, 1

  CASE "an interrupt gate clears IF in the handler"
  SET_IDT 0x43, SEL_CODE0, ABS(flags_handler), 0x8E
  sti
  int 0x43
  cli
  test dword [SEEN_EFL], 0x200
  EXPECT z, "IF clear in the handler"

  CASE "a trap gate leaves IF set in the handler"
  SET_IDT 0x43, SEL_CODE0, ABS(flags_handler), 0x8F
  sti
  int 0x43
  cli
  test dword [SEEN_EFL], 0x200
  EXPECT nz, "IF set in the handler"

  CASE "a 16-bit interrupt gate pushes FLAGS, CS and IP as words"
  SET_IDT 0x44, SEL_CODE16, handler16, 0x86
  TRY
  int 0x44
.after44:
  CATCH
  EXPECT_ARRIVED SEL_CODE16
  EXPECT_RETURN16 ABS(.after44), SEL_CODE0
  EXPECT_PUSHED 6, "6 bytes pushed"

  CASE "#GP through a 16-bit gate pushes a 16-bit error code"
  SET_IDT 13, SEL_CODE16, handler16, 0x86
  TRY
  mov ax, SEL_DATA0 | 3
.gp16:
  mov ds, ax
  CATCH
  RESTORE_IDT 13
  EXPECT_ARRIVED SEL_CODE16
  EXPECT_EQ word [F_RAW + 12], SEL_DATA0, "error code word"
  mov eax, ABS(.gp16)
  EXPECT_EQ word [F_RAW + 14], ax, "pushed IP of the MOV"

  CASE "a fault in ring 3 pushes the ring-3 SS:ESP on the TSS stack"
  TRY_RING3 r3_hlt
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_SS], SEL_DATA3, "pushed SS"
  EXPECT_EQ dword [F_ESP], ESP3_TOP, "pushed ESP"
  EXPECT_EQ dword [F_HESP], ESP0_TOP - 24, "six dwords on SS0:ESP0"
  EXPECT_EQ dword [F_HSS], SEL_STACK0, "SS0"

  CASE "a contributory fault while delivering #GP becomes #DF with error code 0"
  SET_IDT 13, SEL_CODE0, ABS(gate_arrive), 0x0E
  TRY
  mov ax, SEL_DATA0 | 3
.df:
  mov ds, ax
  CATCH
  RESTORE_IDT 13
  EXPECT_FAULT 8, 0
  EXPECT_EQ dword [F_EIP], ABS(.df), "EIP of the first fault"

  CASE "#DE pushes the EIP of the DIV and RF = 1"
  TRY
  xor edx, edx
  mov eax, 1
  xor ecx, ecx
.div:
  div ecx
  CATCH
  EXPECT_FAULT 0, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.div), "EIP of DIV"
  test dword [F_EFL], RF
  EXPECT nz, "RF set in the pushed EFLAGS"

  CASE "INT3 pushes the next EIP and RF = 0"
  TRY
  int3
.after_int3:
  CATCH
  EXPECT_FAULT 3, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_int3), "EIP after INT3"
  test dword [F_EFL], RF
  EXPECT z, "RF clear"

  CASE "INTO with OF = 1 raises #OF after the instruction"
  TRY
  mov al, 0x7F
  add al, 1
  into
.after_into:
  CATCH
  EXPECT_FAULT 4, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_into), "EIP after INTO"

  CASE "INTO with OF = 0 does nothing"
  TRY
  xor eax, eax
  into
  CATCH
  EXPECT_NO_FAULT

  CASE "BOUND with the index above the upper bound raises #BR at the BOUND"
  mov dword [BOUNDS], 0
  mov dword [BOUNDS + 4], 3
  TRY
  mov eax, 5
.bound:
  bound eax, [BOUNDS]
  CATCH
  EXPECT_FAULT 5, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.bound), "EIP of BOUND"

  CASE "BOUND with the index inside the bounds does nothing"
  TRY
  mov eax, 3
  bound eax, [BOUNDS]
  CATCH
  EXPECT_NO_FAULT

  CASE "INT3 from ring 3 through a DPL-0 gate raises #GP(3*8+2)"
  TRY_RING3 r3_int3
  EXPECT_FAULT 13, 3 * 8 + 2

  CASE "IRET to ring 3 nulls DS holding a DPL-0 segment and keeps ES with DPL 3"
  mov ax, SEL_DATA3
  mov es, ax
  TRY_RING3 r3_arrive
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_DS], 0, "DS nulled"
  EXPECT_EQ dword [F_ES], SEL_DATA3, "ES kept"

  CASE "IRET at CPL 3 changes neither IOPL nor, with CPL > IOPL, IF"
  TRY_RING3 r3_iret_flags
  EXPECT_ARRIVED SEL_CODE3
  test dword [F_EFL], 0x3200
  EXPECT z, "IOPL 0 and IF clear"

  CASE "POPF at CPL 3 with IOPL 0 leaves IF unchanged without a fault"
  TRY_RING3 r3_popf_if
  EXPECT_ARRIVED SEL_CODE3
  test dword [F_EFL], 0x200
  EXPECT z, "IF clear"
  test dword [F_EFL], 0x800
  EXPECT nz, "OF from the popped image"

  CASE "an interrupt to a conforming handler stays at CPL 3 on the ring-3 stack"
  SET_IDT 0x45, SEL_CONF0, ABS(gate_arrive), 0xEE
  TRY_RING3 r3_int45
  EXPECT_ARRIVED SEL_CONF0 | 3
  EXPECT_EQ dword [F_ESP], ESP3_TOP - 12, "INT 45h frame on the ring-3 stack"
  EXPECT_EQ dword [F_SS], SEL_DATA3, "ring-3 SS"

  DONE

gate_arrive:
  ARRIVE
flags_handler:
  pushfd
  pop dword [SEEN_EFL]
  iretd

r3_int40:
  int 0x40
r3_hlt:
  hlt
r3_int3:
  int3
r3_arrive:
  ARRIVE
r3_iret_flags:
  pushfd
  or dword [ss:esp], 0x3200
  push cs
  push dword ABS(r3_arrive)
  iretd
r3_popf_if:
  push dword 0xA02
  popfd
  ARRIVE
r3_int45:
  int 0x45

bits 16
handler16:
  int ARRIVE_VECTOR
bits 32

ROM_END
