/* A Multiboot test kernel for the I/O APIC (Intel 82093AA I/O APIC data sheet,
 * "Register Description": IOAPICVER, the I/O redirection table; Intel SDM Vol. 3,
 * "Advanced Programmable Interrupt Controller (APIC)": "IRR, ISR and TMR", "Signaling
 * Interrupt Servicing Completion"). The 8254's counter 0 (ISA IRQ 0, wired to I/O APIC
 * pin 2 on the PC, as the MP table's and ACPI's interrupt source override say) drives
 * pin 2 with both 8259As masked: the version register, a redirection entry's read back,
 * edge-triggered delivery through the local APIC with the programmed vector, masking,
 * and a level-triggered entry's remote IRR, set on delivery and cleared by the local
 * APIC's EOI. Report and exit codes: apic_kernel.h. */
#include "apic_kernel.h"

#define SPURIOUS_VECTOR 0xFF
#define EDGE_VECTOR 0x30
#define LEVEL_VECTOR 0x31
#define PIT_PIN 2
#define PIT_COUNT 1193 /* 1193182 Hz / 1193: about 1 kHz */

static volatile uint32_t edge_taken, edge_isr_bit_clear, edge_tmr_bit_set;

static void edge_handler(struct interrupt_frame* frame) {
  (void)frame;
  if (!lapic_vector_bit(LAPIC_ISR, EDGE_VECTOR)) ++edge_isr_bit_clear;
  if (lapic_vector_bit(LAPIC_TMR, EDGE_VECTOR)) ++edge_tmr_bit_set;
  ++edge_taken;
  lapic_eoi();
}

static volatile uint32_t level_taken, level_remote_irr_in_handler, level_remote_irr_after_eoi, level_tmr_in_handler;

static void level_handler(struct interrupt_frame* frame) {
  (void)frame;
  ++level_taken;
  level_remote_irr_in_handler = ioapic_read(IOAPIC_REDIRECTION(PIT_PIN)) & REDIRECTION_REMOTE_IRR;
  level_tmr_in_handler = (uint32_t)lapic_vector_bit(LAPIC_TMR, LEVEL_VECTOR);
  lapic_eoi();
  level_remote_irr_after_eoi = ioapic_read(IOAPIC_REDIRECTION(PIT_PIN)) & REDIRECTION_REMOTE_IRR;
}
static void spurious_handler(struct interrupt_frame* frame) { (void)frame; } /* no EOI (SDM) */

static void redirect(uint32_t pin, uint32_t low, uint32_t destination) {
  ioapic_write(IOAPIC_REDIRECTION(pin), REDIRECTION_MASKED | low); /* masked while the halves change */
  ioapic_write(IOAPIC_REDIRECTION(pin) + 1, destination << 24);
  ioapic_write(IOAPIC_REDIRECTION(pin), low);
}

static void check_registers(uint32_t apic_id) {
  uint32_t version = ioapic_read(IOAPIC_VERSION);
  info("I/O APIC version register", version);
  check_eq("I/O APIC maximum redirection entry 17h (24 pins)", (version >> 16) & 0xFF, 0x17);
  /* The 82093AA's version is 11h; QEMU 7.2's I/O APIC says 20h. Printed, not checked
   * (docs/qemu-differences.md). */
  info("I/O APIC version (82093AA: 11h)", version & 0xFF);
  info("I/O APIC ID register", ioapic_read(IOAPIC_ID));
  for (uint32_t pin = 0; pin < 24; ++pin) ioapic_write(IOAPIC_REDIRECTION(pin), REDIRECTION_MASKED);
  check_eq("redirection entry 0 reads back masked", ioapic_read(IOAPIC_REDIRECTION(0)) & REDIRECTION_MASKED,
           REDIRECTION_MASKED);

  /* Fixed, physical, active high, edge, masked: the writable bits read back. */
  redirect(PIT_PIN, REDIRECTION_MASKED | EDGE_VECTOR, apic_id);
  check_eq("redirection entry 2 low half reads back (vector 30h, fixed, edge, masked)",
           ioapic_read(IOAPIC_REDIRECTION(PIT_PIN)) & ~(REDIRECTION_REMOTE_IRR | REDIRECTION_DELIVERY_STATUS),
           REDIRECTION_MASKED | EDGE_VECTOR);
  check_eq("redirection entry 2 destination reads back", ioapic_read(IOAPIC_REDIRECTION(PIT_PIN) + 1) >> 24,
           apic_id);
}

/* Edge: pin 2 delivers vector 30h through the local APIC (ISR bit set, TMR bit clear);
 * a masked entry delivers nothing; unmasked again, it delivers again. */
static void check_edge(uint32_t apic_id) {
  pit_counter0(2, PIT_COUNT);
  redirect(PIT_PIN, EDGE_VECTOR, apic_id);
  sti();
  WAIT_UNTIL(edge_taken >= 5, 20000000);
  cli();
  check_true("edge entry: PIT interrupts arrive as vector 30h", edge_taken >= 5, edge_taken);
  check_eq("edge entry: ISR bit 30h set in every handler", edge_isr_bit_clear, 0);
  check_eq("edge entry: TMR bit 30h clear in every handler", edge_tmr_bit_set, 0);
  check_eq("edge entry: remote IRR stays 0", ioapic_read(IOAPIC_REDIRECTION(PIT_PIN)) & REDIRECTION_REMOTE_IRR, 0);

  ioapic_write(IOAPIC_REDIRECTION(PIT_PIN), REDIRECTION_MASKED | EDGE_VECTOR);
  /* a message sent before the mask is taken first */
  uint32_t masked_at = check_quiet_for_five_pit_periods(&edge_taken, "masked entry: five PIT periods pass",
                                                        "masked entry: no interrupt in five PIT periods");

  ioapic_write(IOAPIC_REDIRECTION(PIT_PIN), EDGE_VECTOR);
  sti();
  WAIT_UNTIL(edge_taken >= masked_at + 3, 20000000);
  cli();
  check_true("unmasked again: interrupts resume", edge_taken >= masked_at + 3, edge_taken - masked_at);
  ioapic_write(IOAPIC_REDIRECTION(PIT_PIN), REDIRECTION_MASKED | EDGE_VECTOR);
  sti();
  WAIT_UNTIL(0, 2000);
  cli();
}

/* Level: with IF clear, the entry delivers vector 31h into the IRR with its TMR bit set
 * and sets remote IRR; the entry is then masked so that the (edge) source cannot send
 * again, and the EOI of 31h clears remote IRR. */
static void check_level(uint32_t apic_id) {
  redirect(PIT_PIN, REDIRECTION_LEVEL | LEVEL_VECTOR, apic_id);
  uint32_t periods = 0;
  while (!lapic_vector_bit(LAPIC_IRR, LEVEL_VECTOR) && periods < 20 && pit_wait_periods(1)) ++periods;
  ioapic_write(IOAPIC_REDIRECTION(PIT_PIN), REDIRECTION_MASKED | REDIRECTION_LEVEL | LEVEL_VECTOR);
  uint32_t entry = ioapic_read(IOAPIC_REDIRECTION(PIT_PIN));
  check_eq("level entry: IRR bit 31h set", lapic_vector_bit(LAPIC_IRR, LEVEL_VECTOR), 1);
  check_eq("level entry: TMR bit 31h set", lapic_vector_bit(LAPIC_TMR, LEVEL_VECTOR), 1);
  check_eq("level entry: remote IRR set before the EOI", entry & REDIRECTION_REMOTE_IRR, REDIRECTION_REMOTE_IRR);
  check_eq("level entry: reads back level, masked, vector 31h",
           entry & ~(REDIRECTION_REMOTE_IRR | REDIRECTION_DELIVERY_STATUS),
           REDIRECTION_MASKED | REDIRECTION_LEVEL | LEVEL_VECTOR);
  sti();
  WAIT_UNTIL(level_taken != 0, 100000);
  WAIT_UNTIL(0, 2000);
  cli();
  check_eq("level entry: vector 31h taken once", level_taken, 1);
  check_eq("level entry: remote IRR still set in the handler", level_remote_irr_in_handler, REDIRECTION_REMOTE_IRR);
  check_eq("level entry: TMR bit 31h set in the handler", level_tmr_in_handler, 1);
  check_eq("level entry: remote IRR cleared by the local APIC's EOI", level_remote_irr_after_eoi, 0);
  check_eq("level entry: remote IRR still clear", ioapic_read(IOAPIC_REDIRECTION(PIT_PIN)) & REDIRECTION_REMOTE_IRR, 0);
}

void kernel_main(uint32_t magic, const uint32_t* multiboot_info);
void kernel_main(uint32_t magic, const uint32_t* multiboot_info) {
  (void)multiboot_info;
  print("ioapic_kernel\n");
  check_eq("Multiboot magic", magic, 0x2BADB002);
  idt_install();
  handlers[EDGE_VECTOR] = edge_handler;
  handlers[LEVEL_VECTOR] = level_handler;
  handlers[SPURIOUS_VECTOR] = spurious_handler;
  pic_init(0xFF, 0xFF); /* both 8259As masked: IRQ 0 reaches the CPU only through the I/O APIC */
  lapic_enable();
  uint32_t apic_id = lapic_read(LAPIC_ID) >> 24;

  check_registers(apic_id);
  check_edge(apic_id);
  check_level(apic_id);
  check_true("local APIC ISR clear at the end", lapic_bits_clear(LAPIC_ISR), 0);
  finish();
}
