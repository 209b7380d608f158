; Fault-heavy benchmark: ITERATIONS times, ring-3 code executes IN EAX, DX, which
; raises #GP(0) (IOPL 0 and the TSS has no I/O permission bitmap); the ring-0 #GP
; handler checks the opcode, emulates the read (a counter), steps EIP past the
; one-byte instruction and returns with IRETD (an emulation trap as in a
; paravirtualised or trap-and-emulate kernel).
; Per round: 5 ring-3 instructions (IN faults and is counted as a delivery, not an
; instruction) and 10 handler instructions.
%include "bench.inc"

%define PORT_VALUE (SCRATCH + 0)

PAGING_ROM_START
PAGING_PM_ENTRY
  ; No I/O permission bitmap: the map base is at the TSS limit.
  mov word [TSS_RAM + 0x66], 0x68
  ; Vector 13 (#GP) to gp_handler: a 32-bit interrupt gate, DPL 0.
  mov eax, ABS(gp_handler)
  mov [IDT_RAM + 13 * 8], ax
  shr eax, 16
  mov [IDT_RAM + 13 * 8 + 6], ax
  mov dword [PORT_VALUE], 0
  USER_BEGIN
  mov ecx, ITERATIONS
  xor ebx, ebx
  mov dx, 0x400
  HASHED_ROUNDS in eax, dx          ; #GP(0), emulated
  USER_END
  mov eax, [SCRATCH + 4]
  jmp bench_exit

; #GP handler: frame = error code, EIP, CS, EFLAGS, ESP, SS.
gp_handler:
  push ebx
  mov ebx, [esp + 8]                ; faulting EIP
  cmp byte [ebx], 0xED              ; IN EAX, DX
  jne .unexpected
  inc dword [ss:PORT_VALUE]
  mov eax, [ss:PORT_VALUE]          ; the emulated port's value
  inc dword [esp + 8]               ; past the one-byte IN
  pop ebx
  add esp, 4                        ; error code
  iretd
.unexpected:
  PRINT32 "FAIL: unexpected #GP", 10
  jmp fail32

PAGING_GDT
ROM_END
