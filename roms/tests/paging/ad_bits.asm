; Accessed and Dirty flags (SDM Vol. 3 "Accessed and Dirty Flags"; the updates are
; implied locked operations, "Automatic Locking"): any access sets A in the
; directory and table entries it uses; a write sets D in the table entry (never in
; a directory entry pointing at a table); a write to a page first only read sets D
; then; instruction fetches set only A; PUSH, XCHG and a failing CMPXCHG write.
%include "rom.inc"
%include "pm.inc"
%include "paging.inc"

%define PT2 0x23000               ; table for directory entry 2 (800000h), A clear
%define BASE2 0x00800000

PAGING_ROM_START
; Maps window page %1 to frame 30000h + %1 * 1000h, writable, A and D clear.
%macro MAP 1
  mov dword [PTE(WINDOW + (%1) * 0x1000)], (0x30000 + (%1) * 0x1000) | P | W
%endmacro
%define PAGE(n) (WINDOW + (n) * 0x1000)

PAGING_PM_ENTRY

  ; A read sets A, not D.
  MAP 0
  mov eax, [PAGE(0) + 0x10]
  mov eax, [PTE(PAGE(0))]
  and eax, A | D
  CASE_EQ eax, A, "a read sets A and leaves D clear"

  ; A write to a fresh page sets A and D.
  MAP 1
  mov dword [PAGE(1)], 1
  mov eax, [PTE(PAGE(1))]
  and eax, A | D
  CASE_EQ eax, A | D, "a write sets A and D"

  ; D is set by a write to a page that was only read before (its TLB entry is clean).
  MAP 2
  mov eax, [PAGE(2)]
  test dword [PTE(PAGE(2))], D
  CASE z, "the first read leaves D clear"
  mov eax, [PAGE(2) + 4]
  mov byte [PAGE(2) + 8], 1
  test dword [PTE(PAGE(2))], D
  CASE nz, "a later write to the page read before sets D"

  ; Directory entry: A on use, never D for a 4 KiB table.
  mov dword [PDE(BASE2)], PT2 | P | W
  mov dword [PT2], 0x38000 | P | W
  mov eax, [BASE2]
  test dword [PDE(BASE2)], A
  CASE nz, "the directory entry gets A"
  mov dword [BASE2 + 4], 1
  test dword [PT2], D
  CASE nz, "the write sets D in the table entry"
  test dword [PDE(BASE2)], D
  CASE z, "a directory entry pointing at a table never gets D"

  ; Read-modify-write instructions.
  MAP 3
  add dword [PAGE(3)], 5
  mov eax, [PTE(PAGE(3))]
  and eax, A | D
  CASE_EQ eax, A | D, "ADD to memory sets A and D"
  MAP 4
  mov eax, 7
  xchg [PAGE(4)], eax
  mov eax, [PTE(PAGE(4))]
  and eax, A | D
  CASE_EQ eax, A | D, "XCHG with memory sets A and D"
  MAP 5
  mov dword [0x35000], 1
  xor eax, eax                        ; compares 0 with 1: fails
  mov ecx, 2
  cmpxchg [PAGE(5)], ecx
  CASE_EQ dword [0x35000], 1, "a failing CMPXCHG leaves the value"
  test dword [PTE(PAGE(5))], D
  CASE nz, "a failing CMPXCHG still writes and sets D"
  MAP 6
  lock or dword [PAGE(6)], 1
  test dword [PTE(PAGE(6))], D
  CASE nz, "LOCK OR sets D"

  ; Instruction fetch sets A only.
  MAP 7
  mov byte [0x37000], 0xC3            ; RET, written through the frame's own address
  mov eax, PAGE(7)
  call eax
  mov eax, [PTE(PAGE(7))]
  and eax, A | D
  CASE_EQ eax, A, "executing from a page sets A, not D"

  ; PUSH sets D in the stack page.
  MAP 8
  mov ebx, esp
  mov esp, PAGE(9)
  push dword 0x12345678
  mov esp, ebx
  mov eax, [PTE(PAGE(8))]
  and eax, A | D
  CASE_EQ eax, A | D, "PUSH sets A and D in the stack page"
  CASE_EQ dword [0x38FFC], 0x12345678, "and stores at the top of the page"

  ; A string store over two pages sets D in both.
  MAP 10
  MAP 11
  mov edi, PAGE(10) + 0xFF0
  mov ecx, 8
  mov eax, 0x5A5A5A5A
  cld
  rep stosd
  mov eax, [PTE(PAGE(10))]
  and eax, [PTE(PAGE(11))]
  and eax, A | D
  CASE_EQ eax, A | D, "REP STOSD across two pages sets D in both"

  ; A user access sets A too.
  mov dword [PTE(PAGE(12))], 0x3C000 | P | W | U
  USER_BEGIN
  mov eax, [PAGE(12)]
  USER_END
  mov eax, [PTE(PAGE(12))]
  and eax, A | D
  CASE_EQ eax, A, "a CPL 3 read sets A"
  FINISH

section .rodata
PAGING_GDT

ROM_END
