; The TLB (SDM Vol. 3 "Translation Lookaside Buffers (TLBs)", "Invalidation of TLBs
; and Paging-Structure Caches"): a translation stays cached after its entry changes
; until INVLPG, MOV CR3 or a paging-bit change in CR0/CR4 drops it; not-present
; entries are never cached; a cached entry keeps the A and D state it was filled
; with. x86lab keeps every translation until it is invalidated, as these cases need.
%include "rom.inc"
%include "pm.inc"
%include "paging.inc"


PAGING_ROM_START
PAGING_PM_ENTRY
  MARK_FRAMES

  ; A changed entry is not seen until INVLPG.
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "the page maps frame A"
  mov dword [PTE(WIN_PAGE0)], FRAME_B | P | W
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "after the entry changes, the TLB still translates to frame A"
  invlpg [WIN_PAGE0 + 0x800]
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xBBBB0002, "INVLPG of any byte in the page drops the stale translation"

  ; INVLPG of another page leaves this one cached.
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W
  invlpg [WIN_PAGE1]
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xBBBB0002, "INVLPG of another page keeps this page's translation"

  ; MOV CR3, even with the same value, drops non-global translations.
  mov eax, cr3
  mov cr3, eax
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "MOV CR3 with an unchanged value flushes the TLB"

  ; INVLPG's operand is a logical address: the segment base counts.
  mov dword [PTE(WIN_PAGE0)], FRAME_B | P | W
  mov ax, 0x30
  mov fs, ax
  invlpg [fs:0]
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xBBBB0002, "INVLPG [fs:0] with FS base = the page drops it"

  ; Not-present entries are never cached.
  mov dword [PTE(WIN_PAGE0)], 0
  invlpg [WIN_PAGE0]
  TRY
  mov eax, [WIN_PAGE0]
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 14, "a not-present page faults"
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W
  TRY
  mov eax, [WIN_PAGE0]
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 0xFF, "once present it is used without INVLPG"
  CASE_EQ eax, 0xAAAA0001, "and translates to the new frame"

  ; A cached translation does not set A again.
  invlpg [WIN_PAGE0]
  mov eax, [WIN_PAGE0]
  and dword [PTE(WIN_PAGE0)], ~A
  mov eax, [WIN_PAGE0]
  test dword [PTE(WIN_PAGE0)], A
  CASE z, "a TLB hit does not set A after software cleared it"
  invlpg [WIN_PAGE0]
  mov eax, [WIN_PAGE0]
  test dword [PTE(WIN_PAGE0)], A
  CASE nz, "after INVLPG the walk sets A again"

  ; A translation cached dirty does not set D again.
  mov dword [WIN_PAGE0 + 4], 1
  and dword [PTE(WIN_PAGE0)], ~D
  mov dword [WIN_PAGE0 + 4], 2
  test dword [PTE(WIN_PAGE0)], D
  CASE z, "a write hitting a dirty TLB entry does not set D again"
  invlpg [WIN_PAGE0]
  mov dword [WIN_PAGE0 + 4], 3
  test dword [PTE(WIN_PAGE0)], D
  CASE nz, "after INVLPG the write sets D again"

  ; Rights taken away are not seen until INVLPG (WP = 1, entry cached dirty).
  mov eax, cr0
  or eax, 0x10000
  mov cr0, eax
  mov dword [WIN_PAGE0 + 8], 1
  and dword [PTE(WIN_PAGE0)], ~W
  TRY
  mov dword [WIN_PAGE0 + 8], 2
  END_TRY
  CASE_EQ dword [FAULT_VECTOR], 0xFF, "a cached writable translation still allows the write"
  invlpg [WIN_PAGE0]
  TRY
  mov dword [WIN_PAGE0 + 8], 3
  END_TRY
  CASE_EQ dword [FAULT_CODE], 3, "after INVLPG the read-only entry faults (error code 3)"
  CASE_EQ dword [FRAME_A + 8], 2, "the frame holds the write made through the stale entry"
  mov eax, cr0
  and eax, ~0x10000
  mov cr0, eax

  ; Clearing and setting CR0.PG flushes.
  mov dword [PTE(WIN_PAGE0)], FRAME_B | P | W
  invlpg [WIN_PAGE0]
  mov eax, [WIN_PAGE0]
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W
  mov eax, cr0
  and eax, 0x7FFFFFFF
  mov cr0, eax
  or eax, 0x80000000
  mov cr0, eax
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "turning paging off and on flushes the TLB"

  ; Changing CR4.PSE flushes.
  mov dword [PTE(WIN_PAGE0)], FRAME_B | P | W
  mov eax, cr4
  or eax, 0x10
  mov cr4, eax
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xBBBB0002, "setting CR4.PSE flushes the TLB"
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W
  mov eax, cr4
  and eax, ~0x10
  mov cr4, eax
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "clearing CR4.PSE flushes the TLB"
  FINISH

section .rodata
PAGING_GDT

ROM_END
