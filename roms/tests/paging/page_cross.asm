; Accesses that cross a page boundary and string instructions that fault part-way
; (SDM Vol. 3 "Page-Fault Exceptions"; Vol. 2 "REP/REPE/REPZ/REPNE/REPNZ": a fault
; in a repeated string instruction leaves ECX, ESI and EDI as they were before the
; iteration that faulted, and the pushed EIP points at the instruction, so it
; restarts there). A write crossing into a page that faults changes no byte of the
; first page; CR2 is the first byte of the page that faulted.
%include "rom.inc"
%include "pm.inc"
%include "paging.inc"

%define PAGE(n) (WINDOW + (n) * 0x1000)
%define FRAME(n) (0x30000 + (n) * 0x1000)

PAGING_ROM_START
%macro MAP 1
  mov dword [PTE(PAGE(%1))], FRAME(%1) | P | W
%endmacro

PAGING_PM_ENTRY
  cld

  ; A dword write crossing into a not-present page.
  MAP 0
  mov dword [FRAME(0) + 0xFFC], 0x11223344
  TRY
  mov dword [PAGE(0) + 0xFFE], 0xAABBCCDD
  END_TRY
  CASE_EQ dword [FAULT_CODE], 2, "write crossing into a not-present page: error code 2"
  CASE_EQ dword [FAULT_CR2], PAGE(1), "CR2 is the first byte of the second page"
  CASE_EQ dword [FRAME(0) + 0xFFC], 0x11223344, "no byte of the first page was written"

  ; Crossing into a read-only page under WP.
  mov dword [PTE(PAGE(1))], FRAME(1) | P
  mov eax, cr0
  or eax, 0x10000
  mov cr0, eax
  TRY
  mov dword [PAGE(0) + 0xFFE], 0xAABBCCDD
  END_TRY
  CASE_EQ dword [FAULT_CODE], 3, "write crossing into a read-only page (WP = 1): error code 3"
  CASE_EQ dword [FRAME(0) + 0xFFC], 0x11223344, "still no byte of the first page was written"
  mov eax, cr0
  and eax, ~0x10000
  mov cr0, eax

  ; A dword read crossing into a not-present page leaves the register.
  mov dword [PTE(PAGE(1))], 0
  invlpg [PAGE(1)]
  mov eax, 0x77777777
  TRY
  mov eax, [PAGE(0) + 0xFFD]
  END_TRY
  CASE_EQ dword [FAULT_CODE], 0, "read crossing into a not-present page: error code 0"
  CASE_EQ eax, 0x77777777, "the destination register is unchanged"

  ; With the page made present by the handler, the write restarts and completes.
  mov dword [PTE(PAGE(1))], FRAME(1) | W
  mov dword [FAULT_FIXUP], PTE(PAGE(1))
  mov dword [FAULT_COUNT], 0
  mov dword [PAGE(0) + 0xFFE], 0xAABBCCDD
  CASE_EQ dword [FAULT_COUNT], 1, "one fault, then the restarted write succeeds"
  CASE_EQ dword [FRAME(0) + 0xFFC], 0xCCDD3344, "the low half landed at the end of the first page"
  cmp word [FRAME(1)], 0xAABB
  CASE e, "the high half landed at the start of the second page"

  ; REP MOVSB faulting on the second destination page, then resuming.
  MAP 4
  MAP 5
  MAP 2
  mov dword [PTE(PAGE(3))], FRAME(3) | W          ; not present yet
  mov edi, FRAME(4) + 0xF00
  mov ecx, 0x200
  mov al, 0
.fill:
  mov [edi], al
  inc edi
  inc al
  loop .fill
  mov dword [FAULT_FIXUP], PTE(PAGE(3))
  mov dword [FAULT_COUNT], 0
  mov esi, PAGE(4) + 0xF00
  mov edi, PAGE(2) + 0xF00
  mov ecx, 0x200
.movs:
  rep movsb
  CASE_EQ dword [FAULT_COUNT], 1, "REP MOVSB faulted once on the second destination page"
  CASE_EQ dword [FAULT_CODE], 2, "REP MOVSB fault: error code 2"
  CASE_EQ dword [FAULT_CR2], PAGE(3), "REP MOVSB fault: CR2 is the second page"
  CASE_EQ dword [FAULT_EIP], ABS(.movs), "REP MOVSB fault: EIP points at the instruction"
  CASE_EQ dword [FAULT_ECX], 0x100, "REP MOVSB fault: ECX counts the bytes not yet moved"
  CASE_EQ dword [FAULT_ESI], PAGE(4) + 0x1000, "REP MOVSB fault: ESI at the first byte not moved"
  CASE_EQ dword [FAULT_EDI], PAGE(3), "REP MOVSB fault: EDI at the first byte not stored"
  CASE_EQ ecx, 0, "after the restart ECX is 0"
  CASE_EQ esi, PAGE(4) + 0x1100, "after the restart ESI is past the source"
  CASE_EQ edi, PAGE(2) + 0x1100, "after the restart EDI is past the destination"
  mov esi, FRAME(4) + 0xF00
  mov edi, FRAME(2) + 0xF00
  mov ecx, 0x100
  repe cmpsb
  CASE e, "the bytes before the fault were copied"
  mov esi, FRAME(5)
  mov edi, FRAME(3)
  mov ecx, 0x100
  repe cmpsb
  CASE e, "the bytes after the restart were copied"

  ; REP MOVSD whose first element straddles into a not-present page.
  MAP 6
  mov dword [FRAME(6) + 0xFFC], 0x99999999
  mov esi, PAGE(4)
  mov edi, PAGE(6) + 0xFFE
  mov ecx, 4
  TRY
  rep movsd
  END_TRY
  CASE_EQ dword [FAULT_CR2], PAGE(7), "straddling MOVSD: CR2 is the second page"
  CASE_EQ ecx, 4, "straddling MOVSD: ECX unchanged"
  CASE_EQ edi, PAGE(6) + 0xFFE, "straddling MOVSD: EDI unchanged"
  CASE_EQ dword [FRAME(6) + 0xFFC], 0x99999999, "straddling MOVSD: nothing stored"

  ; REP MOVSB whose source runs into a not-present page.
  MAP 8
  MAP 10
  mov esi, PAGE(8) + 0xFF0
  mov edi, PAGE(10)
  mov ecx, 0x40
  TRY
  rep movsb
  END_TRY
  CASE_EQ dword [FAULT_CODE], 0, "source fault of REP MOVSB: error code 0 (read)"
  CASE_EQ dword [FAULT_CR2], PAGE(9), "source fault: CR2 is the source's second page"
  CASE_EQ ecx, 0x30, "source fault: ECX counts the bytes not yet moved"
  CASE_EQ esi, PAGE(9), "source fault: ESI at the first byte not read"
  CASE_EQ edi, PAGE(10) + 0x10, "source fault: EDI at the first byte not stored"

  ; REP STOSB downwards (DF = 1) into a not-present page.
  MAP 12
  mov edi, PAGE(12) + 0x10
  mov ecx, 0x20
  mov al, 0xEE
  std
  TRY
  rep stosb
  END_TRY
  cld
  CASE_EQ dword [FAULT_CR2], PAGE(11) + 0xFFF, "downward REP STOSB: CR2 is the last byte of the page below"
  CASE_EQ ecx, 0x0F, "downward REP STOSB: ECX counts the bytes not yet stored"
  CASE_EQ edi, PAGE(11) + 0xFFF, "downward REP STOSB: EDI at the byte that faulted"
  cmp byte [FRAME(12)], 0xEE
  CASE e, "downward REP STOSB: the bytes of the present page were stored"
  FINISH

section .rodata
PAGING_GDT

ROM_END
