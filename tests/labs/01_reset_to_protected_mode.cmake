# docs/labs/01-reset-to-protected-mode.md, step by step.
run_gui(gui 01-reset.script --bios ${ROM_DIR}/demo.bin)
# 1. At reset: CS F000 with the hidden base FFFF0000h (SDM Vol. 3, "First Instruction Executed").
expect_in(gui/01-a-reset.txt "CS:EIP F000:0000FFF0  instructions 0" "| CS | F000 | [ stale ] | FFFF0000 | 0000FFFF |"
          "| | real mode | sel*16 | 000F0000 |" "| F000:FFF0 | EA8A0000F0 | jmp F000:008A |" "EDX 00000673" "| CR0 60000010 |")
# 2. The far JMP loads CS the real-mode way.
expect_in(gui/01-b-far-jump.txt "CS:EIP F000:0000008A  instructions 1" "| CS | F000 | cache | 000F0000 | 0000FFFF |")
# 3. The far jump into protected mode: the first locked write of an Accessed bit.
expect_in(gui/01-c-first-lock.txt "event breakpoint 1 (lock) accessed-bit at F000:000000C8"
          "CS:EIP 0008:000F00D0  instructions 281" "| CS | 0008 | cache | 00000000 | FFFFFFFF | B | 0 | 1 | 1 | 1 | 1 |"
          "mem rmw accessed-bit LOCK lin=0000100d phys=0000100d size=1 value=9a->9b" "| DS | 0000 | null |")
expect_image(gui 01-c-first-lock)
# 4. MOV SS, then MOV DS.
expect_in(gui/01-d-second-lock.txt "accessed-bit at 0008:000F00D4" "| SS | 0018 | cache | 00000000 | FFFFFFFF |")
expect_in(gui/01-e-third-lock.txt "accessed-bit at 0008:000F0102" "| DS | 0010 | cache | 00000000 | FFFFFFFF |")
# 5. The GDT entry changes under DS: the cache keeps base 0.
expect_in(gui/01-f-stale.txt
          "event breakpoint 2 (descriptor-write) write at linear 00001014h (physical 00001014h, 1 bytes, data) value 10h at 0008:000F0135"
          "| DS | 0010 | [ stale ] | 00000000 | FFFFFFFF |" "| | 2/GDT/0 | table | 00100000 | FFFFFFFF |")
expect_image(gui 01-f-stale)
# 6. The end: DS reloaded, no fourth locked write.
expect_in(gui/01-g-end.txt "ended: halted (exit status 0)" "instructions 2314" "| DS | 0010 | cache | 00100000 |"
          "| locked.accessed-bit | 3 |" "[DS:500h] still reads 11" "after reloading DS, [DS:500h] reads 22")
expect_image(gui 01-a-reset)
