/* What the APIC test kernels share: the report on the debug console, the IDT over the
 * stubs of apic_entry.asm, the local APIC's and the I/O APIC's registers, MSRs and
 * CPUID, the 8259A pair and the 8254 (Intel SDM Vol. 3, "Advanced Programmable
 * Interrupt Controller (APIC)"; Intel 82093AA I/O APIC data sheet; Intel 8259A and
 * 8254 data sheets).
 *
 * Report: one line per check on port E9h, "ok <check>" or "FAIL <check>: got X
 * expected Y" (hexadecimal), lines starting "info" for values that are printed but not
 * checked; at the end "PASS" and exit code 10h, or "FAIL" and 11h, through port F4h
 * (QEMU's isa-debug-exit). The kernels run on x86lab (--kernel) and on
 * qemu-system-i386 -cpu pentium3 -kernel; waits are bounded by polling counts and by
 * ordering facts (a counter that wrapped, a count that reached zero), never wall time.
 * Each kernel is one C file that includes this header once (it defines
 * interrupt_dispatch, which apic_entry.asm calls, and the kernel's static state). */
#ifndef X86LAB_APIC_KERNEL_H
#define X86LAB_APIC_KERNEL_H
#include <stdint.h>

#include "guest_io.h"

/* ---- report ---------------------------------------------------------------------- */

static inline void print(const char* s) {
  while (*s) outb(0xE9, (uint8_t)*s++);
}
static inline void print_hex(uint32_t v) {
  int digits = 8;
  while (digits > 1 && (v >> ((digits - 1) * 4)) == 0) --digits;
  for (int i = digits - 1; i >= 0; --i) outb(0xE9, (uint8_t)"0123456789ABCDEF"[(v >> (i * 4)) & 0xF]);
  outb(0xE9, 'h');
}

static uint32_t check_failures;

/* "<prefix><value in decimal><suffix>", for check names that carry a parameter; one
 * buffer, so valid until the next call. */
static char name_buffer[128];
static inline const char* named(const char* prefix, uint32_t value, const char* suffix) {
  char* out = name_buffer;
  char* const end = name_buffer + sizeof name_buffer - 1;
  while (*prefix && out < end) *out++ = *prefix++;
  char digits[10];
  int n = 0;
  do digits[n++] = (char)('0' + value % 10); while ((value /= 10) != 0);
  while (n && out < end) *out++ = digits[--n];
  while (*suffix && out < end) *out++ = *suffix++;
  *out = 0;
  return name_buffer;
}

/* Prints "ok WHAT\n" and returns 1 when `passed`; else counts a failure, prints
 * "FAIL WHAT: got GOT" (the caller ends the line) and returns 0. */
static inline int report(const char* what, int passed, uint32_t got) {
  if (passed) {
    print("ok ");
    print(what);
    print("\n");
    return 1;
  }
  ++check_failures;
  print("FAIL ");
  print(what);
  print(": got ");
  print_hex(got);
  return 0;
}
/* Reports check `what`: passes when `got` equals `expected`. Returns whether it passed. */
static inline int check_eq(const char* what, uint32_t got, uint32_t expected) {
  if (report(what, got == expected, got)) return 1;
  print(" expected ");
  print_hex(expected);
  print("\n");
  return 0;
}
/* Reports check `what` on a condition; `got` is printed when it fails. */
static inline int check_true(const char* what, int condition, uint32_t got) {
  if (report(what, condition, got)) return 1;
  print("\n");
  return 0;
}
static inline void info(const char* what, uint32_t value) {
  print("info ");
  print(what);
  print(" ");
  print_hex(value);
  print("\n");
}
/* PASS and exit 10h when every check passed, else FAIL and 11h. */
__attribute__((noreturn)) static inline void finish(void) {
  print(check_failures == 0 ? "PASS\n" : "FAIL\n");
  guest_exit(check_failures == 0 ? 0x10 : 0x11);
}

/* ---- interrupts -------------------------------------------------------------------- */

/* The stack apic_entry.asm builds: PUSHAD's registers, the vector, the error code (0
 * where the CPU pushes none), then the CPU's EIP, CS, EFLAGS. */
struct interrupt_frame {
  uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax;
  uint32_t vector, error_code;
  uint32_t eip, cs, eflags;
};
typedef void (*interrupt_handler)(struct interrupt_frame*);

static interrupt_handler handlers[256];

/* Called by every stub; a vector without a handler fails the kernel. */
void interrupt_dispatch(struct interrupt_frame* frame);
void interrupt_dispatch(struct interrupt_frame* frame) {
  if (handlers[frame->vector & 0xFF]) {
    handlers[frame->vector & 0xFF](frame);
    return;
  }
  ++check_failures;
  print("FAIL unexpected interrupt or exception: vector ");
  print_hex(frame->vector);
  print(" error code ");
  print_hex(frame->error_code);
  print(" at EIP ");
  print_hex(frame->eip);
  print("\n");
  finish();
}

struct __attribute__((packed)) idt_gate {
  uint16_t offset_low, selector;
  uint8_t zero, type;
  uint16_t offset_high;
};
static struct idt_gate idt[256];
extern const uint32_t interrupt_stubs[256];

/* Every vector to its stub through a 32-bit interrupt gate (type 8Eh: IF cleared on entry). */
static inline void idt_install(void) {
  uint16_t cs;
  __asm__ volatile("mov %%cs, %0" : "=r"(cs));
  for (int v = 0; v < 256; ++v) {
    uint32_t offset = interrupt_stubs[v];
    idt[v] = (struct idt_gate){(uint16_t)offset, cs, 0, 0x8E, (uint16_t)(offset >> 16)};
  }
  struct __attribute__((packed)) { uint16_t limit; uint32_t base; } idtr = {sizeof idt - 1, (uint32_t)idt};
  __asm__ volatile("lidt %0" : : "m"(idtr));
}

static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
/* STI; HLT: the STI shadow keeps an interrupt from slipping in before the HLT. */
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
/* A taken jump: QEMU's translator takes pending interrupts at the start of a
 * translated block, so an interrupt made deliverable by the instruction before this
 * one is taken here at the latest (x86lab and hardware take it at the next boundary). */
static inline void interrupt_window(void) { __asm__ volatile("jmp 1f\n1:" ::: "memory"); }

/* Polls `condition` up to `polls` times, each through an interrupt window; returns it. */
#define WAIT_UNTIL(condition, polls)                                         \
  ({                                                                         \
    for (uint32_t wait_i_ = 0; wait_i_ < (polls) && !(condition); ++wait_i_) \
      interrupt_window();                                                    \
    (condition);                                                             \
  })

/* ---- MSRs and CPUID ---------------------------------------------------------------- */

static inline uint64_t rdmsr(uint32_t msr) {
  uint32_t lo, hi;
  __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
  return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t value) {
  __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)) : "memory");
}
static inline void cpuid(uint32_t leaf, uint32_t* eax, uint32_t* ebx, uint32_t* ecx, uint32_t* edx) {
  __asm__ volatile("cpuid" : "=a"(*eax), "=b"(*ebx), "=c"(*ecx), "=d"(*edx) : "a"(leaf), "c"(0));
}

#define IA32_APIC_BASE 0x1B
#define APIC_BASE_BSP (1u << 8)
#define APIC_BASE_ENABLE (1u << 11)

/* ---- local APIC (SDM "Local APIC Register Address Map") ----------------------------- */

#define LAPIC_ID 0x020
#define LAPIC_VERSION 0x030
#define LAPIC_TPR 0x080
#define LAPIC_APR 0x090
#define LAPIC_PPR 0x0A0
#define LAPIC_EOI 0x0B0
#define LAPIC_LDR 0x0D0
#define LAPIC_DFR 0x0E0
#define LAPIC_SVR 0x0F0
#define LAPIC_ISR 0x100 /* 8 registers, 10h apart: vectors 32*i .. 32*i+31 */
#define LAPIC_TMR 0x180
#define LAPIC_IRR 0x200
#define LAPIC_ESR 0x280
#define LAPIC_ICR_LOW 0x300
#define LAPIC_ICR_HIGH 0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE 0x3E0

#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_TIMER_PERIODIC (1u << 17)
#define LVT_DELIVERY_EXTINT (7u << 8)
#define LVT_DELIVERY_NMI (4u << 8)
#define ICR_DELIVERY_STATUS (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_SHORTHAND_SELF (1u << 18)
#define ICR_SHORTHAND_ALL_EXCLUDING_SELF (3u << 18)
#define ESR_SEND_ILLEGAL_VECTOR (1u << 5)

/* Where the local APIC's registers are (IA32_APIC_BASE bits 31:12). */
static uint32_t lapic_base = 0xFEE00000;

static inline uint32_t lapic_read(uint32_t offset) { return *(volatile uint32_t*)(lapic_base + offset); }
static inline void lapic_write(uint32_t offset, uint32_t value) {
  *(volatile uint32_t*)(lapic_base + offset) = value;
}
/* Bit `vector` of the 256-bit ISR, TMR or IRR (`first`: LAPIC_ISR, LAPIC_TMR, LAPIC_IRR). */
static inline int lapic_vector_bit(uint32_t first, uint8_t vector) {
  return (lapic_read(first + 0x10u * (vector >> 5)) >> (vector & 31)) & 1;
}
/* The 256-bit register `first` as a whole is zero. */
static inline int lapic_bits_clear(uint32_t first) {
  uint32_t any = 0;
  for (uint32_t i = 0; i < 8; ++i) any |= lapic_read(first + 0x10 * i);
  return any == 0;
}
static inline void lapic_eoi(void) { lapic_write(LAPIC_EOI, 0); }
/* A fixed, edge-triggered IPI through the ICR: `icr_low` carries vector and shorthand. */
static inline void lapic_send(uint32_t icr_low) {
  lapic_write(LAPIC_ICR_HIGH, 0);
  lapic_write(LAPIC_ICR_LOW, icr_low | ICR_LEVEL_ASSERT);
}
static inline void lapic_self_ipi(uint8_t vector) { lapic_send(ICR_SHORTHAND_SELF | vector); }
/* Software-enables the local APIC with spurious vector FFh, TPR 0, LINT0/LINT1/error/
 * timer masked. */
static inline void lapic_enable(void) {
  lapic_write(LAPIC_SVR, SVR_ENABLE | 0xFF);
  lapic_write(LAPIC_TPR, 0);
  lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | 0xEF);
  lapic_write(LAPIC_LVT_LINT0, LVT_MASKED | LVT_DELIVERY_EXTINT);
  lapic_write(LAPIC_LVT_LINT1, LVT_MASKED | LVT_DELIVERY_NMI);
  lapic_write(LAPIC_LVT_ERROR, LVT_MASKED | 0xEE);
}

/* ---- I/O APIC (82093AA data sheet, "Register Description") --------------------------- */

#define IOAPIC_BASE 0xFEC00000u
#define IOAPIC_ID 0x00
#define IOAPIC_VERSION 0x01
#define IOAPIC_REDIRECTION(pin) (0x10u + 2u * (pin)) /* low half; high half at +1 */
#define REDIRECTION_MASKED (1u << 16)
#define REDIRECTION_LEVEL (1u << 15)
#define REDIRECTION_REMOTE_IRR (1u << 14)
#define REDIRECTION_DELIVERY_STATUS (1u << 12)

static inline uint32_t ioapic_read(uint32_t index) {
  *(volatile uint32_t*)IOAPIC_BASE = index; /* IOREGSEL */
  return *(volatile uint32_t*)(IOAPIC_BASE + 0x10); /* IOWIN */
}
static inline void ioapic_write(uint32_t index, uint32_t value) {
  *(volatile uint32_t*)IOAPIC_BASE = index;
  *(volatile uint32_t*)(IOAPIC_BASE + 0x10) = value;
}

/* ---- 8259A pair and 8254 ----------------------------------------------------------- */

/* ICW1-ICW4: edge, cascade, 8086 mode; bases 20h (master) and 28h (slave); every IRQ
 * masked except those clear in `master_mask` / `slave_mask`. */
static inline void pic_init(uint8_t master_mask, uint8_t slave_mask) {
  outb(0x20, 0x11); outb(0x21, 0x20); outb(0x21, 0x04); outb(0x21, 0x01);
  outb(0xA0, 0x11); outb(0xA1, 0x28); outb(0xA1, 0x02); outb(0xA1, 0x01);
  outb(0x21, master_mask);
  outb(0xA1, slave_mask);
}
/* 8254 counter 0 in `mode` (2 rate generator, 3 square wave), binary, `count` clocks. */
static inline void pit_counter0(uint8_t mode, uint16_t count) {
  outb(0x43, (uint8_t)(0x30 | (mode << 1)));
  outb(0x40, (uint8_t)count);
  outb(0x40, (uint8_t)(count >> 8));
}
/* Counter 0's count, latched (counter latch command). */
static inline uint16_t pit_counter0_read(void) {
  outb(0x43, 0x00);
  uint8_t lo = inb(0x40);
  return (uint16_t)(lo | (inb(0x40) << 8));
}
/* Waits until counter 0 (counting down, reloading) has wrapped `periods` times: a read
 * above the previous one is a reload. Returns whether it did within a bounded number
 * of reads, so that a stopped counter fails instead of hanging. */
static inline int pit_wait_periods(uint32_t periods) {
  uint16_t previous = pit_counter0_read();
  uint32_t wraps = 0;
  for (uint32_t reads = 0; reads < 20000000 && wraps < periods; ++reads) {
    uint16_t now = pit_counter0_read();
    if (now > previous) ++wraps;
    previous = now;
  }
  return wraps >= periods;
}
/* With interrupts enabled for five PIT periods (counter 0 running), checks that the
 * interrupt counted by `*taken` does not come: `periods_pass` names the check that the
 * periods passed, `nothing_taken` the check that the count stayed. An interrupt already
 * on its way when called is taken first. Returns the count before the five periods. */
static inline uint32_t check_quiet_for_five_pit_periods(const volatile uint32_t* taken, const char* periods_pass,
                                                        const char* nothing_taken) {
  sti();
  WAIT_UNTIL(0, 2000);
  uint32_t before = *taken;
  int waited = pit_wait_periods(5);
  WAIT_UNTIL(0, 2000);
  cli();
  check_true(periods_pass, waited, 0);
  check_eq(nothing_taken, *taken, before);
  return before;
}

#endif
