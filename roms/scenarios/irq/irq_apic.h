/* The APIC path of the irq scenario kernels (APIC=1; docs/scenarios/irq.md, "The APIC
 * variants"): the 8259A pair initialised and fully masked, the local APIC software-enabled
 * at FEE00000h, and the 82093AA I/O APIC at FEC00000h routing ISA IRQ 0 (pin 2), IRQ 3
 * (pin 3) and IRQ 8 (pin 8) as edge-triggered, active-high, fixed interrupts to physical
 * APIC ID 0, with the vectors Linux's i386 I/O APIC code handed out. Every interrupt ends
 * with a write to the local APIC's EOI register instead of the 8259A's OCW2.
 * Sources: Intel SDM Vol. 3, "Advanced Programmable Interrupt Controller (APIC)" (the
 * register page, "Spurious-Interrupt Vector Register", "EOI Register", "Local Vector
 * Table", IA32_APIC_BASE); Intel 82093AA I/O APIC data sheet ("I/O Redirection Table
 * Registers", IOREGSEL/IOWIN). Included by irq_kernel.c after scenario_console.h (fail)
 * and its SYSCALL_VECTOR. */
#ifndef X86LAB_IRQ_APIC_H
#define X86LAB_IRQ_APIC_H
#include <stdint.h>

/* ---- Local APIC (SDM "Local APIC Register Address Map": 16-byte aligned registers) ---- */
#define LAPIC_BASE 0xFEE00000u /* IA32_APIC_BASE's reset value, the page Linux maps */
#define LAPIC_ID 0x020         /* bits 31:24: the APIC ID */
#define LAPIC_TPR 0x080        /* task priority */
#define LAPIC_EOI 0x0B0        /* write 0: end of the highest in-service interrupt */
#define LAPIC_SVR 0x0F0        /* bit 8: APIC software enable; bits 7:0: spurious vector */
#define LAPIC_ISR0 0x100       /* in-service bits 31:0; ISR n at 100h + 10h * n */
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LVT_MASKED (1u << 16)
#define LVT_DELIVERY_EXTINT (7u << 8)
#define LVT_DELIVERY_NMI (4u << 8)
#define SPURIOUS_APIC_VECTOR 0xFF /* Linux's; on the P6 bits 3:0 of the vector are fixed 1 */
#define IA32_APIC_BASE 0x1B
#define APIC_BASE_ENABLE (1u << 11) /* the APIC global enable */

static inline uint32_t lapic_read(uint32_t reg) { return *(volatile const uint32_t*)(LAPIC_BASE + reg); }
static inline void lapic_write(uint32_t reg, uint32_t value) { *(volatile uint32_t*)(LAPIC_BASE + reg) = value; }

/* ---- I/O APIC (82093AA: an index register and a data window) ---- */
#define IOAPIC_BASE 0xFEC00000u
#define IOAPIC_REGSEL 0x00
#define IOAPIC_WINDOW 0x10
#define IOAPIC_VERSION 0x01     /* bits 23:16: the highest redirection entry's number */
#define IOAPIC_REDIRECTION_LOW(pin) (0x10 + 2 * (pin))
#define IOAPIC_REDIRECTION_HIGH(pin) (0x11 + 2 * (pin))
/* Redirection entry, low dword: 7:0 vector, 10:8 delivery mode (000 fixed), 11
 * destination mode (0 physical), 12 delivery status (read-only), 13 polarity (0 high),
 * 14 remote IRR (read-only), 15 trigger mode (0 edge), 16 mask. High dword: 31:24 the
 * destination (an APIC ID in physical mode). */
#define REDIRECTION_MASKED (1u << 16)
#define REDIRECTION_READ_ONLY ((1u << 12) | (1u << 14))

static uint32_t ioapic_read(uint32_t reg) {
  *(volatile uint32_t*)(IOAPIC_BASE + IOAPIC_REGSEL) = reg;
  return *(volatile const uint32_t*)(IOAPIC_BASE + IOAPIC_WINDOW);
}
static void ioapic_write(uint32_t reg, uint32_t value) {
  *(volatile uint32_t*)(IOAPIC_BASE + IOAPIC_REGSEL) = reg;
  *(volatile uint32_t*)(IOAPIC_BASE + IOAPIC_WINDOW) = value;
}

/* The I/O APIC pin a PC wires ISA IRQ `irq` to: the same number, but IRQ 0 (the 8254)
 * on pin 2 (the MP table's and the MADT's interrupt source override; pin 0 carries the
 * 8259A's INT, ExtINT). IRQ 2, the cascade, has no pin. */
static unsigned isa_irq_pin(unsigned irq) { return irq == 0 ? 2 : irq; }

/* ---- Vector assignment as Linux's i386 io_apic.c did it (read in 2.6.13 and 2.6.19) ----
 * The rule (from the kernel history; written down in docs/scenarios/irq.md): IRQ 0 is
 * given FIRST_DEVICE_VECTOR = 31h in advance; every other IRQ, in the order
 * setup_IO_APIC_irqs meets them (I/O APIC pins in ascending order), gets the previous
 * vector + 8, so that consecutive IRQs land in different priority classes (vector >> 4);
 * past FIRST_SYSTEM_VECTOR (EFh, the local APIC timer's) the search starts over at 31h +
 * offset with the offset one higher (mod 8); a vector already in use, such as the
 * system-call vector 80h, is skipped. With the ISA IRQs of a PC on pins 1 and 3-15 and
 * IRQ 0 on pin 2 this gives IRQ 1 39h, IRQ 0 31h, IRQ 3 41h, IRQ 4 49h, ..., IRQ 8 69h. */
#define FIRST_DEVICE_VECTOR 0x31
#define FIRST_SYSTEM_VECTOR 0xEF
#define ISA_IRQS 16
static uint8_t vector_of_irq[ISA_IRQS];   /* 0: none yet */
static uint8_t irq_of_vector[256];        /* IRQ + 1; 0: no IRQ */
static unsigned current_vector = FIRST_DEVICE_VECTOR, current_offset;

static void assign_irq_vector(unsigned irq) {
  if (vector_of_irq[irq]) return;
  unsigned vector = current_vector, offset = current_offset;
  do {
    vector += 8;
    if (vector >= FIRST_SYSTEM_VECTOR) {
      offset = (offset + 1) % 8;
      vector = FIRST_DEVICE_VECTOR + offset;
    }
    if (vector == current_vector) fail("out of device vectors");
  } while (vector == SYSCALL_VECTOR || irq_of_vector[vector]);
  current_vector = vector;
  current_offset = offset;
  vector_of_irq[irq] = (uint8_t)vector;
  irq_of_vector[vector] = (uint8_t)(irq + 1);
}

static void assign_isa_vectors(void) {
  vector_of_irq[0] = FIRST_DEVICE_VECTOR;
  irq_of_vector[FIRST_DEVICE_VECTOR] = 0 + 1;
  for (unsigned pin = 1; pin < ISA_IRQS; ++pin) assign_irq_vector(pin == 2 ? 0 : pin);
}

/* Unmasks `irq`'s redirection entry: the high dword first (destination APIC ID 0), then
 * the low one, which unmasks (the order Linux writes entries in, so that an entry is
 * never live half-written); reads it back. */
static void route_isa_irq(unsigned irq) {
  const unsigned pin = isa_irq_pin(irq);
  const uint32_t low = vector_of_irq[irq]; /* fixed, physical, active high, edge, unmasked */
  ioapic_write(IOAPIC_REDIRECTION_HIGH(pin), 0u << 24);
  ioapic_write(IOAPIC_REDIRECTION_LOW(pin), low);
  if ((ioapic_read(IOAPIC_REDIRECTION_LOW(pin)) & ~REDIRECTION_READ_ONLY) != low) fail("redirection entry reads back otherwise");
}

/* The vector `irq`'s redirection entry holds now (for the report). */
static uint32_t routed_vector(unsigned irq) { return ioapic_read(IOAPIC_REDIRECTION_LOW(isa_irq_pin(irq))) & 0xFF; }

static inline uint64_t rdmsr(uint32_t msr) {
  uint32_t lo, hi;
  __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
  return ((uint64_t)hi << 32) | lo;
}

static void setup_apic(void) {
  uint32_t eax = 1, ebx, ecx, edx;
  __asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx));
  if (!(edx & (1u << 9))) fail("no local APIC (CPUID.1:EDX.APIC clear)");
  if ((uint32_t)rdmsr(IA32_APIC_BASE) >> 11 != (LAPIC_BASE | APIC_BASE_ENABLE) >> 11)
    fail("IA32_APIC_BASE is not FEE00000h, enabled");
  if (lapic_read(LAPIC_ID) >> 24 != 0) fail("the local APIC's ID is not 0");
  /* The 8259A pair initialised as in the 8259 variants (bases 20h and 28h), then every
   * input masked: no interrupt takes that path. */
  outb(0x20, 0x11); outb(0x21, 0x20); outb(0x21, 0x04); outb(0x21, 0x01);
  outb(0xA0, 0x11); outb(0xA1, 0x28); outb(0xA1, 0x02); outb(0xA1, 0x01);
  outb(0x21, 0xFF);
  outb(0xA1, 0xFF);
  /* Local APIC: accept every priority, LINT0 (the 8259A's INT) masked, LINT1 NMI as
   * Linux sets it on the boot CPU, then software-enabled with the spurious vector. */
  lapic_write(LAPIC_TPR, 0);
  lapic_write(LAPIC_LVT_LINT0, LVT_MASKED | LVT_DELIVERY_EXTINT);
  lapic_write(LAPIC_LVT_LINT1, LVT_DELIVERY_NMI);
  lapic_write(LAPIC_SVR, (1u << 8) | SPURIOUS_APIC_VECTOR);
  if ((lapic_read(LAPIC_SVR) & 0x1FF) != ((1u << 8) | SPURIOUS_APIC_VECTOR)) fail("SVR reads back otherwise");
  /* I/O APIC: every entry masked (as Linux's clear_IO_APIC), vectors assigned, then the
   * three sources routed, before the devices are set up so that no first edge is lost. */
  const unsigned entries = ((ioapic_read(IOAPIC_VERSION) >> 16) & 0xFF) + 1;
  if (entries < ISA_IRQS) fail("I/O APIC with fewer than 16 redirection entries");
  for (unsigned pin = 0; pin < entries; ++pin) ioapic_write(IOAPIC_REDIRECTION_LOW(pin), REDIRECTION_MASKED);
  assign_isa_vectors();
  route_isa_irq(0);
  route_isa_irq(3);
  route_isa_irq(8);
}

/* The local APIC's eight ISR registers ORed together: 0 once every interrupt taken has
 * been ended with an EOI. */
static uint32_t in_service_bits(void) {
  uint32_t any = 0;
  for (uint32_t i = 0; i < 8; ++i) any |= lapic_read(LAPIC_ISR0 + 0x10 * i);
  return any;
}

#endif
