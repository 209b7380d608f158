# docs/labs/02-accessed-bit.md, step by step.
# 1. The locked writes in a trace.
run_cli(trace-p3 0 run --bios ${ROM_DIR}/demo.bin --trace text:demo-p3.trace --trace-filter mem,seg)
expect_lines(demo-p3.trace "accessed-bit LOCK" 3)
expect_in(demo-p3.trace
          "#280 c=398 mem rmw accessed-bit LOCK lin=0000100d phys=0000100d size=1 value=9a->9b"
          "#282 c=438 mem rmw accessed-bit LOCK lin=0000101d phys=0000101d size=1 value=92->93"
          "#864 c=1010 mem rmw accessed-bit LOCK lin=00001015 phys=00001015 size=1 value=92->93"
          "#1912 c=2019 seg ds sel=0010 gdt[2] desc=00cf93100000ffff base=00100000 limit=ffffffff\n")
# 2. Counting them, P6 against i386.
run_cli(stats-p3 0 run --bios ${ROM_DIR}/demo.bin --stats)
expect_in(stats-p3.txt "\ninstructions 2314\n" "\ncycles 2403\n" "\nsegment-load.ds 3\n" "\naccess.accessed-bit 6\n"
          "\nlocked.accessed-bit 3\n")
run_cli(stats-i386 0 run --bios ${ROM_DIR}/demo.bin --profile i386-locking --stats)
expect_in(stats-i386.txt "\ninstructions 2314\n" "\ncycles 2423\n" "\naccess.accessed-bit 8\n" "\nlocked.accessed-bit 4\n")
run_cli(trace-i386 0 run --bios ${ROM_DIR}/demo.bin --profile i386-locking --trace text:demo-i386.trace --trace-filter mem,seg)
expect_lines(demo-i386.trace "accessed-bit LOCK" 4)
expect_in(demo-i386.trace "#1912 c=2019 mem rmw accessed-bit LOCK lin=00001015 phys=00001015 size=1 value=93->93")
# 3. The same stops in the inspector.
run_gui(p3 02-accessed.script --bios ${ROM_DIR}/demo.bin)
expect_in(p3/02-a-cs.txt "event breakpoint 1 (lock) accessed-bit at F000:000000C8")
expect_in(p3/02-b-ss.txt "event breakpoint 1 (lock) accessed-bit at 0008:000F00D4")
expect_in(p3/02-c-ds.txt "event breakpoint 1 (lock) accessed-bit at 0008:000F0102" "| 1: break on lock accessed-bit | 3 |")
expect_in(p3/02-d-next.txt "ended: halted (exit status 0)")
run_gui(i386 02-accessed.script --bios ${ROM_DIR}/demo.bin --profile i386-locking)
expect_in(i386/02-d-next.txt "event breakpoint 1 (lock) accessed-bit at 0008:000F0157" "CS:EIP 0008:000F0159  instructions 1913"
          "| 1: break on lock accessed-bit | 4 |")
expect_image(p3 02-c-ds)
