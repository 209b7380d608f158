; CR0.WP and 4 MiB pages (SDM Vol. 3 "Paging": "Access Rights" with CR0.WP,
; "32-Bit Paging" with CR4.PSE and the PS flag, "Accessed and Dirty Flags").
; WP = 0 lets supervisor code write read-only pages; WP = 1 makes it fault with
; error code 3. With CR4.PSE = 1 a directory entry with PS = 1 maps 4 MiB (its own
; A and D bits); with PSE = 0 the PS flag is ignored and the entry points at a table.
%include "rom.inc"
%include "pm.inc"
%include "paging.inc"

%define RO (WINDOW + 0x0000)      ; supervisor, read-only -> frame 30000h
%define RO_USER (WINDOW + 0x1000) ; user, read-only -> frame 31000h
%define BIG 0x00800000            ; directory entry 2
%define PT2 0x00400000            ; a table at 4 MiB (one-to-one mapped through PT1)

PAGING_ROM_START
PAGING_PM_ENTRY
  mov dword [PTE(RO)], 0x30000 | P
  mov dword [PTE(RO_USER)], 0x31000 | P | U

  ; WP = 0: supervisor writes to read-only pages succeed and set D.
  TRY
  mov dword [RO + 0x10], 0x11111111
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 0xFF, "WP = 0: supervisor write to a read-only page does not fault"
  CASE_EQ dword [0x30010], 0x11111111, "WP = 0: the write reaches the frame"
  test dword [PTE(RO)], D
  CASE nz, "WP = 0: the write sets D in the read-only page's entry"

  ; WP = 1: the same write faults with P and W/R set.
  mov eax, cr0
  or eax, 0x10000
  mov cr0, eax
  TRY
  mov dword [RO + 0x10], 0x22222222
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 14, "WP = 1: supervisor write to a read-only page raises #PF"
  CASE_EQ dword [FAULT_CODE], 3, "WP = 1: error code 3 (present, write, supervisor)"
  CASE_EQ dword [FAULT_CR2], RO + 0x10, "WP = 1: CR2"
  CASE_EQ dword [0x30010], 0x11111111, "WP = 1: the frame keeps its data"
  TRY
  mov eax, [RO + 0x10]
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 0xFF, "WP = 1: supervisor reads of read-only pages still work"
  TRY
  mov byte [RO_USER], 1
  END_TRY
  CASE_EQ dword [FAULT_CODE], 3, "WP = 1: supervisor write to a read-only user page: error code 3"
  USER_BEGIN
  TRY
  mov byte [RO_USER], 1
  END_TRY
  USER_END
  CASE_EQ dword [FAULT_CODE], 7, "WP = 1: user write to a read-only page: error code 7"
  ; A read-only directory entry also protects under WP.
  mov dword [PDE(BIG)], PT1 | P | U
  TRY
  mov dword [BIG + 0x30000], 0
  END_TRY
  CASE_EQ dword [FAULT_CODE], 3, "WP = 1: supervisor write through a read-only directory entry: error code 3"

  ; WP back to 0: the write is allowed again.
  mov eax, cr0
  and eax, ~0x10000
  mov cr0, eax
  TRY
  mov dword [RO + 0x10], 0x33333333
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 0xFF, "WP cleared again: the write succeeds"
  CASE_EQ dword [0x30010], 0x33333333, "WP cleared again: the frame changed"

  ; PSE = 0: a PS = 1 directory entry points at a page table (at 400000h).
  mov dword [PT2], 0x32000 | P | W
  mov dword [0x32010], 0xAAAA5555
  mov dword [0x00400010], 0x5555AAAA
  mov dword [PDE(BIG)], PT2 | P | W | PS
  mov eax, cr3
  mov cr3, eax
  mov eax, [BIG + 0x10]
  CASE_EQ eax, 0xAAAA5555, "PSE = 0: PS is ignored and the entry is a table pointer"

  ; PSE = 1: the same entry maps the 4 MiB page at 400000h (the CR4 write flushes).
  mov eax, cr4
  or eax, 0x10
  mov cr4, eax
  mov eax, [BIG + 0x10]
  CASE_EQ eax, 0x5555AAAA, "PSE = 1: PS = 1 maps a 4 MiB page"
  mov dword [0x00732010], 0xC0FFEE11
  mov eax, [BIG + 0x332010]
  CASE_EQ eax, 0xC0FFEE11, "4 MiB page: bits 21-0 of the linear address are the offset"
  mov eax, [PDE(BIG)]
  and eax, A | D
  CASE_EQ eax, A, "4 MiB page read: A set in the directory entry, D clear"
  mov dword [BIG + 0x3FFFFC], 0x0BADCAFE
  CASE_EQ dword [0x007FFFFC], 0x0BADCAFE, "4 MiB page write reaches the last dword of the page"
  test dword [PDE(BIG)], D
  CASE nz, "4 MiB page write sets D in the directory entry"
  ; A 4 MiB page at CPL 3 needs U in the directory entry.
  USER_BEGIN
  TRY
  mov eax, [BIG]
  END_TRY
  USER_END
  CASE_EQ dword [FAULT_CODE], 5, "user read of a supervisor 4 MiB page: error code 5"
  ; Clearing PSE again (flushes): the entry is a table pointer again.
  mov eax, cr4
  and eax, ~0x10
  mov cr4, eax
  mov eax, [BIG + 0x10]
  CASE_EQ eax, 0xAAAA5555, "PSE cleared: the entry is a table pointer again"
  FINISH

section .rodata
PAGING_GDT

ROM_END
