/* A Multiboot test kernel for the virtual wire through LINT0 (Intel SDM Vol. 3,
 * "Advanced Programmable Interrupt Controller (APIC)": "Local Vector Table", delivery
 * mode ExtINT; MP Specification, "Virtual Wire Mode"): with the local APIC software-
 * enabled and LVT LINT0 = ExtINT unmasked, the 8254's IRQ 0 still reaches the CPU
 * through the 8259A with the 8259A's vector (20h) and the 8259A's EOI, and never enters
 * the local APIC's ISR; with LINT0 masked it does not reach the CPU (the request waits
 * in the 8259A's IRR), and unmasked again it does. Report and exit codes: apic_kernel.h. */
#include "apic_kernel.h"

#define SPURIOUS_VECTOR 0xFF
#define PIC_VECTOR 0x20 /* master 8259A base 20h, IRQ 0 */
#define PIT_COUNT 1193  /* 1193182 Hz / 1193: about 1 kHz */

static volatile uint32_t taken, lapic_isr_bit_set, pic_isr_bit_clear;

static void pit_handler(struct interrupt_frame* frame) {
  (void)frame;
  if (lapic_vector_bit(LAPIC_ISR, PIC_VECTOR)) ++lapic_isr_bit_set;
  outb(0x20, 0x0B); /* OCW3: read ISR */
  if (!(inb(0x20) & 0x01)) ++pic_isr_bit_clear;
  ++taken;
  outb(0x20, 0x20); /* the 8259A's non-specific EOI; none to the local APIC */
}
static volatile uint32_t spurious_irq7;
static void spurious_irq7_handler(struct interrupt_frame* frame) {
  (void)frame;
  ++spurious_irq7;
}
static void spurious_handler(struct interrupt_frame* frame) { (void)frame; }

void kernel_main(uint32_t magic, const uint32_t* multiboot_info);
void kernel_main(uint32_t magic, const uint32_t* multiboot_info) {
  (void)multiboot_info;
  print("virtual_wire_kernel\n");
  check_eq("Multiboot magic", magic, 0x2BADB002);
  idt_install();
  handlers[PIC_VECTOR] = pit_handler;
  handlers[PIC_VECTOR + 7] = spurious_irq7_handler;
  handlers[SPURIOUS_VECTOR] = spurious_handler;
  pic_init(0xFE, 0xFF); /* only IRQ 0 */
  lapic_enable();       /* LINT0 masked */
  check_eq("SVR software-enabled", lapic_read(LAPIC_SVR) & SVR_ENABLE, SVR_ENABLE);

  lapic_write(LAPIC_LVT_LINT0, LVT_DELIVERY_EXTINT);
  check_eq("LVT LINT0 reads back ExtINT, unmasked", lapic_read(LAPIC_LVT_LINT0) & 0x10700, LVT_DELIVERY_EXTINT);
  pit_counter0(2, PIT_COUNT);
  sti();
  WAIT_UNTIL(taken >= 5, 20000000);
  cli();
  check_true("LINT0 ExtINT: PIT interrupts arrive with the 8259A's vector 20h", taken >= 5, taken);
  check_eq("LINT0 ExtINT: local APIC ISR bit 20h clear in every handler", lapic_isr_bit_set, 0);
  check_eq("LINT0 ExtINT: 8259A ISR bit 0 set in every handler", pic_isr_bit_clear, 0);
  check_true("LINT0 ExtINT: local APIC ISR clear", lapic_bits_clear(LAPIC_ISR), 0);

  /* QUIRK (QEMU 7.2): masking LINT0 while the 8259A holds INTR up leaves QEMU's CPU an
   * interrupt request that it acknowledges as vector -1, a #GP with error code
   * FFFFFFFAh (seen with -icount shift=10). The 8259A's IMR takes INTR down first, so
   * LINT0 changes while INTR is low, as a careful kernel would do it on hardware. */
  outb(0x21, 0xFF);
  lapic_write(LAPIC_LVT_LINT0, LVT_MASKED | LVT_DELIVERY_EXTINT);
  outb(0x21, 0xFE);
  check_eq("LVT LINT0 reads back masked", lapic_read(LAPIC_LVT_LINT0) & 0x10700, LVT_MASKED | LVT_DELIVERY_EXTINT);
  uint32_t masked_at = check_quiet_for_five_pit_periods(&taken, "LINT0 masked: five PIT periods pass",
                                                        "LINT0 masked: no PIT interrupt in five PIT periods");
  outb(0x20, 0x0A); /* OCW3: read IRR */
  check_eq("LINT0 masked: IRQ 0 waits in the 8259A's IRR", inb(0x20) & 0x01, 1);

  lapic_write(LAPIC_LVT_LINT0, LVT_DELIVERY_EXTINT);
  sti();
  WAIT_UNTIL(taken >= masked_at + 3, 20000000);
  cli();
  check_true("LINT0 unmasked again: PIT interrupts resume", taken >= masked_at + 3, taken - masked_at);
  outb(0x21, 0xFF);
  info("spurious IRQ 7", spurious_irq7);
  finish();
}
