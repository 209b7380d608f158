; Fault-heavy benchmark with data beside the handler code: ITERATIONS times, ring-3
; code executes a load that faults, and a ring-0 handler in RAM emulates it, counting
; the emulations in a variable stored right after its own code (the same 4 KiB page
; and the same 64-byte block: data next to code, as in real kernels). Every round
; therefore writes into a page that holds decoded instructions without changing any
; of them (Intel SDM Vol. 3, "Self-Modifying Code": only writes into instruction
; bytes need to be seen).
;   default      MOV EAX, [GS:-8] with GS's limit truncated to FFFFEFFFh (G = 1,
;                limit FFFFEh): offset FFFFFFF8h is beyond it, #GP(0); the handler
;                emulates the load (a TLS-style access emulated by a trap handler).
;   PAGE_FAULT   MOV EAX, [80000h], a not-present page: #PF; the handler checks CR2.
; The handler steps the saved EIP past the 6-byte (5-byte) load and returns with
; IRETD. Per round: 5 ring-3 instructions (the load faults and is counted as a
; delivery, not an instruction) and 10 (#PF: 12) handler instructions.
; The checksum is the user loop's hash of the emulated values (1, 2, 3, ...).
%include "bench.inc"

%define HANDLER_RAM 0x40000     ; the handler and its counter, copied from the ROM
%define RAM(x) (HANDLER_RAM + (x) - handler_start)
%define TRUNCATED_GS 0x3B       ; GDT entry 38h, RPL 3
%define LOAD_ADDRESS WINDOW     ; not present (paging.inc)

PAGING_ROM_START
PAGING_PM_ENTRY
  cld
  mov esi, ABS(handler_start)
  mov edi, HANDLER_RAM
  mov ecx, handler_end - handler_start
  rep movsb
%ifdef PAGE_FAULT
  %define VECTOR 14
%else
  %define VECTOR 13
%endif
  ; The vector's interrupt gate (DPL 0) to the RAM copy.
  mov eax, HANDLER_RAM
  mov [IDT_RAM + VECTOR * 8], ax
  shr eax, 16
  mov [IDT_RAM + VECTOR * 8 + 6], ax
  USER_BEGIN
  mov ax, TRUNCATED_GS
  mov gs, ax
  mov ecx, ITERATIONS
  xor ebx, ebx
%ifdef PAGE_FAULT
  HASHED_ROUNDS mov eax, [LOAD_ADDRESS]     ; #PF (not present), emulated
%else
  HASHED_ROUNDS mov eax, [gs:dword -8]      ; #GP(0) (beyond GS's limit), emulated
%endif
  USER_END
  mov eax, [RAM(counter)]
  cmp eax, ITERATIONS
  jne unexpected_count
  mov eax, [SCRATCH + 4]
  jmp bench_exit
unexpected_count:
  PRINT32 "FAIL: the handler ran a different number of times", 10
  jmp fail32
unexpected_fault:
  PRINT32 "FAIL: unexpected fault in the emulating handler", 10
  jmp fail32

; The handler, position-independent (copied to HANDLER_RAM). Frame: error code,
; EIP, CS, EFLAGS, ESP, SS.
handler_start:
  push ebx
%ifdef PAGE_FAULT
  mov ebx, cr2
  cmp ebx, LOAD_ADDRESS
  jne .unexpected
%endif
  mov ebx, [ss:esp + 8]             ; faulting EIP
%ifdef PAGE_FAULT
  cmp byte [ss:ebx], 0xA1           ; MOV EAX, moffs32
  %define LOAD_LENGTH 5
%else
  cmp word [ss:ebx], 0xA165         ; GS: MOV EAX, moffs32
  %define LOAD_LENGTH 6
%endif
  jne .unexpected
  inc dword [ss:RAM(counter)]       ; the data beside the code
  mov eax, [ss:RAM(counter)]        ; the emulated load's value
  add dword [ss:esp + 8], LOAD_LENGTH
  pop ebx
  add esp, 4                        ; error code
  iretd
.unexpected:
  mov eax, ABS(unexpected_fault)
  jmp eax
counter: dd 0
handler_end:

align 8
paging_gdt:                                ; PAGING_GDT's entries and a truncated GS
  dq 0
  DESCRIPTOR 0, 0xFFFFF, 0x9A, 0xC        ; 08h: flat 32-bit code, DPL 0
  DESCRIPTOR 0, 0xFFFFF, 0x92, 0xC        ; 10h: flat data, DPL 0
  DESCRIPTOR 0, 0xFFFFF, 0xFA, 0xC        ; 18h: flat 32-bit code, DPL 3
  DESCRIPTOR 0, 0xFFFFF, 0xF2, 0xC        ; 20h: flat data, DPL 3
  DESCRIPTOR TSS_RAM, 0x67, 0x89, 0x0     ; 28h: 32-bit TSS
  DESCRIPTOR WINDOW, 0xFFFFF, 0x92, 0xC   ; 30h: data with base WINDOW, DPL 0
  DESCRIPTOR 0, 0xFFFFE, 0xF2, 0xC        ; 38h: data, limit FFFFEFFFh, DPL 3
paging_gdt_end:
ROM_END
