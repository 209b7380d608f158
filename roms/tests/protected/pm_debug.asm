; Single-step, the interrupt shadow, RF and the debug registers (Intel SDM Vol. 3,
; "Debug Registers", "Debug Exceptions", "Single-Step Exception Condition",
; "Instruction-Breakpoint Exception Condition", "Data Memory and I/O Breakpoint
; Exception Conditions", "General-Detect Exception Condition", "Masking Exceptions
; and Interrupts When Switching Stacks"; Vol. 2 "MOV", "POP", "STI"). One rule per case.
%include "rom.inc"
%include "pm.inc"
%include "protected.inc"

%define TF        0x100
%define RF        0x10000
%define DB_COUNT  T_VARS
%define SEEN_EFL  (T_VARS + 4)
%define WATCHED   SCRATCH

; SET_TF: the instruction after the POPFD is the first one single-stepped.
%macro SET_TF 0
  pushfd
  or dword [esp], TF
  popfd
%endmacro

%macro CLEAR_DEBUG 0
  xor eax, eax
  mov dr6, eax
  mov dr7, eax
%endmacro

tests:
  mov al, 0xFF                    ; mask both 8259As: STI is used below
  out 0x21, al
  out 0xA1, al

  CASE "TF raises #DB after the instruction that follows the POPF setting it"
  CLEAR_DEBUG
  TRY
  SET_TF
.a1:
  nop
.b1:
  nop
  CATCH
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.b1), "EIP after the first stepped instruction"
  test dword [F_DR6], 0x4000
  EXPECT nz, "DR6.BS"
  test dword [F_EFL], TF
  EXPECT nz, "pushed EFLAGS.TF"

  CASE "a POPF that clears TF is still followed by a single-step trap"
  CLEAR_DEBUG
  TRY
  pushfd
  SET_TF
  popfd
.after_popf:
  nop
  CATCH
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_popf), "EIP after the POPF"
  test dword [F_EFL], TF
  EXPECT z, "TF clear in the pushed EFLAGS"

  CASE "MOV SS delays the single-step trap until after the next instruction"
  CLEAR_DEBUG
  mov ax, SEL_STACK0
  TRY
  SET_TF
  mov ss, ax
  nop
.after_shadow:
  nop
  CATCH
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_shadow), "EIP two instructions after MOV SS"

  CASE "POP SS delays the single-step trap until after the next instruction"
  CLEAR_DEBUG
  TRY
  push ss
  SET_TF
  pop ss
  nop
.after_pop_ss:
  nop
  CATCH
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_pop_ss), "EIP two instructions after POP SS"

  CASE "STI does not delay the single-step trap"
  CLEAR_DEBUG
  TRY
  SET_TF
  sti
.after_sti:
  nop
  CATCH
  cli
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_sti), "EIP right after STI"

  CASE "the #DB handler runs with TF clear"
  CLEAR_DEBUG
  mov dword [DB_COUNT], 0
  SET_IDT 1, SEL_CODE0, ABS(db_flags_handler), 0x8E
  SET_TF
  nop
  nop
  RESTORE_IDT 1
  EXPECT_EQ dword [DB_COUNT], 1, "one #DB (the handler clears TF in the image)"
  test dword [SEEN_EFL], TF
  EXPECT z, "TF clear inside the handler"

  CASE "an instruction breakpoint raises #DB before the instruction with RF = 0 pushed"
  CLEAR_DEBUG
  mov eax, ABS(.bp)
  mov dr0, eax
  mov eax, 0x00000001            ; L0, execute, one byte
  mov dr7, eax
  TRY
  nop
.bp:
  nop
  CATCH
  CLEAR_DEBUG
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.bp), "EIP of the breakpointed instruction"
  test dword [F_DR6], 1
  EXPECT nz, "DR6.B0"
  test dword [F_EFL], RF
  EXPECT z, "RF clear in the pushed EFLAGS"

  CASE "IRET with RF = 1 runs the breakpointed instruction without a second #DB"
  CLEAR_DEBUG
  mov dword [DB_COUNT], 0
  SET_IDT 1, SEL_CODE0, ABS(db_rf_handler), 0x8E
  mov eax, ABS(.bp2)
  mov dr0, eax
  mov eax, 0x00000001
  mov dr7, eax
  xor eax, eax
.bp2:
  mov eax, 0x1234
  mov ebx, eax
  CLEAR_DEBUG
  RESTORE_IDT 1
  EXPECT_EQ dword [DB_COUNT], 1, "one #DB"
  EXPECT_EQ ebx, 0x1234, "the instruction ran after the IRET"

  CASE "a write breakpoint traps after the writing instruction with DR6.B1"
  CLEAR_DEBUG
  mov eax, WATCHED
  mov dr1, eax
  mov eax, 0x00D00004            ; L1, write, four bytes
  mov dr7, eax
  TRY
  mov dword [WATCHED], 5
.after_write:
  nop
  CATCH
  CLEAR_DEBUG
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_write), "EIP after the write"
  test dword [F_DR6], 2
  EXPECT nz, "DR6.B1"
  EXPECT_EQ dword [WATCHED], 5, "the write happened"

  CASE "a write breakpoint ignores reads"
  CLEAR_DEBUG
  mov eax, WATCHED
  mov dr1, eax
  mov eax, 0x00D00004
  mov dr7, eax
  TRY
  mov eax, [WATCHED]
  nop
  CATCH
  CLEAR_DEBUG
  EXPECT_NO_FAULT

  CASE "a read/write breakpoint traps on a read"
  CLEAR_DEBUG
  mov eax, WATCHED
  mov dr1, eax
  mov eax, 0x00F00004            ; L1, read or write, four bytes
  mov dr7, eax
  TRY
  mov eax, [WATCHED]
.after_read:
  nop
  CATCH
  CLEAR_DEBUG
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_read), "EIP after the read"

  CASE "a two-byte breakpoint covers both bytes of its word"
  CLEAR_DEBUG
  mov eax, WATCHED + 2
  mov dr1, eax
  mov eax, 0x00500004            ; L1, write, two bytes
  mov dr7, eax
  TRY
  mov byte [WATCHED + 3], 7
  nop
  CATCH
  CLEAR_DEBUG
  EXPECT_FAULT 1, NO_FAULT
  test dword [F_DR6], 2
  EXPECT nz, "DR6.B1"

  CASE "a breakpoint with L and G clear does not trap"
  CLEAR_DEBUG
  mov eax, WATCHED
  mov dr1, eax
  mov eax, 0x00D00000
  mov dr7, eax
  TRY
  mov dword [WATCHED], 9
  nop
  CATCH
  CLEAR_DEBUG
  EXPECT_NO_FAULT

  CASE "a data breakpoint hit by MOV SS is reported after the next instruction"
  CLEAR_DEBUG
  mov word [WATCHED], SEL_STACK0
  mov eax, WATCHED
  mov dr1, eax
  mov eax, 0x00700004            ; L1, read or write, two bytes
  mov dr7, eax
  TRY
  mov ss, [WATCHED]
  nop
.after_mov_ss:
  nop
  CATCH
  CLEAR_DEBUG
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.after_mov_ss), "EIP two instructions after MOV SS"
  test dword [F_DR6], 2
  EXPECT nz, "DR6.B1"

  CASE "MOV from a debug register with DR7.GD raises #DB with DR6.BD and clears GD"
  CLEAR_DEBUG
  mov eax, 0x2000
  mov dr7, eax
  TRY
.gd:
  mov eax, dr0
  CATCH
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.gd), "EIP of the MOV (a fault)"
  test dword [F_DR6], 0x2000
  EXPECT nz, "DR6.BD"
  test dword [F_DR7], 0x2000
  EXPECT z, "GD cleared"
  CLEAR_DEBUG

  CASE "MOV to DR7 at CPL 3 raises #GP(0)"
  TRY_RING3 r3_mov_dr7
  EXPECT_FAULT 13, 0

  CASE "DR4 with CR4.DE = 1 raises #UD"
  mov eax, cr4
  or eax, 8
  mov cr4, eax
  TRY_ONE mov eax, dr4
  mov eax, cr4
  and eax, ~8
  mov cr4, eax
  EXPECT_FAULT 6, NO_FAULT

  CASE "DR4 reads DR6 with CR4.DE = 0"
  CLEAR_DEBUG
  mov eax, dr6
  mov ebx, dr4
  EXPECT_EQ eax, ebx, "DR4 = DR6"
  EXPECT_EQ eax, 0xFFFF0FF0, "DR6 after clearing"

  ; Vol. 3 "Debug Exceptions" (RF): a trap taken between iterations of a repeated
  ; string instruction pushes RF = 1, and the pushed EIP is the instruction's own.
  CASE "a single-step trap between iterations of REP MOVSB pushes its EIP and RF = 1"
  CLEAR_DEBUG
  cld
  mov ecx, 3
  mov esi, SCRATCH
  mov edi, SCRATCH + 0x100
  TRY
  SET_TF
.rep_movs:
  rep movsb
  CATCH
  EXPECT_FAULT 1, NO_FAULT
  EXPECT_EQ dword [F_EIP], ABS(.rep_movs), "EIP of the REP MOVSB"
  test dword [F_EFL], RF
  EXPECT nz, "RF set in the pushed EFLAGS"

  ; QUIRK (cpu/exec_string.cpp): REPE CMPS shows the comparisons' flags only when it
  ; completes; stopped between iterations, EFLAGS are those from before it.
  CASE "REPE CMPSB stopped by a single-step trap keeps the flags from before it"
  CLEAR_DEBUG
  mov dword [SCRATCH], 0x00333333
  mov dword [SCRATCH + 0x100], 0x00333333
  mov ecx, 3
  mov esi, SCRATCH
  mov edi, SCRATCH + 0x100
  xor eax, eax
  cmp eax, 1                      ; CF = 1, ZF = 0
  TRY
  SET_TF
  repe cmpsb
  CATCH
  EXPECT_FAULT 1, NO_FAULT
  mov eax, [F_EFL]
  and eax, 0x41                   ; ZF and CF
  EXPECT_EQ eax, 1, "CF = 1 and ZF = 0 in the pushed EFLAGS"

  DONE

db_flags_handler:
  pushfd
  pop dword [SEEN_EFL]
  inc dword [DB_COUNT]
  and dword [esp + 8], ~TF
  iretd

db_rf_handler:
  inc dword [DB_COUNT]
  or dword [esp + 8], RF
  iretd

r3_mov_dr7:
  mov dr7, eax

ROM_END
