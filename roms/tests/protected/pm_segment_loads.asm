; Segment loads and accesses through the descriptor cache (Intel SDM Vol. 3,
; "Protection": "Limit Checking", "Type Checking", "Privilege Levels", "Privilege Level
; Checking When Accessing Data Segments", "... When Loading the SS Register", "...
; When Transferring Program Control Between Code Segments"; Vol. 2 "MOV", "POP", "LSS",
; "JMP", "CALL", "LLDT", "LTR"). One rule per case.
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define PTR T_VARS

; RESTORE_STACK0: back on the tests' ring-0 stack after a case that loaded SS:ESP.
%macro RESTORE_STACK0 0
  mov ax, SEL_STACK0
  mov ss, ax
  mov esp, STACK0_TOP
%endmacro

tests:
  SET_DESC GDT, 0x80, 0, 0xFFFFF, 0x92, 0xC        ; data DPL 0
  SET_DESC GDT, 0x88, 0, 0xFFFFF, 0x98, 0xC        ; execute-only code
  SET_DESC GDT, 0x90, 0, 0xFFFFF, 0x9A, 0xC        ; execute/read code
  SET_DESC GDT, 0x98, 0, 0xFFFFF, 0x90, 0xC        ; read-only data
  SET_DESC GDT, 0xA0, 0, 0xFFFFF, 0x12, 0xC        ; data, not present
  SET_DESC GDT, 0xA8, SCRATCH, 0x00FFF, 0x96, 0x4  ; expand-down data, limit FFFh
  SET_DESC GDT, 0xB0, 0, 0x00000, 0x92, 0xC        ; data, limit FFFh (page granular, 1 page)
  SET_DESC GDT, 0xB8, 0, 0xFFFFF, 0x1A, 0xC        ; code, not present
  SET_DESC GDT, 0xC0, 0, 0x00FFF, 0x9A, 0x4        ; code, limit FFFh
  SET_DESC GDT, 0xC8, 0, 0x007FF, 0xF2, 0x4        ; ring-3 stack, limit 7FFh

  CASE "MOV DS with RPL > DPL raises #GP(selector)"
  TRY
  mov ax, 0x83
  mov ds, ax
  CATCH
  EXPECT_FAULT 13, 0x80

  CASE "MOV DS at CPL 3 of a DPL-0 data segment raises #GP(selector)"
  FAULT_AT_CPL3 r3_load_ds_80, 13, 0x80

  CASE "MOV DS of an execute-only code segment raises #GP(selector)"
  TRY
  mov ax, 0x88
  mov ds, ax
  CATCH
  EXPECT_FAULT 13, 0x88

  CASE "MOV DS of a readable code segment reads through DS"
  mov dword [SCRATCH], 0x600DC0DE
  TRY
  mov ax, 0x90
  mov ds, ax
  mov ebx, [SCRATCH]
  CATCH
  mov ax, SEL_DATA0
  mov ds, ax
  EXPECT_NO_FAULT
  EXPECT_EQ ebx, 0x600DC0DE, "value read through code DS"

  CASE "MOV DS at CPL 3 of a DPL-0 conforming readable code segment is allowed"
  TRY_RING3 r3_load_ds_conf
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_DS], SEL_CONF0, "DS loaded"

  CASE "MOV SS of a read-only data segment raises #GP(selector)"
  TRY
  mov ax, 0x98
  mov ss, ax
  CATCH
  EXPECT_FAULT 13, 0x98

  CASE "MOV SS with RPL != CPL raises #GP(selector)"
  TRY
  mov ax, 0x81
  mov ss, ax
  CATCH
  EXPECT_FAULT 13, 0x80

  CASE "MOV SS of a DPL-3 segment at CPL 0 raises #GP(selector)"
  TRY
  mov ax, SEL_DATA3 & 0xFFFC
  mov ss, ax
  CATCH
  EXPECT_FAULT 13, SEL_DATA3 & 0xFFFC

  CASE "MOV SS of a not-present segment raises #SS(selector)"
  TRY
  mov ax, 0xA0
  mov ss, ax
  CATCH
  EXPECT_FAULT 12, 0xA0

  CASE "MOV DS of a not-present segment raises #NP(selector)"
  TRY
  mov ax, 0xA0
  mov ds, ax
  CATCH
  EXPECT_FAULT 11, 0xA0

  CASE "MOV DS with a selector beyond the GDT limit raises #GP(selector)"
  TRY
  mov ax, GDT_ENTRIES * 8
  mov ds, ax
  CATCH
  EXPECT_FAULT 13, GDT_ENTRIES * 8

  CASE "MOV DS with an LDT selector while LDTR is null raises #GP(selector)"
  xor ax, ax
  lldt ax
  TRY
  mov ax, 0x0C
  mov ds, ax
  CATCH
  EXPECT_FAULT 13, 0x0C

  CASE "POP SS of a null selector raises #GP(0)"
  TRY
  push dword 0
  pop ss
  CATCH
  EXPECT_FAULT 13, 0

  ; SDM "POP": the pop and its ESP step use the stack-address size in force at its start.
  CASE "o32 POP SS from a 16-bit stack to a 32-bit SS wraps SP and keeps ESP's upper half"
  mov dword [0xFFFC], 0x80        ; flat 32-bit data (B = 1), DPL 0
  TRY
  mov ax, SEL_DATA16              ; 16-bit stack (B = 0), base 0
  mov ss, ax
  mov esp, 0x1234FFFC
  pop ss
  mov ebx, esp
  mov cx, ss
  CATCH
  RESTORE_STACK0
  EXPECT_NO_FAULT
  EXPECT_EQ ebx, 0x12340000, "ESP"
  EXPECT_EQ cx, 0x80, "SS"

  CASE "o16 POP SS from a 16-bit stack to a 32-bit SS wraps SP and keeps ESP's upper half"
  mov word [0xFFFE], 0x80
  TRY
  mov ax, SEL_DATA16
  mov ss, ax
  mov esp, 0x5678FFFE
  o16 pop ss
  mov ebx, esp
  CATCH
  RESTORE_STACK0
  EXPECT_NO_FAULT
  EXPECT_EQ ebx, 0x56780000, "ESP"

  CASE "a null DS loads, and an access through it raises #GP(0)"
  TRY
  xor eax, eax
  mov ds, ax
.after_null:
  mov eax, [SCRATCH]
  CATCH
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_EIP], ABS(.after_null) , "the load passed; the access faulted"

  CASE "a write to a read-only data segment raises #GP(0)"
  TRY
  mov ax, 0x98
  mov es, ax
.write_ro:
  mov dword [es:SCRATCH], 1
  CATCH
  EXPECT_FAULT 13, 0
  EXPECT_EQ dword [F_EIP], ABS(.write_ro), "EIP of the write"

  CASE "a write through a CS override raises #GP(0)"
  TRY_ONE mov dword [cs:SCRATCH], 1
  EXPECT_FAULT 13, 0

  CASE "an expand-down segment rejects offsets at or below its limit"
  TRY
  mov ax, 0xA8
  mov es, ax
  mov eax, [es:0xFFC]
  CATCH
  EXPECT_FAULT 13, 0

  CASE "an expand-down segment accepts offsets above its limit"
  mov dword [SCRATCH + 0x1000], 0x12345678
  TRY
  mov ax, 0xA8
  mov es, ax
  mov eax, [es:0x1000]
  CATCH
  EXPECT_NO_FAULT
  EXPECT_EQ eax, 0x12345678, "value read at base + 1000h"

  CASE "a page-granular limit allows the last byte of the last page"
  TRY
  mov ax, 0xB0
  mov es, ax
  mov al, [es:0xFFF]
  CATCH
  EXPECT_NO_FAULT

  CASE "a page-granular limit rejects the first byte past the last page"
  TRY
  mov ax, 0xB0
  mov es, ax
  mov al, [es:0x1000]
  CATCH
  EXPECT_FAULT 13, 0

  CASE "a push across the stack limit raises #SS(0)"
  TRY_RING3 r3_push_limit
  EXPECT_FAULT 12, 0
  EXPECT_EQ dword [F_EIP], ABS(r3_push_limit.cross), "EIP of the push across the limit"
  EXPECT_EQ dword [F_ESP], 0x802, "ESP unchanged"

  CASE "far JMP to non-conforming code with DPL != CPL raises #GP(selector)"
  TRY
  jmp SEL_CODE3:ABS(.x)
.x:
  CATCH
  EXPECT_FAULT 13, SEL_CODE3 & 0xFFFC

  CASE "far JMP from ring 3 to DPL-0 conforming code keeps CPL 3"
  TRY_RING3 r3_jmp_conf
  EXPECT_ARRIVED SEL_CONF0 | 3

  CASE "far CALL to a data segment raises #GP(selector)"
  TRY_ONE call 0x80:0
  EXPECT_FAULT 13, 0x80

  CASE "far JMP to a not-present code segment raises #NP(selector)"
  TRY_ONE jmp 0xB8:0
  EXPECT_FAULT 11, 0xB8

  CASE "far JMP beyond the target's limit raises #GP(0)"
  TRY_ONE jmp 0xC0:0x1000
  EXPECT_FAULT 13, 0

  CASE "LLDT of a descriptor that is not an LDT raises #GP(selector)"
  TRY
  mov ax, 0x80
  lldt ax
  CATCH
  EXPECT_FAULT 13, 0x80

  CASE "LLDT of a not-present LDT raises #NP(selector)"
  SET_DESC GDT, 0xD0, LDT_RAM, 0xFF, 0x02, 0
  TRY
  mov ax, 0xD0
  lldt ax
  CATCH
  EXPECT_FAULT 11, 0xD0

  CASE "LTR with a selector in the LDT raises #GP(selector)"
  TRY
  mov ax, 0x44
  ltr ax
  CATCH
  EXPECT_FAULT 13, 0x44

  CASE "MOV to CS raises #UD"
  TRY_ONE db 0x8E, 0xC8                   ; mov cs, ax
  EXPECT_FAULT 6, NO_FAULT

  CASE "LSS loads SS and ESP from memory"
  mov dword [PTR], 0x6000
  mov word [PTR + 4], 0x80
  TRY
  lss esp, [PTR]
  mov ebx, esp
  mov cx, ss
  CATCH
  RESTORE_STACK0
  EXPECT_NO_FAULT
  EXPECT_EQ ebx, 0x6000, "ESP"
  EXPECT_EQ cx, 0x80, "SS"

  DONE

r3_load_ds_80:
  mov ax, 0x83
  mov ds, ax
  ARRIVE
r3_load_ds_conf:
  mov ax, SEL_CONF0
  mov ds, ax
  ARRIVE
r3_push_limit:
  mov ax, 0xCB
  mov ss, ax
  mov esp, 0x800
  push eax                        ; 7FCh-7FFh: inside the limit
  mov esp, 0x802
.cross:
  push eax                        ; 7FEh-801h: across it
  ARRIVE
r3_jmp_conf:
  jmp SEL_CONF0:ABS(conf_arrive)
conf_arrive:
  ARRIVE

ROM_END
