# docs/labs/07-interrupts.md, step by step.
# 1. The 8259A: IRQ 0 through the PIC, with its INTA cycle.
run_cli(pic 33 run --kernel ${ROM_DIR}/multiboot/timer_kernel.elf --debugcon none --stats --trace text:pic.trace --trace-filter exc,mem)
expect_in(pic.txt "timer_kernel: 21 timer interrupts" "\nvector.32 21\n" "\nlocked.inta 21\n")
expect_in(pic.trace "#3626 c=2948 mem inta LOCK vector=20" "#3626 c=2948 exc int vector=32 src=external at 0010:00100413")
# 2. The local APIC: priorities, nesting and EOI in a trace.
run_cli(apic 33 run --kernel ${ROM_DIR}/multiboot/apic_priority_kernel.elf --trace text:apic.trace --trace-filter apic)
expect_in(apic.trace
  "#4171 c=3635 lapic-accept vector=45 mode=fixed edge src=ipi from=00 apic=00"
  "#11293 c=10739 lapic-dispatch vector=65 ppr=50 apic=00"
  "#11948 c=11476 lapic-dispatch vector=55 ppr=40 apic=00"
  "#18577 c=18186 lapic-dispatch vector=45 ppr=00 apic=00"
  "#21630 c=21341 lapic-dispatch vector=61 ppr=50 apic=00"
  "#21670 c=21443 lapic-eoi vector=61 edge apic=00"
  "#29743 c=29514 lapic-eoi vector=51 edge apic=00"
  "#29981 c=29749 lapic-dispatch vector=41 ppr=00 apic=00")
# 3. The APIC window at the nested interrupt.
run_gui(gui 07-interrupts.script --kernel ${ROM_DIR}/multiboot/apic_priority_kernel.elf)
expect_in(gui/07-a-in-51h.txt "event breakpoint 1 (vector) vector 81" "ISR 51h")
expect_in(gui/07-b-nested-61h.txt "event breakpoint 2 (vector) vector 97" "TPR 00h  APR 60h  PPR 60h"
  "ICR 00000000:00044061h: vector 61h Fixed, physical destination 00h, shorthand self, edge assert, idle"
  "IRR 41h\n" "ISR 51h 61h\n")
expect_image(gui 07-b-nested-61h)
# 4. Stubs against a vector in CS, 8259A and APIC (seed 004).
run_cli(irq 0 compare irq --no-files)
expect_in(irq.txt "irq: Interrupt dispatch: stubs vs a vector encoded in CS (seed 004, 2008)"
  "vector 32 (20h)                         411         411      411       414       414             0                0            0              0              0"
  "vector 49 (31h)                           0           0        0         0         0           411              411          411            414            414"
  "local APIC EOIs                             0           0        0         0         0           547              548          547            552            552"
  "code-range bytes executed                3829        4923     3829      4416      4416          3829             4932         3829           4416           4416")
