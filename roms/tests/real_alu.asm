; Real-mode arithmetic and flags against values worked from the SDM's operation
; sections (ADD/ADC/SUB/SBB/NEG flags, DAA's worked example, MUL/IMUL/DIV/IDIV,
; shifts and rotates with their CF/OF rules, BSF/BSR, BT, XCHG, XADD, CMPXCHG).
%include "rom.inc"

section .text
start:
  REAL_MODE_START

  ; ADD: 7Fh + 1 = 80h sets OF and SF, clears CF and ZF; AF from bit 3 carry.
  mov al, 0x7F
  add al, 1
  CHECK o, "ADD 7F+1 sets OF"
  CHECK s, "ADD 7F+1 sets SF"
  CHECK nc, "ADD 7F+1 clears CF"
  CHECK_EQ al, 0x80, "ADD 7F+1 = 80"
  ; ADD FFh + 1 = 0 with CF and ZF.
  mov al, 0xFF
  add al, 1
  CHECK c, "ADD FF+1 sets CF"
  CHECK z, "ADD FF+1 sets ZF"
  ; ADC uses CF: 0 + 0 + CF(1) = 1.
  stc
  mov ax, 0
  adc ax, 0
  CHECK_EQ ax, 1, "ADC 0+0+CF = 1"
  ; SUB 0 - 1 = FFFFh with CF (borrow) and SF.
  xor bx, bx
  sub bx, 1
  CHECK c, "SUB 0-1 sets CF"
  CHECK_EQ bx, 0xFFFF, "SUB 0-1 = FFFF"
  ; SBB with borrow: 5 - 3 - 1 = 1.
  stc
  mov cx, 5
  sbb cx, 3
  CHECK_EQ cx, 1, "SBB 5-3-CF = 1"
  ; NEG 0 clears CF; NEG 1 sets it.
  xor ax, ax
  neg ax
  CHECK nc, "NEG 0 clears CF"
  mov ax, 1
  neg ax
  CHECK c, "NEG 1 sets CF"
  CHECK_EQ ax, 0xFFFF, "NEG 1 = FFFF"
  ; INC leaves CF alone.
  stc
  mov ax, 0xFFFF
  inc ax
  CHECK c, "INC keeps CF"
  CHECK z, "INC FFFF sets ZF"
  ; SDM DAA example: AL = 79h + 35h = AEh; DAA -> 14h, CF = 1, AF = 1.
  mov al, 0x79
  add al, 0x35
  daa
  CHECK c, "DAA example sets CF"
  CHECK_EQ al, 0x14, "DAA 79+35 = 14 (carry)"
  ; DAS: 35h - 47h = EEh; DAS -> 88h with CF.
  mov al, 0x35
  sub al, 0x47
  das
  CHECK c, "DAS 35-47 sets CF"
  CHECK_EQ al, 0x88, "DAS 35-47 = 88"
  ; SDM DAS operation: CF := old_CF or the borrow out of AL - 6. 10h - 0Dh = 03h with
  ; AF = 1 and CF = 0; DAS -> AL = FDh and CF = 1 (borrow), no 60h adjust.
  mov al, 0x10
  sub al, 0x0D
  das
  CHECK c, "DAS 03 with AF sets CF from the borrow"
  CHECK_EQ al, 0xFD, "DAS 03 with AF = FD"
  ; AAM: AL = 63 -> AH = 6, AL = 3.
  mov al, 63
  aam
  CHECK_EQ ax, 0x0603, "AAM 63 = 0603"
  ; AAD: AX = 0603h -> AL = 63, AH = 0.
  aad
  CHECK_EQ ax, 63, "AAD 0603 = 63"
  ; MUL: FFh * FFh = FE01h with CF = OF = 1.
  mov al, 0xFF
  mov bl, 0xFF
  mul bl
  CHECK c, "MUL FF*FF sets CF"
  CHECK_EQ ax, 0xFE01, "MUL FF*FF = FE01"
  ; IMUL: -1 * -1 = 1 with CF = OF = 0.
  mov al, 0xFF
  imul bl
  CHECK nc, "IMUL -1*-1 clears CF"
  CHECK_EQ ax, 1, "IMUL -1*-1 = 1"
  ; DIV: DX:AX = 1_0000h / 3 = 5555h rem 1.
  mov dx, 1
  xor ax, ax
  mov cx, 3
  div cx
  CHECK_EQ ax, 0x5555, "DIV 10000/3 quotient"
  CHECK_EQ dx, 1, "DIV 10000/3 remainder"
  ; IDIV: -7 / 2 = -3 rem -1 (truncation toward zero).
  mov ax, -7
  cwd
  mov cx, 2
  idiv cx
  CHECK_EQ ax, -3, "IDIV -7/2 quotient"
  CHECK_EQ dx, -1, "IDIV -7/2 remainder"
  ; SHL by 1: 80h -> 0 with CF = 1, OF = 1 (MSB xor CF).
  mov al, 0x80
  shl al, 1
  CHECK c, "SHL 80 sets CF"
  CHECK o, "SHL 80 by 1 sets OF"
  ; SAR keeps the sign: F0h >> 2 = FCh.
  mov al, 0xF0
  sar al, 2
  CHECK_EQ al, 0xFC, "SAR F0 by 2"
  ; ROL 81h by 1 = 03h with CF = 1.
  mov al, 0x81
  rol al, 1
  CHECK c, "ROL 81 sets CF"
  CHECK_EQ al, 0x03, "ROL 81 by 1"
  ; RCR through carry: CF=1, 00h -> 80h with CF = 0.
  stc
  mov al, 0
  rcr al, 1
  CHECK nc, "RCR clears CF"
  CHECK_EQ al, 0x80, "RCR 00 with CF"
  ; Shift count 0 changes no flags.
  stc
  mov cl, 0
  shl ax, cl
  CHECK c, "SHL by 0 keeps CF"
  ; BSF/BSR.
  mov ax, 0x0120
  bsf bx, ax
  CHECK_EQ bx, 5, "BSF 0120 = 5"
  bsr bx, ax
  CHECK_EQ bx, 8, "BSR 0120 = 8"
  ; BSF of 0 sets ZF and keeps the destination.
  mov bx, 0x1234
  xor ax, ax
  bsf bx, ax
  CHECK z, "BSF 0 sets ZF"
  CHECK_EQ bx, 0x1234, "BSF 0 keeps destination"
  ; BT/BTS.
  mov ax, 0x0004
  bt ax, 2
  CHECK c, "BT bit 2"
  bts ax, 0
  CHECK nc, "BTS old bit 0 clear"
  CHECK_EQ ax, 5, "BTS sets bit 0"
  ; XADD and CMPXCHG.
  mov ax, 10
  mov bx, 5
  xadd ax, bx
  CHECK_EQ ax, 15, "XADD sum"
  CHECK_EQ bx, 10, "XADD old value"
  mov ax, 15
  mov cx, 99
  cmpxchg bx, cx      ; AX (15) != BX (10): AX <- 10, ZF = 0
  CHECK nz, "CMPXCHG unequal clears ZF"
  CHECK_EQ ax, 10, "CMPXCHG unequal loads AX"
  cmpxchg bx, cx      ; now equal: BX <- 99
  CHECK z, "CMPXCHG equal sets ZF"
  CHECK_EQ bx, 99, "CMPXCHG equal stores"
  ; CBW/CWD sign extension; MOVSX/MOVZX.
  mov al, 0x80
  cbw
  CHECK_EQ ax, 0xFF80, "CBW 80"
  mov bl, 0xF0
  movsx cx, bl
  CHECK_EQ cx, 0xFFF0, "MOVSX F0"
  movzx cx, bl
  CHECK_EQ cx, 0x00F0, "MOVZX F0"
  ; SETcc and CMOVcc.
  mov ax, 1
  cmp ax, 2
  setl dl
  CHECK_EQ dl, 1, "SETL 1<2"
  mov bx, 7
  cmp ax, 2
  cmovl ax, bx
  CHECK_EQ ax, 7, "CMOVL taken"
  jmp pass

ROM_END
