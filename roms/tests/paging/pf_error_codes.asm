; #PF error codes (SDM Vol. 3 "Page-Fault Exceptions", "Page-Fault Error Code"):
; P = 0 for a not-present entry and 1 for a protection violation, W/R = 1 for a
; write, U/S = 1 for an access at CPL 3; CR2 holds the linear address and the pushed
; EIP is the faulting instruction. Covers not-present tables and pages, supervisor
; pages, read-only pages, rights combined over both levels, and instruction fetches.
%include "rom.inc"
%include "pm.inc"
%include "paging.inc"

%define W0 (WINDOW + 0x0000)      ; not present
%define W1 (WINDOW + 0x1000)      ; supervisor, writable
%define W2 (WINDOW + 0x2000)      ; user, read-only
%define W3 (WINDOW + 0x3000)      ; not present (fetch tests)
%define PT2 0x23000               ; table behind a supervisor directory entry
%define PT3 0x24000               ; table behind a read-only directory entry

PAGING_ROM_START
PAGING_PM_ENTRY
  mov dword [PTE(W1)], 0x31000 | P | W
  mov dword [PTE(W2)], 0x32000 | P | U
  mov dword [0x32010], 0x600DF00D
  ; Directory entry 2 (800000h): supervisor; its table maps a user page.
  mov dword [PDE(0x800000)], PT2 | P | W
  mov dword [PT2], 0x33000 | P | W | U
  ; Directory entry 4 (1000000h): read-only; its table maps a writable user page.
  mov dword [PDE(0x1000000)], PT3 | P | U
  mov dword [PT3], 0x34000 | P | W | U

  ; Supervisor read of a not-present page.
  TRY
.read_np:
  mov eax, [W0 + 0x123]
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 14, "supervisor read of a not-present page raises #PF"
  CASE_EQ dword [FAULT_CODE], 0, "not-present supervisor read: error code 0"
  CASE_EQ dword [FAULT_CR2], W0 + 0x123, "CR2 is the linear address of the read"
  CASE_EQ dword [FAULT_EIP], ABS(.read_np), "the pushed EIP is the faulting instruction"

  ; Supervisor write of a not-present page.
  TRY
  mov dword [W0 + 0xFF0], 1
  END_TRY
  CASE_EQ dword [FAULT_CODE], 2, "not-present supervisor write: error code 2"
  CASE_EQ dword [FAULT_CR2], W0 + 0xFF0, "CR2 of the write"

  ; CPL 3 reads and writes of a not-present page.
  USER_BEGIN
  TRY
  mov eax, [W0 + 4]
  END_TRY
  mov eax, [FAULT_CODE]
  mov [SCRATCH], eax
  TRY
  mov [W0 + 8], eax
  END_TRY
  USER_END
  CASE_EQ dword [SCRATCH], 4, "not-present user read: error code 4"
  CASE_EQ dword [FAULT_CODE], 6, "not-present user write: error code 6"
  CASE_EQ dword [FAULT_CR2], W0 + 8, "CR2 of the user write"

  ; CPL 3 access to a supervisor page.
  USER_BEGIN
  TRY
  mov eax, [W1 + 0x10]
  END_TRY
  mov eax, [FAULT_CODE]
  mov [SCRATCH], eax
  TRY
  mov byte [W1 + 0x20], 1
  END_TRY
  USER_END
  CASE_EQ dword [SCRATCH], 5, "user read of a supervisor page: error code 5"
  CASE_EQ dword [FAULT_CODE], 7, "user write of a supervisor page: error code 7"
  cmp byte [W1 + 0x20], 0
  CASE e, "the faulting user write changed nothing"

  ; CPL 3 access to a read-only user page.
  USER_BEGIN
  TRY
  mov eax, [W2 + 0x10]
  END_TRY
  mov [SCRATCH], eax
  mov eax, [FAULT_VECTOR]
  mov [SCRATCH + 4], eax
  TRY
  mov word [W2 + 0x10], 0
  END_TRY
  USER_END
  CASE_EQ dword [SCRATCH + 4], 0xFF, "user read of a read-only user page does not fault"
  CASE_EQ dword [SCRATCH], 0x600DF00D, "and reads the frame's data"
  CASE_EQ dword [FAULT_CODE], 7, "user write of a read-only page: error code 7"
  CASE_EQ dword [FAULT_CR2], W2 + 0x10, "CR2 of the read-only write"

  ; Supervisor write of a read-only user page with CR0.WP = 0: allowed.
  TRY
  mov dword [W2 + 0x14], 0x12345678
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 0xFF, "supervisor write to a read-only page with WP = 0 does not fault"
  CASE_EQ dword [0x32014], 0x12345678, "and reaches the frame"

  ; Not-present directory entries.
  TRY
  mov eax, [0x00C00010]
  END_TRY
  CASE_EQ dword [FAULT_CODE], 0, "not-present directory entry, supervisor read: error code 0"
  CASE_EQ dword [FAULT_CR2], 0x00C00010, "CR2 for a not-present directory entry"
  USER_BEGIN
  TRY
  mov dword [0x00C00020], 0
  END_TRY
  USER_END
  CASE_EQ dword [FAULT_CODE], 6, "not-present directory entry, user write: error code 6"

  ; Rights combine over both levels.
  mov eax, [0x800000]
  USER_BEGIN
  TRY
  mov eax, [0x800000]
  END_TRY
  mov eax, [FAULT_CODE]
  mov [SCRATCH], eax
  TRY
  mov eax, [0x1000000]
  END_TRY
  mov eax, [FAULT_VECTOR]
  mov [SCRATCH + 4], eax
  TRY
  mov dword [0x1000000], 0
  END_TRY
  USER_END
  CASE_EQ dword [SCRATCH], 5, "user read through a supervisor directory entry: error code 5"
  CASE_EQ dword [SCRATCH + 4], 0xFF, "user read through a read-only directory entry does not fault"
  CASE_EQ dword [FAULT_CODE], 7, "user write through a read-only directory entry: error code 7"

  ; Instruction fetches.
  TRY
  mov eax, W3
  jmp eax
  END_TRY
  CASE_EQ dword [FAULT_CODE], 0, "supervisor fetch from a not-present page: error code 0"
  CASE_EQ dword [FAULT_CR2], W3, "CR2 is the fetch address"
  CASE_EQ dword [FAULT_EIP], W3, "the pushed EIP is the jump target"
  USER_BEGIN
  TRY
  mov eax, W3 + 0x10
  jmp eax
  END_TRY
  mov eax, [FAULT_CODE]
  mov [SCRATCH], eax
  TRY
  mov eax, W1 + 0x10
  jmp eax
  END_TRY
  USER_END
  CASE_EQ dword [SCRATCH], 4, "user fetch from a not-present page: error code 4"
  CASE_EQ dword [FAULT_CODE], 5, "user fetch from a supervisor page: error code 5"
  CASE_EQ dword [FAULT_CR2], W1 + 0x10, "CR2 of the user fetch"
  CASE_EQ dword [FAULT_COUNT], 14, "fourteen page faults were taken, no spurious ones"
  FINISH

section .rodata
PAGING_GDT

ROM_END
