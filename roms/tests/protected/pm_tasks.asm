; Task switches (Intel SDM Vol. 3, "Task Management": "Task Switching", "Task
; Linking", Table 7-1 "Exception Conditions Checked During a Task Switch"; Vol. 2,
; "JMP", "CALL", "IRET", "INT n" task-gate paths; "Debug Control Register (DR7)").
; One rule per case; task N's code runs INT 30h so the handler records TR, the
; registers and the frame in the new task.
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define TSS_16    0x5300
%define LDT_N     0x6800
%define SEL_N     SEL_TASK_N
%define SEL_GATE  0x90
%define SEL_16    0x98
%define SEL_LDT_N 0xB8
%define PD1       0x20000
%define PD2       0x21000

; TASK_CASE "rule": a case that starts in the main task with a fresh task N.
%macro TASK_CASE 1
  CASE %1
  call restore_main_task
  call make_task_n
%endmacro

; JMP_TASK_N: the code under test is a far JMP to task N's TSS.
%macro JMP_TASK_N 0
  TRY_ONE jmp SEL_N:0
%endmacro

; NEW_TASK_FAULT field, selector, vector, error code: task N's TSS holds `selector`
; at offset `field`; the JMP commits the switch, then the check of that selector
; raises vector(error code) in the new task (Table 7-1: after the commit point).
%macro NEW_TASK_FAULT 4
  mov word [TSS_N + (%1)], %2
  JMP_TASK_N
  EXPECT_FAULT %3, %4
  EXPECT_EQ dword [F_TR], SEL_N, "TR = new task"
%endmacro

tests:
  TASK_CASE "JMP to a TSS loads the new task's registers and saves the old task's"
  mov dword [TSS_N + 0x28], 0x1234
  mov dword [TSS_N + 0x40], 0x5678
  TRY
  mov eax, 0xAAAA5555
  jmp SEL_N:0
.after_jmp:
  CATCH
  EXPECT_IN_TASK SEL_CODE0, SEL_N
  EXPECT_EQ dword [F_GPR], 0x1234, "EAX from the TSS"
  EXPECT_EQ dword [F_GPR + 24], 0x5678, "ESI from the TSS"
  EXPECT_EQ dword [TSS_MAIN + 0x28], 0xAAAA5555, "old EAX saved"
  EXPECT_EQ dword [TSS_MAIN + 0x20], ABS(.after_jmp), "old EIP saved: after the JMP"
  EXPECT_EQ word [TSS_N], 0, "JMP writes no back link"

  TASK_CASE "CALL to a TSS sets NT in the new task and writes the back link"
  TRY_ONE call SEL_N:0
  EXPECT_ARRIVED SEL_CODE0
  EXPECT_EQ word [TSS_N], SEL_TSS, "back link = old TR"
  test dword [F_EFL], 0x4000
  EXPECT nz, "NT set"

  TASK_CASE "IRET with NT returns to the calling task and frees the callee"
  mov dword [TSS_N + 0x20], ABS(task_iret)
  TRY
  call SEL_N:0
.back:
  ARRIVE
  CATCH
  EXPECT_IN_TASK SEL_CODE0, SEL_TSS
  EXPECT_EQ dword [F_EIP], ABS(.back) + 2, "resumed after the CALL"
  test dword [F_EFL], 0x4000
  EXPECT z, "caller's NT clear"
  EXPECT_EQ byte [GDT + SEL_N + 5], 0x89, "callee available"
  EXPECT_EQ dword [TSS_N + 0x20], ABS(task_iret) + 1, "callee saved EIP after its IRET"
  test dword [TSS_N + 0x24], 0x4000
  EXPECT z, "NT cleared in the callee's saved EFLAGS"

  TASK_CASE "JMP through a task gate in the GDT switches to the gate's TSS"
  SET_GATE GDT, SEL_GATE, SEL_N, 0, 0x85, 0
  TRY_ONE jmp SEL_GATE:0
  EXPECT_IN_TASK SEL_CODE0, SEL_N
  EXPECT_EQ byte [GDT + SEL_GATE + 5], 0x85, "gate unchanged"

  TASK_CASE "CALL through a task gate in the LDT nests the task"
  SET_GATE LDT, 0x08, SEL_N, 0, 0x85, 0
  TRY_ONE call 0x0C:0
  EXPECT_IN_TASK SEL_CODE0, SEL_N
  EXPECT_EQ word [TSS_N], SEL_TSS, "back link"

  TASK_CASE "INT n through an IDT task gate nests the task"
  SET_GATE IDT_RAM, 0x40 * 8, SEL_N, 0, 0x85, 0
  TRY
  int 0x40
.after_int:
  CATCH
  EXPECT_IN_TASK SEL_CODE0, SEL_N
  EXPECT_EQ word [TSS_N], SEL_TSS, "back link"
  test dword [F_EFL], 0x4000
  EXPECT nz, "NT set"
  EXPECT_EQ dword [TSS_MAIN + 0x20], ABS(.after_int), "saved EIP after INT"

  TASK_CASE "an exception through a task gate pushes its error code on the new stack"
  SET_GATE IDT_RAM, 13 * 8, SEL_N, 0, 0x85, 0
  TRY
  mov ax, SEL_DATA0 | 3
.faulting:
  mov ds, ax
  CATCH
  RESTORE_IDT 13
  EXPECT_IN_TASK SEL_CODE0, SEL_N
  EXPECT_EQ dword [F_HESP], TASK_N_ESP - 4 - 12, "new ESP below the error code"
  EXPECT_EQ dword [F_RAW + 12], SEL_DATA0, "error code on the new stack"
  EXPECT_EQ dword [TSS_MAIN + 0x20], ABS(.faulting), "saved EIP = the faulting MOV"

  TASK_CASE "JMP to a busy TSS raises #GP(selector)"
  mov byte [GDT + SEL_N + 5], 0x8B
  JMP_TASK_N
  EXPECT_FAULT 13, SEL_N
  EXPECT_EQ dword [F_TR], SEL_TSS, "in the old task"

  TASK_CASE "JMP to a TSS with DPL < CPL raises #GP(selector)"
  FAULT_AT_CPL3 r3_jmp_n, 13, SEL_N

  TASK_CASE "a not-present TSS raises #NP(selector)"
  mov byte [GDT + SEL_N + 5], 0x09
  JMP_TASK_N
  EXPECT_FAULT 11, SEL_N

  TASK_CASE "a TSS limit below 67h raises #TS(selector) in the old task"
  mov word [GDT + SEL_N], 0x60
  TRY
  jmp SEL_N:0
.jmp_short_tss:
  CATCH
  EXPECT_FAULT 10, SEL_N
  EXPECT_EQ dword [F_TR], SEL_TSS, "in the old task"
  EXPECT_EQ dword [F_EIP], ABS(.jmp_short_tss) - 7, "EIP of the JMP"

  TASK_CASE "a not-present task gate raises #NP(gate selector)"
  SET_GATE GDT, SEL_GATE, SEL_N, 0, 0x05, 0
  TRY_ONE jmp SEL_GATE:0
  EXPECT_FAULT 11, SEL_GATE

  TASK_CASE "a task gate with DPL < CPL raises #GP(gate selector)"
  SET_GATE GDT, SEL_GATE, SEL_N, 0, 0x85, 0
  TRY_RING3 r3_jmp_gate
  EXPECT_FAULT 13, SEL_GATE

  TASK_CASE "a task gate naming a data segment raises #GP(that selector)"
  SET_GATE GDT, SEL_GATE, SEL_DATA0, 0, 0x85, 0
  TRY_ONE jmp SEL_GATE:0
  EXPECT_FAULT 13, SEL_DATA0

  TASK_CASE "IRET with NT and a back link to an available TSS raises #TS(link)"
  mov word [TSS_MAIN], SEL_N
  TRY
  pushfd
  or dword [esp], 0x4000
  popfd
  iretd
  CATCH
  EXPECT_FAULT 10, SEL_N
  mov word [TSS_MAIN], 0

  TASK_CASE "an invalid LDT in the new TSS raises #TS(LDT) in the new task"
  NEW_TASK_FAULT 0x60, SEL_DATA0, 10, SEL_DATA0
  EXPECT_EQ dword [F_EIP], ABS(task_arrive), "EIP = new task's"
  EXPECT_EQ byte [GDT + SEL_N + 5], 0x8B, "new task busy"

  TASK_CASE "a not-present CS in the new TSS raises #NP(CS) in the new task"
  SET_DESC GDT, 0xA0, 0, 0xFFFFF, 0x1A, 0xC
  NEW_TASK_FAULT 0x4C, 0xA0, 11, 0xA0
  EXPECT_EQ dword [F_CS], 0xA0, "pushed CS = the new task's"

  TASK_CASE "a new task's SS with RPL != CPL raises #TS(SS)"
  NEW_TASK_FAULT 0x50, SEL_DATA1, 10, SEL_DATA1 & 0xFFFC

  TASK_CASE "a new task's DS that is execute-only code raises #TS(DS)"
  SET_DESC GDT, 0xA8, 0, 0xFFFFF, 0x98, 0xC
  NEW_TASK_FAULT 0x54, 0xA8, 10, 0xA8

  TASK_CASE "a new task's not-present DS raises #NP(DS)"
  SET_DESC GDT, 0xB0, 0, 0xFFFFF, 0x12, 0xC
  NEW_TASK_FAULT 0x54, 0xB0, 11, 0xB0
  EXPECT_EQ dword [F_DS], 0xB0, "DS selector loaded"

  TASK_CASE "JMP to a 16-bit TSS loads the 16-bit task state"
  call make_task_16
  TRY_ONE jmp SEL_16:0
  EXPECT_IN_TASK SEL_CODE16, SEL_16
  EXPECT_EQ word [F_GPR], 0x1111, "AX from the 16-bit TSS"
  EXPECT_EQ dword [F_EIP], task16_int + 2, "IP from the 16-bit TSS"
  EXPECT_EQ byte [GDT + SEL_16 + 5], 0x83, "16-bit TSS busy (83h)"

  ; QUIRK (docs/protected-mode.md): the SDM says "not maintained"; the i386 loads FFFFh.
  TASK_CASE "a switch into a 16-bit TSS sets the upper halves of the general registers to FFFFh"
  call make_task_16
  mov eax, 0x00AB0000
  mov ecx, eax
  mov edx, eax
  mov ebx, eax
  mov ebp, eax
  mov esi, eax
  mov edi, eax
  TRY_ONE jmp SEL_16:0
  EXPECT_IN_TASK SEL_CODE16, SEL_16
  EXPECT_EQ dword [F_GPR], 0xFFFF1111, "EAX"
  EXPECT_EQ dword [F_GPR + 4], 0xFFFF2222, "ECX"
  EXPECT_EQ dword [F_GPR + 8], 0xFFFF3333, "EDX"
  EXPECT_EQ dword [F_GPR + 12], 0xFFFF4444, "EBX"
  EXPECT_EQ dword [F_GPR + 20], 0xFFFF6666, "EBP"
  EXPECT_EQ dword [F_GPR + 24], 0xFFFF7777, "ESI"
  EXPECT_EQ dword [F_GPR + 28], 0xFFFF8888, "EDI"

  TASK_CASE "a task switch sets CR0.TS"
  JMP_TASK_N
  test dword [F_CR0], 8
  EXPECT nz, "CR0.TS"

  TASK_CASE "the T bit raises #DB in the new task before its first instruction"
  mov word [TSS_N + 0x64], 1
  xor eax, eax
  mov dr6, eax
  JMP_TASK_N
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(task_arrive), "EIP = the task's first instruction"
  EXPECT_EQ dword [F_TR], SEL_N, "TR = new task"
  test dword [F_DR6], 0x8000
  EXPECT nz, "DR6.BT"

  TASK_CASE "a task switch clears the local breakpoint enables of DR7"
  xor eax, eax
  mov dr0, eax
  mov dr1, eax
  mov eax, 0x00000009            ; L0 and G1, execute breakpoints at address 0
  mov dr7, eax
  JMP_TASK_N
  mov eax, [F_DR7]
  and eax, 0xFF
  EXPECT_EQ eax, 0x08, "L0 cleared, G1 kept"
  xor eax, eax
  mov dr7, eax

  TASK_CASE "the new task's LDT is loaded from its TSS"
  SET_DESC GDT, SEL_LDT_N, LDT_N, 0xFF, 0x82, 0
  mov word [TSS_N + 0x60], SEL_LDT_N
  JMP_TASK_N
  EXPECT_ARRIVED SEL_CODE0
  EXPECT_EQ dword [F_LDTR], SEL_LDT_N, "LDTR"

  TASK_CASE "a task whose CS has RPL 3 runs at CPL 3"
  mov word [TSS_N + 0x4C], SEL_CODE3
  mov word [TSS_N + 0x50], SEL_DATA3
  mov word [TSS_N + 0x54], SEL_DATA3
  mov word [TSS_N + 0x48], SEL_DATA3
  mov word [TSS_N + 0x58], SEL_DATA3
  mov word [TSS_N + 0x5C], SEL_DATA3
  JMP_TASK_N
  EXPECT_ARRIVED SEL_CODE3
  EXPECT_EQ dword [F_SS], SEL_DATA3, "ring-3 SS pushed"
  EXPECT_EQ dword [F_ESP], TASK_N_ESP, "ring-3 ESP pushed"

  TASK_CASE "with paging on, CR3 is loaded from the new TSS and not saved"
  mov edi, PD1
  mov ecx, 0x800
  xor eax, eax
  rep stosd
  mov dword [PD1], 0x83            ; 4 MiB page at 0: present, writable, PS
  mov dword [PD2], 0x83
  mov eax, cr4
  or eax, 0x10                     ; PSE
  mov cr4, eax
  mov eax, PD1
  mov cr3, eax
  mov eax, cr0
  or eax, 0x80000000
  mov cr0, eax
  mov dword [TSS_N + 0x1C], PD2
  mov dword [TSS_MAIN + 0x1C], 0x12345000
  JMP_TASK_N
  mov eax, cr0
  and eax, 0x7FFFFFFF
  mov cr0, eax
  EXPECT_EQ dword [F_CR3], PD2, "CR3 = the new TSS's"
  EXPECT_EQ dword [TSS_MAIN + 0x1C], 0x12345000, "old TSS's CR3 field not written"
  mov dword [TSS_MAIN + 0x1C], 0

  DONE

r3_jmp_n:
  jmp (SEL_N | 3):0
r3_jmp_gate:
  jmp (SEL_GATE | 3):0

; The 16-bit TSS at TSS_16 (selector SEL_16, available): IP task16_arrive in SEL_CODE16,
; FLAGS 2, AX..DI = 1111h, 2222h, 3333h, 4444h, SP 5F00h, 6666h, 7777h, 8888h.
make_task_16:
  mov edi, TSS_16
  mov ecx, 0x2C / 4
  xor eax, eax
  rep stosd
  mov word [TSS_16 + 0x0E], task16_arrive
  mov word [TSS_16 + 0x10], 2
  mov word [TSS_16 + 0x12], 0x1111
  mov word [TSS_16 + 0x14], 0x2222
  mov word [TSS_16 + 0x16], 0x3333
  mov word [TSS_16 + 0x18], 0x4444
  mov word [TSS_16 + 0x1A], 0x5F00
  mov word [TSS_16 + 0x1C], 0x6666
  mov word [TSS_16 + 0x1E], 0x7777
  mov word [TSS_16 + 0x20], 0x8888
  mov word [TSS_16 + 0x22], SEL_DATA0
  mov word [TSS_16 + 0x24], SEL_CODE16
  mov word [TSS_16 + 0x26], SEL_STACK0
  mov word [TSS_16 + 0x28], SEL_DATA0
  mov word [TSS_16 + 0x2A], SEL_LDT
  SET_DESC GDT, SEL_16, TSS_16, 0x2B, 0x81, 0
  ret

; The 16-bit task's SS (SEL_STACK0) has B = 1 and the switch set ESP's upper half to
; FFFFh (the QUIRK above), so the task zero-extends SP before INT 30h uses the stack.
bits 16
task16_arrive:
  movzx esp, sp
task16_int:
  int ARRIVE_VECTOR
bits 32

ROM_END
