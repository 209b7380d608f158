/* A Multiboot kernel with debug symbols (-g -O0) for the reverse-execution test
 * (tests/gdb/reverse_session.sh): it loads a GDT of its own (null, flat code, flat
 * data), calls bump() three times, then writes GDT entry 3 (a flat ring-0 data
 * segment, SDM Vol. 3 "Segment Descriptors": base 0, limit FFFFFh pages, type 2,
 * S = 1, P = 1, D/B = 1, G = 1: 00CF9200_0000FFFFh) low dword first, loads DS with
 * its selector 18h, prints "done" on the debug console (port E9h) and leaves through
 * the exit port (F4h) with 10h. The labels gdt_write_low, gdt_write_high and
 * load_ds_insn name the instructions the test expects reverse execution to stop at.
 * Self-contained: its own Multiboot header (Multiboot Specification 0.6.96, "Header
 * layout") and entry, no interrupts. */
#include <stdint.h>

#define MULTIBOOT_MAGIC 0x1BADB002u
#define MULTIBOOT_FLAGS 0x00000003u /* page-align modules, memory information */

__attribute__((section(".multiboot"), used, aligned(4))) static const uint32_t multiboot_header[3] = {
    MULTIBOOT_MAGIC, MULTIBOOT_FLAGS, (uint32_t)-(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)};

uint8_t kernel_stack[8192] __attribute__((aligned(16)));
volatile uint32_t counter;
volatile uint64_t gdt[4] __attribute__((aligned(8)));
struct __attribute__((packed)) {
  uint16_t limit;
  uint32_t base;
} gdtr;

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }

static void print(const char* s) {
  while (*s) outb(0xE9, (uint8_t)*s++);
}

__attribute__((noinline)) void bump(void) { counter = counter + 1; }

/* Two 32-bit stores, each at a label. */
__attribute__((noinline)) void set_entry(volatile uint64_t* entry, uint32_t low, uint32_t high) {
  __asm__ volatile(".globl gdt_write_low\ngdt_write_low: movl %1, (%0)\n"
                   ".globl gdt_write_high\ngdt_write_high: movl %2, 4(%0)"
                   :
                   : "r"(entry), "r"(low), "r"(high)
                   : "memory");
}

__attribute__((noinline)) void load_ds(uint16_t selector) {
  __asm__ volatile(".globl load_ds_insn\nload_ds_insn: movw %0, %%ds" : : "r"(selector) : "memory");
}

void kernel_main(void) {
  /* The loader's flat segments: CS 10h and DS/ES/SS 18h in its GDT; ours keeps the
   * code segment at 08h and data at 10h, and the caches stay until a reload. */
  gdt[1] = 0x00CF9A000000FFFFull;
  gdt[2] = 0x00CF92000000FFFFull;
  gdtr.limit = sizeof gdt - 1;
  gdtr.base = (uint32_t)(uintptr_t)gdt;
  __asm__ volatile("lgdt %0" : : "m"(gdtr));
  for (int i = 0; i < 3; ++i) bump();
  set_entry(&gdt[3], 0x0000FFFFu, 0x00CF9200u);
  load_ds(0x18);
  print("done\n");
  outb(0xF4, 0x10);
  for (;;) __asm__ volatile("cli; hlt");
}

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "  mov $kernel_stack + 8192, %esp\n"
        "  call kernel_main\n"
        "1: cli\n"
        "  hlt\n"
        "  jmp 1b\n");
