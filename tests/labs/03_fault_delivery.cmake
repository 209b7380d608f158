# docs/labs/03-fault-delivery.md, step by step.
set(kernel ${ROM_DIR}/labs/lab_fault_kernel.elf)
# 1. The kernel's own account.
run_cli(run 33 run --kernel ${kernel} --stats)
expect_in(run.txt
  "#GP delivered: error code 0010h CS:EIP 001Bh:00100758h EFLAGS 00010002h SS:ESP 0023h:001068F0h"
  "handler stack: TSS.ESP0 001058F0h, frame at 001058D8h (6 dwords below ESP0)"
  "INT 80h from ring 3: CS 001Bh"
  "#DF delivered: error code 0000h CS:EIP 0008h:001004A8h (the instruction of the first #GP)"
  "lab 3 done" "\nvector.8 1\n" "\nvector.13 2\n" "\nvector.128 1\n" "\nstack-switches 2\n" "\nlocked.tss-busy-bit 1\n")
# 2. The structured fault trace.
run_cli(trace 33 run --kernel ${kernel} --trace text:faults.trace --trace-filter exc)
expect_in(faults.trace
  "exc #GP vector=13 error=0010 src=exception at 001b:00100758 cause=\"data segment privilege\""
  "exc int vector=128 src=int at 001b:0010075c"
  "exc #GP vector=13 error=0028 src=exception at 0008:001004a8 cause=\"not a data or readable code segment\""
  "exc #DF vector=8 error=0000 src=exception at 0008:001004a8 double-fault cause=\"double fault\"")
# 3. In the inspector: the handler's first instruction, the frame on the ring-0 stack.
run_gui(gui 03-fault.script --kernel ${kernel})
expect_in(gui/03-a-gp-handler.txt "event breakpoint 1 (vector) vector 13 error code 0010h at 001B:00100758"
  "CS:EIP 0008:00100735  instructions 1885" "CPL 0  protected mode" "| ESP 001058D8 |"
  "| SS | 0010 | cache |" "001058D8  10 00 00 00 58 07 10 00" "001058E0  1B 00 00 00 02 00 01 00"
  "001058E8  F0 68 10 00 23 00 00 00")
expect_image(gui 03-a-gp-handler)
# 4. The double fault: the stop is at #DF's handler, not at the #GP whose delivery failed.
expect_in(gui/03-b-df-handler.txt "event breakpoint 2 (vector) vector 8 error code 0000h at 0008:001004A8"
  "CS:EIP 0008:00100744  instructions 9996")
expect_in(gui/03-c-end.txt "ended: exit port (exit status 33)")
# 5. Going further: the triple fault.
run_cli(triple 1 run --kernel ${kernel} --append triple)
expect_in(triple.txt "the #DF gate's selector is 0030h too: expect a triple fault"
  "x86lab: shutdown (triple fault) at 8:1004a8"
  "fault chain: vector 13(28h) [not a data or readable code segment] -> vector 13(31h) [selector outside descriptor table] -> vector 13(31h) [selector outside descriptor table]")
