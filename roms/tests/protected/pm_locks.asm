; Implied locked writes to descriptors, read back from the tables (Intel SDM Vol. 3,
; "Automatic Locking"; "Segment Descriptors": the Accessed bit; "TSS Descriptor": the
; Busy bit; "Task Switching"), and the descriptor cache staying stale after a table
; edit ("Segment Registers"). One rule per case.
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define TSS_T   0x5000            ; a TSS for LTR
%define SEL_TSS_T 0xC0
%define SEL_TSS_N SEL_TASK_N      ; task N, the task switched to
%define PTR     T_VARS            ; far pointer for LDS

; LOAD_SREG_AND_BACK sreg, selector, standard: loads `selector` into `sreg` (the load
; is the access under test), then the standard selector again.
%macro LOAD_SREG_AND_BACK 3
  mov ax, %2
  mov %1, ax
  mov ax, %3
  mov %1, ax
%endmacro

tests:
  CASE "MOV DS sets the Accessed bit of its GDT descriptor"
  SET_DESC GDT, 0x80, 0, 0xFFFFF, 0x92, 0xC
  LOAD_SREG_AND_BACK ds, 0x80, SEL_DATA0
  EXPECT_EQ byte [GDT + 0x80 + 5], 0x93, "access byte 93h"
  EXPECT_EQ dword [GDT + 0x80], 0x0000FFFF, "low dword unchanged"
  EXPECT_EQ dword [GDT + 0x84], 0x00CF9300, "high dword: only the Accessed bit changed"

  CASE "MOV ES with the Accessed bit already set leaves the descriptor as it is"
  LOAD_SREG_AND_BACK es, 0x80, SEL_DATA0
  EXPECT_EQ dword [GDT + 0x84], 0x00CF9300, "high dword unchanged"

  CASE "LDS through an LDT selector sets the Accessed bit in the LDT"
  SET_DESC LDT, 0x08, 0, 0xFFFFF, 0x92, 0xC
  mov dword [PTR], 0x12345678
  mov word [PTR + 4], 0x0C
  lds ebx, [PTR]
  mov ax, ds
  push eax
  mov ax, SEL_DATA0
  mov ds, ax
  pop eax
  EXPECT_EQ ax, 0x0C, "DS = 0Ch"
  EXPECT_EQ ebx, 0x12345678, "EBX = offset"
  EXPECT_EQ byte [LDT + 0x08 + 5], 0x93, "LDT access byte 93h"

  CASE "MOV SS sets the Accessed bit of the stack descriptor"
  SET_DESC GDT, 0x88, 0, 0xFFFFF, 0x92, 0xC
  LOAD_SREG_AND_BACK ss, 0x88, SEL_STACK0
  EXPECT_EQ byte [GDT + 0x88 + 5], 0x93, "access byte 93h"

  CASE "far JMP sets the Accessed bit of the code descriptor"
  SET_DESC GDT, 0x90, 0, 0xFFFFF, 0x9A, 0xC
  jmp 0x90:ABS(.in_90)
.in_90:
  jmp SEL_CODE0:ABS(.back_90)
.back_90:
  EXPECT_EQ byte [GDT + 0x90 + 5], 0x9B, "access byte 9Bh"

  CASE "CALL through a call gate sets Accessed on the target, not on the gate"
  SET_DESC GDT, 0x98, 0, 0xFFFFF, 0x9A, 0xC
  SET_GATE GDT, 0xA0, 0x98, ABS(gate_target), 0x8C, 0
  call 0xA0:0
  EXPECT_EQ byte [GDT + 0x98 + 5], 0x9B, "target access byte 9Bh"
  EXPECT_EQ byte [GDT + 0xA0 + 5], 0x8C, "gate access byte 8Ch"

  CASE "interrupt delivery sets Accessed on the handler's code descriptor"
  SET_DESC GDT, 0xA8, 0, 0xFFFFF, 0x9A, 0xC
  SET_IDT 0x31, 0xA8, ABS(iret_handler), 0x8E
  int 0x31
  EXPECT_EQ byte [GDT + 0xA8 + 5], 0x9B, "handler access byte 9Bh"

  CASE "IRET to ring 3 sets Accessed on the new CS and SS descriptors"
  SET_DESC GDT, 0xB0, 0, 0xFFFFF, 0xFA, 0xC
  SET_DESC GDT, 0xB8, 0, 0xFFFFF, 0xF2, 0xC
  TRY_ONE IRET_TO 0xB3, ABS(ring3_arrive), 0xBB, ESP3_TOP, 2
  EXPECT_ARRIVED 0xB3
  EXPECT_EQ byte [GDT + 0xB0 + 5], 0xFB, "CS access byte FBh"
  EXPECT_EQ byte [GDT + 0xB8 + 5], 0xF3, "SS access byte F3h"

  CASE "LTR sets the Busy bit of the TSS descriptor"
  mov edi, TSS_T
  mov eax, ABS(task_arrive)
  mov ebx, 0x5F00
  call make_tss32
  SET_DESC GDT, SEL_TSS_T, TSS_T, 0x67, 0x89, 0
  mov ax, SEL_TSS_T
  ltr ax
  str bx
  EXPECT_EQ bx, SEL_TSS_T, "TR"
  EXPECT_EQ byte [GDT + SEL_TSS_T + 5], 0x8B, "access byte 8Bh (busy)"
  EXPECT_EQ byte [GDT + SEL_TSS + 5], 0x8B, "the previous TSS stays busy"
  call restore_main_task

  CASE "LTR of a busy TSS raises #GP(selector) and writes nothing"
  mov byte [GDT + SEL_TSS_T + 5], 0x8B
  TRY
  mov ax, SEL_TSS_T
  ltr ax
  CATCH
  EXPECT_FAULT 13, SEL_TSS_T
  EXPECT_EQ byte [GDT + SEL_TSS_T + 5], 0x8B, "access byte still 8Bh"
  str ax
  EXPECT_EQ ax, SEL_TSS, "TR unchanged"
  call restore_main_task

  CASE "a not-present segment raises #NP and its Accessed bit stays clear"
  SET_DESC GDT, 0xC8, 0, 0xFFFFF, 0x12, 0xC
  TRY
  mov ax, 0xC8
  mov fs, ax
  CATCH
  EXPECT_FAULT 11, 0xC8
  EXPECT_EQ byte [GDT + 0xC8 + 5], 0x12, "access byte 12h"

  CASE "a privilege violation raises #GP and the Accessed bit stays clear"
  SET_DESC GDT, 0xD0, 0, 0xFFFFF, 0x92, 0xC
  TRY
  mov ax, 0xD3                      ; RPL 3 > DPL 0
  mov gs, ax
  CATCH
  EXPECT_FAULT 13, 0xD0
  EXPECT_EQ byte [GDT + 0xD0 + 5], 0x92, "access byte 92h"

  CASE "JMP to a TSS clears the old Busy bit and sets the new one"
  call make_task_n
  TRY_ONE jmp SEL_TSS_N:0
  EXPECT_IN_TASK SEL_CODE0, SEL_TSS_N
  EXPECT_EQ byte [GDT + SEL_TSS + 5], 0x89, "old TSS available (89h)"
  EXPECT_EQ byte [GDT + SEL_TSS_N + 5], 0x8B, "new TSS busy (8Bh)"
  call restore_main_task

  CASE "CALL to a TSS keeps the caller's Busy bit and sets the callee's"
  call make_task_n
  TRY_ONE call SEL_TSS_N:0
  EXPECT_ARRIVED SEL_CODE0
  EXPECT_EQ byte [GDT + SEL_TSS + 5], 0x8B, "caller still busy (8Bh)"
  EXPECT_EQ byte [GDT + SEL_TSS_N + 5], 0x8B, "callee busy (8Bh)"
  EXPECT_EQ word [TSS_N], SEL_TSS, "back link = caller's TR"
  call restore_main_task

  CASE "IRET from a called task clears only the callee's Busy bit"
  call make_task_n
  mov dword [TSS_N + 0x20], ABS(task_iret)
  TRY
  call SEL_TSS_N:0
  ARRIVE
  CATCH
  EXPECT_IN_TASK SEL_CODE0, SEL_TSS
  EXPECT_EQ byte [GDT + SEL_TSS + 5], 0x8B, "caller busy (8Bh)"
  EXPECT_EQ byte [GDT + SEL_TSS_N + 5], 0x89, "callee available (89h)"
  call restore_main_task

  CASE "a descriptor-table edit leaves the loaded cache in use until a reload"
  SET_DESC GDT, 0xE0, 0, 0xFFFFF, 0x92, 0xC
  mov dword [SCRATCH], 0x11111111
  mov dword [SCRATCH + 0x1000], 0x22222222
  mov ax, 0xE0
  mov fs, ax
  mov byte [GDT + 0xE0 + 3], 0x10    ; base 1000h in the table only
  mov eax, [fs:SCRATCH]
  EXPECT_EQ eax, 0x11111111, "FS still has base 0"
  mov bx, 0xE0
  mov fs, bx
  mov eax, [fs:SCRATCH]
  EXPECT_EQ eax, 0x22222222, "after the reload FS has base 1000h"
  mov ax, SEL_DATA0
  mov fs, ax

  DONE

gate_target:
  retf

iret_handler:
  iretd

ring3_arrive:
  ARRIVE

ROM_END
