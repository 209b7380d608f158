/* A Multiboot test kernel for the local APIC's interrupt acceptance (Intel SDM Vol. 3,
 * "Advanced Programmable Interrupt Controller (APIC)": "Task and Processor Priorities",
 * "Interrupt Acceptance for Fixed Interrupts", "IRR, ISR and TMR", "Signaling Interrupt
 * Servicing Completion", "Spurious Interrupt", "Error Handling", "Issuing
 * Interprocessor Interrupts"): TPR masking and PPR, ISR/IRR read back, nesting in
 * priority order, EOI of the highest ISR bit, the SVR, the ESR's write-then-read rule,
 * and the ICR's destination shorthands on a one-CPU machine. Every interrupt is a
 * self-IPI. Report and exit codes: apic_kernel.h. */
#include "apic_kernel.h"

#define SPURIOUS_VECTOR 0xFF
#define ILLEGAL_VECTOR 0x03 /* < 16: illegal in a fixed IPI */

static volatile uint8_t order[16];
static volatile uint32_t taken;
static volatile uint32_t illegal_taken;

static void record(uint8_t vector) {
  if (taken < sizeof order) order[taken] = vector;
  ++taken;
}
/* Records the vector and ends it. */
static void record_and_eoi(struct interrupt_frame* frame) {
  record((uint8_t)frame->vector);
  lapic_eoi();
}
static void illegal_vector_handler(struct interrupt_frame* frame) {
  (void)frame;
  ++illegal_taken;
  lapic_eoi();
}
static void spurious_handler(struct interrupt_frame* frame) { (void)frame; } /* no EOI (SDM) */

static void reset_order(void) {
  taken = 0;
  for (uint32_t i = 0; i < sizeof order; ++i) order[i] = 0;
}
/* Lets deliverable interrupts in: IF set for a bounded number of interrupt windows. */
static void open_window(void) {
  sti();
  WAIT_UNTIL(0, 2000);
  cli();
}

static void check_svr_and_tpr(void) {
  lapic_write(LAPIC_SVR, SVR_ENABLE | 0xFF);
  check_eq("SVR written 1FFh reads back 1FFh", lapic_read(LAPIC_SVR) & 0x3FF, 0x1FF);
  /* The SDM: on P6 and Pentium processors bits 3:0 of the spurious vector are
   * hardwired to 1 (a write of F0h reads FFh); QEMU 7.2 stores them. Printed, not
   * checked (docs/qemu-differences.md). */
  lapic_write(LAPIC_SVR, SVR_ENABLE | 0xF0);
  info("SVR after writing 1F0h (P6: 1FFh)", lapic_read(LAPIC_SVR) & 0x3FF);
  lapic_write(LAPIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);

  lapic_write(LAPIC_TPR, 0x57);
  check_eq("TPR written 57h reads back 57h", lapic_read(LAPIC_TPR) & 0xFF, 0x57);
  check_eq("PPR is TPR (57h) with nothing in service", lapic_read(LAPIC_PPR) & 0xFF, 0x57);
  lapic_write(LAPIC_TPR, 0);
  check_eq("PPR is 0 with TPR 0 and nothing in service", lapic_read(LAPIC_PPR) & 0xFF, 0);
  check_true("ISR clear at start", lapic_bits_clear(LAPIC_ISR), 0);
  check_true("IRR clear at start", lapic_bits_clear(LAPIC_IRR), 0);
}

/* TPR 50h holds vectors of class 4 and 5 in the IRR, lets class 6 through; lowering the
 * TPR to 40h lets 55h in, to 0 lets 45h in. */
static void check_tpr_masking(void) {
  reset_order();
  lapic_write(LAPIC_TPR, 0x50);
  sti();
  lapic_self_ipi(0x45);
  lapic_self_ipi(0x55);
  WAIT_UNTIL(lapic_vector_bit(LAPIC_IRR, 0x45) && lapic_vector_bit(LAPIC_IRR, 0x55), 100000);
  WAIT_UNTIL(0, 2000);
  cli();
  check_eq("TPR 50h: self-IPIs 45h and 55h not taken", taken, 0);
  check_eq("TPR 50h: IRR bit 45h set", lapic_vector_bit(LAPIC_IRR, 0x45), 1);
  check_eq("TPR 50h: IRR bit 55h set (class 5 not above TPR class 5)", lapic_vector_bit(LAPIC_IRR, 0x55), 1);
  check_eq("TPR 50h: PPR 50h", lapic_read(LAPIC_PPR) & 0xFF, 0x50);
  check_eq("ICR delivery status idle after the self-IPIs", lapic_read(LAPIC_ICR_LOW) & ICR_DELIVERY_STATUS, 0);

  sti();
  lapic_self_ipi(0x65);
  WAIT_UNTIL(taken != 0, 100000);
  cli();
  check_eq("TPR 50h: self-IPI 65h taken", taken, 1);
  check_eq("TPR 50h: 65h taken first", order[0], 0x65);
  check_eq("ICR low reads back shorthand Self and vector 65h", lapic_read(LAPIC_ICR_LOW) & 0xC00FF,
           ICR_SHORTHAND_SELF | 0x65);

  sti();
  lapic_write(LAPIC_TPR, 0x40);
  WAIT_UNTIL(taken >= 2, 100000);
  WAIT_UNTIL(0, 2000);
  cli();
  check_eq("TPR lowered to 40h: one more taken", taken, 2);
  check_eq("TPR lowered to 40h: 55h taken", order[1], 0x55);
  check_eq("TPR 40h: IRR bit 45h still set", lapic_vector_bit(LAPIC_IRR, 0x45), 1);

  sti();
  lapic_write(LAPIC_TPR, 0);
  WAIT_UNTIL(taken >= 3, 100000);
  cli();
  check_eq("TPR lowered to 0: 45h taken", order[2], 0x45);
  check_true("IRR clear after TPR 0", lapic_bits_clear(LAPIC_IRR), 0);
  check_true("ISR clear after the EOIs", lapic_bits_clear(LAPIC_ISR), 0);
}

/* 51h in service; 61h (higher class) interrupts its handler once it sets IF, 41h waits
 * for 51h's EOI. */
static volatile uint32_t in_61_isr_51, in_61_isr_61, in_61_ppr, after_eoi_isr_51, after_eoi_isr_61;

static void handler_61(struct interrupt_frame* frame) {
  record((uint8_t)frame->vector);
  in_61_isr_51 = (uint32_t)lapic_vector_bit(LAPIC_ISR, 0x51);
  in_61_isr_61 = (uint32_t)lapic_vector_bit(LAPIC_ISR, 0x61);
  in_61_ppr = lapic_read(LAPIC_PPR) & 0xFF;
  lapic_eoi();
  after_eoi_isr_51 = (uint32_t)lapic_vector_bit(LAPIC_ISR, 0x51);
  after_eoi_isr_61 = (uint32_t)lapic_vector_bit(LAPIC_ISR, 0x61);
}

static void handler_51(struct interrupt_frame* frame) {
  record((uint8_t)frame->vector);
  check_eq("in 51h's handler: ISR bit 51h set", lapic_vector_bit(LAPIC_ISR, 0x51), 1);
  check_eq("in 51h's handler: IRR bit 51h clear", lapic_vector_bit(LAPIC_IRR, 0x51), 0);
  check_eq("in 51h's handler, TPR 0: PPR 50h (ISRV class, subclass 0)", lapic_read(LAPIC_PPR) & 0xFF, 0x50);
  lapic_write(LAPIC_TPR, 0x37);
  check_eq("in 51h's handler, TPR 37h: PPR 50h", lapic_read(LAPIC_PPR) & 0xFF, 0x50);
  lapic_write(LAPIC_TPR, 0x57);
  check_eq("in 51h's handler, TPR 57h: PPR 57h (TPR class not below ISRV class)", lapic_read(LAPIC_PPR) & 0xFF, 0x57);
  lapic_write(LAPIC_TPR, 0x67);
  check_eq("in 51h's handler, TPR 67h: PPR 67h", lapic_read(LAPIC_PPR) & 0xFF, 0x67);
  lapic_write(LAPIC_TPR, 0);

  lapic_self_ipi(0x41);
  lapic_self_ipi(0x61);
  WAIT_UNTIL(lapic_vector_bit(LAPIC_IRR, 0x41) && lapic_vector_bit(LAPIC_IRR, 0x61), 100000);
  check_eq("in 51h's handler, IF clear: IRR bit 41h set", lapic_vector_bit(LAPIC_IRR, 0x41), 1);
  check_eq("in 51h's handler, IF clear: IRR bit 61h set", lapic_vector_bit(LAPIC_IRR, 0x61), 1);
  check_eq("in 51h's handler, IF clear: nothing nested yet", taken, 1);

  sti();
  WAIT_UNTIL(taken >= 2, 100000);
  WAIT_UNTIL(0, 2000);
  cli();
  check_eq("with IF set in 51h's handler: exactly 61h nests", taken, 2);
  check_eq("61h nests in 51h's handler", order[1], 0x61);
  check_eq("in 61h's handler: ISR bit 51h set", in_61_isr_51, 1);
  check_eq("in 61h's handler: ISR bit 61h set", in_61_isr_61, 1);
  check_eq("in 61h's handler: PPR 60h", in_61_ppr, 0x60);
  check_eq("EOI clears the highest ISR bit: 61h clear", after_eoi_isr_61, 0);
  check_eq("EOI clears the highest ISR bit: 51h still set", after_eoi_isr_51, 1);
  check_eq("41h (class 4) still waits in the IRR while 51h is in service", lapic_vector_bit(LAPIC_IRR, 0x41), 1);
  check_eq("PPR 50h again after 61h's EOI", lapic_read(LAPIC_PPR) & 0xFF, 0x50);
  lapic_eoi();
  check_eq("EOI in 51h's handler clears ISR bit 51h", lapic_vector_bit(LAPIC_ISR, 0x51), 0);
}

static void check_nesting(void) {
  reset_order();
  sti();
  lapic_self_ipi(0x51);
  WAIT_UNTIL(taken >= 3, 100000); /* 51h, 61h inside it, then 41h after the IRET */
  cli();
  check_eq("nesting: three interrupts taken", taken, 3);
  check_eq("nesting: 51h first", order[0], 0x51);
  check_eq("nesting: 61h second", order[1], 0x61);
  check_eq("nesting: 41h last, after 51h's EOI", order[2], 0x41);
  check_true("ISR clear after nesting", lapic_bits_clear(LAPIC_ISR), 0);
  check_true("IRR clear after nesting", lapic_bits_clear(LAPIC_IRR), 0);
}

/* ESR: write it before reading it (the write latches the errors since the last write).
 * The SDM: a fixed self-IPI with vector 3 (< 16) sets "send illegal vector" (bit 5) and
 * is not delivered. QEMU 7.2 logs no error and delivers vector 3: printed, not checked
 * (docs/qemu-differences.md); what is checked is the write-then-read protocol around it. */
static void check_esr(void) {
  lapic_write(LAPIC_LVT_ERROR, LVT_MASKED | 0xEE);
  lapic_write(LAPIC_ESR, 0);
  lapic_write(LAPIC_ESR, 0);
  check_eq("ESR 0 before the error", lapic_read(LAPIC_ESR), 0);
  lapic_self_ipi(ILLEGAL_VECTOR);
  WAIT_UNTIL(0, 2000);
  lapic_write(LAPIC_ESR, 0);
  info("ESR after a self-IPI with vector 3 (SDM: bit 5 set, 20h)", lapic_read(LAPIC_ESR));
  info("IRR bit 3 after the illegal self-IPI (SDM: 0)", (uint32_t)lapic_vector_bit(LAPIC_IRR, ILLEGAL_VECTOR));
  open_window();
  info("deliveries of the illegal vector 3 (SDM: 0)", illegal_taken);
  lapic_write(LAPIC_ESR, 0);
  check_eq("ESR 0 after a write with no new error", lapic_read(LAPIC_ESR), 0);
}

/* Destination shorthands on one CPU: all-excluding-self reaches nobody; all-including-
 * self and a physical destination of the own APIC ID reach this CPU. */
static void check_shorthands(void) {
  reset_order();
  lapic_send(ICR_SHORTHAND_ALL_EXCLUDING_SELF | 0x70);
  WAIT_UNTIL(lapic_vector_bit(LAPIC_IRR, 0x70), 100000);
  check_eq("all-excluding-self: IRR bit 70h clear (no other CPU)", lapic_vector_bit(LAPIC_IRR, 0x70), 0);
  open_window();
  check_eq("all-excluding-self: not taken", taken, 0);

  lapic_send((2u << 18) | 0x71);
  sti();
  WAIT_UNTIL(taken != 0, 100000);
  cli();
  check_eq("all-including-self: taken", taken, 1);
  check_eq("all-including-self: vector 71h", order[0], 0x71);

  uint32_t id = lapic_read(LAPIC_ID) >> 24;
  info("local APIC ID", id);
  lapic_write(LAPIC_ICR_HIGH, id << 24);
  lapic_write(LAPIC_ICR_LOW, ICR_LEVEL_ASSERT | 0x72); /* fixed, physical, no shorthand */
  sti();
  WAIT_UNTIL(taken >= 2, 100000);
  cli();
  check_eq("physical destination = own APIC ID: taken", taken, 2);
  check_eq("physical destination = own APIC ID: vector 72h", order[1], 0x72);
}

void kernel_main(uint32_t magic, const uint32_t* multiboot_info);
void kernel_main(uint32_t magic, const uint32_t* multiboot_info) {
  (void)multiboot_info;
  print("apic_priority_kernel\n");
  check_eq("Multiboot magic", magic, 0x2BADB002);
  idt_install();
  static const uint8_t recorded[] = {0x41, 0x45, 0x55, 0x65, 0x70, 0x71, 0x72};
  for (uint32_t i = 0; i < sizeof recorded; ++i) handlers[recorded[i]] = record_and_eoi;
  handlers[0x51] = handler_51;
  handlers[0x61] = handler_61;
  handlers[ILLEGAL_VECTOR] = illegal_vector_handler;
  handlers[SPURIOUS_VECTOR] = spurious_handler;
  pic_init(0xFF, 0xFF);
  lapic_enable();

  check_svr_and_tpr();
  check_tpr_masking();
  check_nesting();
  check_shorthands();
  check_esr();
  check_true("ISR clear at the end", lapic_bits_clear(LAPIC_ISR), 0);
  finish();
}
