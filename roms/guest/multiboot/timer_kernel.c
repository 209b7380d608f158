/* A Multiboot test kernel that takes 8254 timer interrupts through the 8259A:
 * remaps the PIC to 20h, programs counter 0 for mode 2 at about 1 kHz, sleeps in HLT
 * between interrupts and checks ISR/IRR, EOI, the Multiboot information, RDTSC
 * progress, the counter 2 / port 61h OUT bit and the COM1 loopback. Prints on the
 * debug console (port E9h) and COM1, and leaves through the exit port (F4h): 10h for
 * PASS, 11h for FAIL. Runs on x86lab and on qemu-system-i386 -kernel. */
#include <stdint.h>

#include "guest_io.h"

#define TICKS 20
#define PIT_COUNT 1193 /* 1193182 Hz / 1193 = 1000.15 Hz */


static void putc_all(char c) {
  outb(0xE9, (uint8_t)c);
  if ((inb(0x3FC) & 0x10) == 0) { /* not in loopback: COM1 transmit when empty */
    for (int i = 0; i < 100000 && !(inb(0x3FD) & 0x20); ++i) {
    }
    outb(0x3F8, (uint8_t)c);
  }
}
static void print(const char* s) {
  while (*s) putc_all(*s++);
}
static void print_hex(uint32_t v) {
  for (int i = 28; i >= 0; i -= 4) putc_all("0123456789ABCDEF"[(v >> i) & 0xF]);
}
static void print_dec(uint32_t v) {
  char buffer[12];
  int n = 0;
  do buffer[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
  while (n) putc_all(buffer[--n]);
}

static void finish(int pass) {
  print(pass ? "PASS\n" : "FAIL\n");
  outb(0xF4, pass ? 0x10 : 0x11);
  for (;;) __asm__ volatile("cli; hlt");
}
#define CHECK(cond, what)           \
  do {                              \
    if (!(cond)) {                  \
      print("FAIL: " what "\n");    \
      finish(0);                    \
    }                               \
  } while (0)

struct __attribute__((packed)) gate {
  uint16_t offset_low, selector;
  uint8_t zero, type;
  uint16_t offset_high;
};
static struct gate idt[256];
extern void irq0_entry(void), spurious7_entry(void), unexpected_entry(void);

static volatile uint32_t ticks;
static volatile uint32_t isr_bit_seen, irr_bit_seen;
static volatile uint32_t tsc_at_tick[TICKS + 1]; /* low halves: the deltas fit in 32 bits */
static volatile uint32_t spurious;

void irq0_handler(void) {
  outb(0x20, 0x0B); /* OCW3: read ISR */
  if (inb(0x20) & 0x01) ++isr_bit_seen;
  outb(0x20, 0x0A); /* OCW3: read IRR */
  if (!(inb(0x20) & 0x01)) ++irr_bit_seen; /* the request moved from IRR to ISR */
  if (ticks <= TICKS) tsc_at_tick[ticks] = (uint32_t)rdtsc();
  ++ticks;
  outb(0x20, 0x20); /* non-specific EOI */
}
void spurious7_handler(void) { ++spurious; }
void unexpected_handler(void) {
  print("FAIL: unexpected interrupt or exception\n");
  finish(0);
}

static void set_gate(int vector, void (*entry)(void)) {
  uint32_t offset = (uint32_t)entry;
  uint16_t cs;
  __asm__ volatile("mov %%cs, %0" : "=r"(cs));
  idt[vector] = (struct gate){(uint16_t)offset, cs, 0, 0x8E, (uint16_t)(offset >> 16)};
}

void kernel_main(uint32_t magic, const uint32_t* info) {
  print("timer_kernel: Multiboot magic ");
  print_hex(magic);
  print("\n");
  CHECK(magic == 0x2BADB002, "Multiboot magic in EAX");
  CHECK(info[0] & 1, "Multiboot memory fields present");
  CHECK(info[1] >= 512 && info[1] <= 640, "mem_lower is about 640 KiB");
  print("timer_kernel: mem_upper KiB ");
  print_dec(info[2]);
  print("\n");

  for (int v = 0; v < 256; ++v) set_gate(v, unexpected_entry);
  set_gate(0x20, irq0_entry);
  set_gate(0x27, spurious7_entry);
  struct __attribute__((packed)) { uint16_t limit; uint32_t base; } idtr = {sizeof idt - 1, (uint32_t)idt};
  __asm__ volatile("lidt %0" : : "m"(idtr));

  /* 8259A pair: edge, cascade, ICW4; bases 20h and 28h; only IRQ 0 unmasked. */
  outb(0x20, 0x11); outb(0x21, 0x20); outb(0x21, 0x04); outb(0x21, 0x01);
  outb(0xA0, 0x11); outb(0xA1, 0x28); outb(0xA1, 0x02); outb(0xA1, 0x01);
  outb(0x21, 0xFE);
  outb(0xA1, 0xFF);
  CHECK(inb(0x21) == 0xFE, "IMR reads back");

  /* 8254 counter 0: mode 2, LSB then MSB. */
  outb(0x43, 0x34);
  outb(0x40, PIT_COUNT & 0xFF);
  outb(0x40, PIT_COUNT >> 8);

  __asm__ volatile("sti");
  while (ticks < TICKS + 1) __asm__ volatile("hlt");
  __asm__ volatile("cli");
  CHECK(isr_bit_seen == ticks, "ISR bit 0 set in every handler");
  CHECK(irr_bit_seen == ticks, "IRR bit 0 clear after acknowledge");
  outb(0x20, 0x0B);
  CHECK(inb(0x20) == 0, "ISR clear after EOI");

  uint32_t per_tick = (tsc_at_tick[TICKS] - tsc_at_tick[0]) / TICKS;
  print("timer_kernel: ");
  print_dec(ticks);
  print(" timer interrupts, TSC cycles per interrupt ");
  print_dec(per_tick);
  print("\n");
  CHECK(per_tick > 0, "TSC advances between timer interrupts");

  /* Counter 2 in mode 0 through port 61h: OUT (bit 5) rises at terminal count. */
  outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01));
  outb(0x43, 0xB0);
  outb(0x42, 100);
  outb(0x42, 0);
  CHECK((inb(0x61) & 0x20) == 0, "counter 2 OUT low while counting");
  int polls = 0;
  while (!(inb(0x61) & 0x20) && polls < 10000000) ++polls;
  CHECK(inb(0x61) & 0x20, "counter 2 OUT high at terminal count");

  /* COM1 loopback (16550A). */
  outb(0x3FC, 0x10);
  outb(0x3F8, 'Z');
  CHECK(inb(0x3FD) & 0x01, "COM1 loopback data ready");
  CHECK(inb(0x3F8) == 'Z', "COM1 loopback byte");
  outb(0x3FC, 0x03);

  print("timer_kernel: spurious IRQ 7 count ");
  print_dec(spurious);
  print("\n");
  finish(1);
}
