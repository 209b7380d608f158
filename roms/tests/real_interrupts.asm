; Real-mode interrupt delivery through the IVT (SDM "Exception and Interrupt Handling
; in Real-Address Mode"): INT n pushes FLAGS, CS, IP and clears IF/TF; #DE from DIV
; returns to the faulting instruction; #UD from UD2; INTO when OF=1; BOUND #BR; PUSHA
; with SP = 15 raises #GP before writing a register (SDM "PUSHA/PUSHAD").
%include "rom.inc"

section .text
start:
  REAL_MODE_START
  SET_VECTOR 0x40, int40
  SET_VECTOR 0, divide_error
  SET_VECTOR 6, invalid_opcode
  SET_VECTOR 4, overflow
  SET_VECTOR 5, bound_range
  SET_VECTOR 13, general_protection
  SET_VECTOR 12, stack_fault  ; not expected: a peer that takes #SS at PUSHA reports it

  ; INT 40h: the handler sees the pushed frame and IF cleared.
  sti
  mov word [0x600], 0
  int 0x40
.after_int:
  CHECK_EQ word [0x600], 0x4040, "INT 40h handler ran"
  CHECK_EQ word [0x602], .after_int, "INT pushed the next IP"
  CHECK_EQ word [0x604], 0xF000, "INT pushed CS"
  CHECK_EQ word [0x608], 0, "INT cleared IF in the handler"
  ; #DE: the pushed IP is the DIV itself; the handler skips the 2-byte instruction.
  xor dx, dx
  mov ax, 1
  xor cx, cx
.div:
  div cx
  CHECK_EQ word [0x610], .div, "#DE pushes the faulting IP"
  ; #UD from UD2, handler skips 2 bytes.
.ud:
  ud2
  CHECK_EQ word [0x620], .ud, "#UD pushes the faulting IP"
  ; INTO traps after the instruction when OF=1.
  mov al, 0x7F
  add al, 1
  into
.after_into:
  CHECK_EQ word [0x630], .after_into, "INTO pushes the next IP"
  ; BOUND: 5 is outside [0, 3] -> #BR with IP at BOUND.
  mov word [0x700], 0
  mov word [0x702], 3
  mov ax, 5
.bound:
  bound ax, [0x700]
  CHECK_EQ word [0x640], .bound, "#BR pushes the faulting IP"
  ; IRET restored FLAGS: IF is set again after the INT 40h return.
  pushf
  pop ax
  test ax, 0x200
  CHECK nz, "IRET restored IF"
  ; PUSHA with SP = 15 on the stack at 2000:0: its pushes would straddle the wrap at
  ; offset FFFFh, so #GP comes first and none of its words (offsets 1-14) is written;
  ; the delivery's frame takes offsets 9-14 and the handler's PUSH BP 7-8, above the
  ; poisoned words at 1-6.
  mov ax, 0x2000
  mov es, ax
  mov word [0x660], 0
  mov word [es:0x0001], 0xA5A5
  mov word [es:0x0003], 0xA5A5
  mov word [es:0x0005], 0xA5A5
  mov ss, ax
  mov sp, 15
.pusha:
  pusha
  mov bx, sp
  xor ax, ax
  mov ss, ax
  mov sp, 0x7000
  CHECK_EQ word [0x660], 0, "PUSHA with SP = 15 raises no #SS"
  CHECK_EQ word [0x650], .pusha, "PUSHA with SP = 15 raises #GP at the PUSHA"
  CHECK_EQ bx, 15, "PUSHA with SP = 15 leaves SP"
  mov ax, [es:0x0001]
  and ax, [es:0x0003]
  and ax, [es:0x0005]
  CHECK_EQ ax, 0xA5A5, "PUSHA with SP = 15 writes no register"
  xor ax, ax
  mov es, ax
  jmp pass

int40:
  mov word [0x600], 0x4040
  push bp
  mov bp, sp
  mov ax, [bp + 2]            ; IP
  mov [0x602], ax
  mov ax, [bp + 4]            ; CS
  mov [0x604], ax
  pushf
  pop ax
  and ax, 0x200
  mov [0x608], ax
  pop bp
  iret

; Fault handlers record the pushed IP at %1 and advance it by %2 bytes (past the
; faulting instruction; 0 for traps, whose pushed IP is already the next one).
%macro RECORDING_HANDLER 3
%1:
  push bp
  mov bp, sp
  mov ax, [bp + 2]
  mov [%2], ax
  add word [bp + 2], %3
  pop bp
  iret
%endmacro

RECORDING_HANDLER divide_error, 0x610, 2
RECORDING_HANDLER invalid_opcode, 0x620, 2
RECORDING_HANDLER overflow, 0x630, 0
RECORDING_HANDLER bound_range, 0x640, 4       ; BOUND AX,[disp16] is 4 bytes
RECORDING_HANDLER general_protection, 0x650, 1  ; PUSHA is 1 byte
RECORDING_HANDLER stack_fault, 0x660, 1         ; PUSHA is 1 byte

ROM_END
