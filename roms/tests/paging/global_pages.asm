; Global pages (SDM Vol. 3 "Global Pages", "Invalidation of TLBs and Paging-Structure
; Caches"): with CR4.PGE = 1 a translation whose G flag is set survives MOV CR3 (the
; P6 family keeps it; the SDM lets a processor drop it), INVLPG drops it, and a
; change of CR4.PGE drops every translation. With PGE = 0 the G flag is ignored.
%include "rom.inc"
%include "pm.inc"
%include "paging.inc"

%define BIG 0x00C00000            ; directory entry 3: a 4 MiB page

PAGING_ROM_START
PAGING_PM_ENTRY
  MARK_FRAMES

  ; PGE = 0: G is ignored, MOV CR3 drops the translation.
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W | G
  mov eax, [WIN_PAGE0]
  mov dword [PTE(WIN_PAGE0)], FRAME_B | P | W | G
  mov eax, cr3
  mov cr3, eax
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xBBBB0002, "with CR4.PGE = 0 the G flag is ignored by MOV CR3"

  ; PGE = 1: INVLPG drops a global translation.
  mov eax, cr4
  or eax, 0x80
  mov cr4, eax
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W | G
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "setting CR4.PGE flushed the TLB"
  mov dword [PTE(WIN_PAGE0)], FRAME_B | P | W | G
  invlpg [WIN_PAGE0]
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xBBBB0002, "INVLPG drops a global translation"

  ; Clearing and setting PGE drops global translations.
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W | G
  mov eax, cr4
  and eax, ~0x80
  mov cr4, eax
  or eax, 0x80
  mov cr4, eax
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "toggling CR4.PGE drops global translations"

  ; INVLPG of any address in a global 4 MiB page drops all of it.
  mov eax, cr4
  or eax, 0x10
  mov cr4, eax
  mov dword [0x00400000], 0x44440004
  mov dword [0x00000000], 0x00000000
  mov dword [PDE(BIG)], 0x00400000 | P | W | PS | G
  mov eax, [BIG]
  CASE_EQ eax, 0x44440004, "a global 4 MiB page maps frame 400000h"
  mov dword [PDE(BIG)], 0x00000000 | P | W | PS | G
  invlpg [BIG + 0x2FF000]
  mov eax, [BIG]
  CASE_EQ eax, 0, "INVLPG of another 4 KiB part of a global 4 MiB page drops it"

  ; MOV CR3: the non-global translation goes, the global ones stay (P6).
  mov dword [PTE(WIN_PAGE1)], FRAME_A | P | W
  mov eax, [WIN_PAGE1]
  mov dword [PTE(WIN_PAGE1)], FRAME_B | P | W
  mov dword [PTE(WIN_PAGE0)], FRAME_A | P | W | G
  invlpg [WIN_PAGE0]
  mov eax, [WIN_PAGE0]
  mov dword [PTE(WIN_PAGE0)], FRAME_B | P | W | G
  mov dword [PDE(BIG)], 0x00400000 | P | W | PS | G
  mov eax, cr3
  mov cr3, eax
  mov eax, [WIN_PAGE1]
  CASE_EQ eax, 0xBBBB0002, "MOV CR3 drops a non-global translation"
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xAAAA0001, "MOV CR3 keeps a global translation"
  mov eax, [BIG]
  CASE_EQ eax, 0, "MOV CR3 keeps a global 4 MiB translation"
  invlpg [WIN_PAGE0]
  mov eax, [WIN_PAGE0]
  CASE_EQ eax, 0xBBBB0002, "INVLPG then drops the global translation"
  FINISH

section .rodata
PAGING_GDT

ROM_END
