/* A Multiboot kernel with debug symbols (-g -O0) for the gdb stub test
 * (tests/gdb/gdb_session.sh): kernel_main calls bump() three times, then
 * add_twice(counter, 5), prints "done" on the debug console (port E9h) and leaves
 * through the exit port (F4h): 10h for PASS (result 3 + 2 * 5 = 13), 11h for FAIL.
 * The test changes `counter` through gdb, which must turn the result into FAIL.
 * Self-contained: its own Multiboot header (Multiboot Specification 0.6.96, "Header
 * layout") and entry, no interrupts. */
#include <stdint.h>

#define MULTIBOOT_MAGIC 0x1BADB002u
#define MULTIBOOT_FLAGS 0x00000003u /* page-align modules, memory information */

__attribute__((section(".multiboot"), used, aligned(4))) static const uint32_t multiboot_header[3] = {
    MULTIBOOT_MAGIC, MULTIBOOT_FLAGS, (uint32_t)-(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)};

uint8_t kernel_stack[8192] __attribute__((aligned(16)));
volatile uint32_t counter;
volatile uint32_t result;

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }

static void print(const char* s) {
  while (*s) outb(0xE9, (uint8_t)*s++);
}

__attribute__((noinline)) void bump(void) { counter = counter + 1; }

__attribute__((noinline)) uint32_t add_twice(uint32_t a, uint32_t b) {
  uint32_t sum = a + 2 * b;
  return sum;
}

void kernel_main(void) {
  for (int i = 0; i < 3; ++i) bump();
  result = add_twice(counter, 5);
  print("done\n");
  outb(0xF4, result == 13 ? 0x10 : 0x11);
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
