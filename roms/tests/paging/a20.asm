; The A20 gate (SDM Vol. 3 "Address Translation in Real-Address Mode" and the A20M#
; signal; PIIX data sheets, "Port 92 Register"): with the gate closed, physical
; address bit 20 is forced to 0, so FFFF:0010h and above wrap to the bottom of memory.
; The chipset ORs port 92h bit 1 with the keyboard controller's A20 output: the ROM
; first closes the keyboard controller's input (command D1h, output port DDh), then
; opens and closes the gate through port 92h alone.
%include "rom.inc"

%assign CASES 0
%macro CASE 2
  %assign CASES CASES+1
  CHECK %1, %2
%endmacro

section .text
bits 16
; Waits until the keyboard controller's input buffer is empty (bounded).
kbc_wait:
  push cx
  mov cx, 0xFFFF
.poll:
  in al, 0x64
  test al, 2
  jz .done
  loop .poll
.done:
  pop cx
  ret

; Writes AL to the keyboard controller's output port (command D1h).
kbc_output_port:
  push ax
  call kbc_wait
  mov al, 0xD1
  out 0x64, al
  call kbc_wait
  pop ax
  out 0x60, al
  call kbc_wait
  ret

start:
  REAL_MODE_START
  mov ax, 0xFFFF
  mov es, ax                        ; ES:0020h is physical 100010h

  mov al, 0xDD                      ; output port: reset inactive, A20 off
  call kbc_output_port
  in al, 0x92
  and al, 0xFC
  or al, 0x02
  out 0x92, al
  in al, 0x92
  test al, 0x02
  CASE nz, "port 92h reads back bit 1 set"
  mov byte [0x10], 0x11
  mov byte [es:0x20], 0x22
  cmp byte [0x10], 0x11
  CASE e, "gate open: FFFF:0020 is 100010h, not 10h"
  cmp byte [es:0x20], 0x22
  CASE e, "gate open: 100010h holds its own byte"

  ; Close the gate through port 92h.
  in al, 0x92
  and al, 0xFC
  out 0x92, al
  in al, 0x92
  test al, 0x02
  CASE z, "port 92h reads back bit 1 clear"
  mov byte [es:0x20], 0x33
  cmp byte [0x10], 0x33
  CASE e, "gate closed: a write to FFFF:0020 lands at 10h"
  mov byte [0x10], 0x44
  cmp byte [es:0x20], 0x44
  CASE e, "gate closed: a read of FFFF:0020 sees 10h"
  mov byte [0], 0x5A
  mov ax, [es:0x0F]                 ; FFFFFh (ROM) and 100000h -> 0
  cmp ah, 0x5A
  CASE e, "gate closed: a word read across 1 MiB wraps to address 0"

  ; Open it again.
  in al, 0x92
  or al, 0x02
  out 0x92, al
  mov byte [es:0x20], 0x66
  cmp byte [0x10], 0x44
  CASE e, "gate reopened: 10h is untouched by a write to 100010h"
  cmp byte [es:0x20], 0x66
  CASE e, "gate reopened: 100010h is memory of its own again"

  ; Either input keeps the gate open: the keyboard controller's A20 on, port 92h off.
  mov al, 0xDF
  call kbc_output_port
  in al, 0x92
  and al, 0xFC
  out 0x92, al
  mov byte [0x10], 0x77
  mov byte [es:0x20], 0x88
  cmp byte [0x10], 0x77
  CASE e, "port 92h bit 1 clear does not close a gate the keyboard controller holds open"

  %defstr CASES_TEXT CASES
  PRINT "cases: ", CASES_TEXT, 10
  jmp pass

ROM_END
