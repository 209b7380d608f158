; Real-mode stack and string instructions: PUSH/POP (PUSH SP pushes the old value),
; PUSHA/POPA, PUSHF/POPF, CALL/RET imm16, ENTER/LEAVE with nesting, LOOP/JCXZ,
; REP MOVSB/STOSW, REPE CMPSB, REPNE SCASB, LODSB, DF = 1 (SDM each page).
%include "rom.inc"

section .text
start:
  REAL_MODE_START

  ; PUSH SP pushes the value before the push (80286 and later).
  push sp
  pop ax
  CHECK_EQ ax, 0x7000, "PUSH SP pushes the old SP"
  ; PUSHA/POPA round trip, SP skipped on POPA.
  mov ax, 1
  mov cx, 2
  mov dx, 3
  mov bx, 4
  mov bp, 6
  mov si, 7
  mov di, 8
  pusha
  CHECK_EQ sp, 0x7000 - 16, "PUSHA moves SP by 16"
  mov ax, [0x7000 - 10]        ; the pushed SP value (order AX CX DX BX SP BP SI DI)
  CHECK_EQ ax, 0x7000, "PUSHA stores the original SP"
  xor ax, ax
  xor cx, cx
  xor bx, bx
  popa
  CHECK_EQ ax, 1, "POPA restores AX"
  CHECK_EQ bx, 4, "POPA restores BX"
  CHECK_EQ di, 8, "POPA restores DI"
  CHECK_EQ sp, 0x7000, "POPA restores SP"
  ; PUSHF/POPF.
  stc
  pushf
  clc
  popf
  CHECK c, "POPF restores CF"
  ; CALL / RET imm16.
  push word 0x1111
  push word 0x2222
  call callee
  CHECK_EQ sp, 0x7000, "RET 4 released the arguments"
  CHECK_EQ ax, 0x3333, "callee summed its arguments"
  ; ENTER 8,2 and LEAVE: frame pointer, copied display entry, locals.
  mov bp, 0x6F00
  enter 8, 2
  ; stack: [old BP=6F00] at 6FFE, [copy of [BP-2] from old frame] at 6FFC, [frame ptr 6FFE] at 6FFA
  CHECK_EQ bp, 0x6FFE, "ENTER sets BP to the frame"
  CHECK_EQ sp, 0x6FFA - 8, "ENTER reserves 8 bytes"
  mov ax, [0x6FFA]
  CHECK_EQ ax, 0x6FFE, "ENTER level 2 pushes the frame pointer"
  leave
  CHECK_EQ bp, 0x6F00, "LEAVE restores BP"
  CHECK_EQ sp, 0x7000, "LEAVE restores SP"
  ; LOOP counts CX down.
  mov cx, 5
  xor ax, ax
.loop:
  inc ax
  loop .loop
  CHECK_EQ ax, 5, "LOOP ran 5 times"
  jcxz .cx_zero
  jmp fail
.cx_zero:
  ; REP STOSW then REP MOVSB then REPE CMPSB.
  cld
  mov di, 0x2000
  mov ax, 0xA55A
  mov cx, 8
  rep stosw
  CHECK_EQ di, 0x2010, "REP STOSW advances DI"
  CHECK_EQ cx, 0, "REP STOSW counts CX to 0"
  mov si, 0x2000
  mov di, 0x3000
  mov cx, 16
  rep movsb
  mov si, 0x2000
  mov di, 0x3000
  mov cx, 16
  repe cmpsb
  CHECK z, "REPE CMPSB found equal blocks"
  CHECK_EQ cx, 0, "REPE CMPSB ran to the end"
  ; REPNE SCASB finds the first 5Ah (at 2000h: low byte of A55Ah).
  mov byte [0x3005], 0x77
  mov di, 0x3000
  mov al, 0x77
  mov cx, 16
  repne scasb
  CHECK z, "REPNE SCASB found the byte"
  CHECK_EQ di, 0x3006, "REPNE SCASB stops after the match"
  CHECK_EQ cx, 10, "REPNE SCASB count left"
  ; LODSB backwards with DF = 1.
  std
  mov si, 0x3005
  lodsb
  cld
  CHECK_EQ al, 0x77, "LODSB loads"
  CHECK_EQ si, 0x3004, "LODSB with DF=1 decrements SI"
  ; XLAT.
  mov bx, 0x3000
  mov al, 5
  xlatb
  CHECK_EQ al, 0x77, "XLAT"
  jmp pass

callee:
  push bp
  mov bp, sp
  mov ax, [bp + 4]
  add ax, [bp + 6]
  pop bp
  ret 4

ROM_END
