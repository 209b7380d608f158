; Compute benchmark ROM: the work of compute_loop.inc in 32-bit protected mode with
; paging (table at 100000h, mapped one-to-one; code in the ROM), then the checksum.
%include "bench.inc"
%include "compute_loop.inc"

%define TABLE 0x100000

PAGING_ROM_START
PAGING_PM_ENTRY
  COMPUTE_WORK
  jmp bench_exit
COMPUTE_MIX

PAGING_GDT
ROM_END
