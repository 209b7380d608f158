/* A Multiboot kernel that echoes what COM1 receives until it receives 'q', then leaves
 * through the exit port with 10h (exit status 33): the guest of the serial console
 * tests (tests/ui/console_monitor.sh). Polls the 16550A's line status register (LSR
 * bit 0, data ready; bit 5, transmit holding register empty) with interrupts off. */
#include <stdint.h>

#include "guest_io.h"

static void put(char c) {
  while (!(inb(0x3FD) & 0x20)) {
  }
  outb(0x3F8, (uint8_t)c);
}

static void print(const char* s) {
  while (*s) put(*s++);
}

/* The entry stubs of start.asm name these; interrupts stay off, so none is taken. */
void irq0_handler(void) {}
void spurious7_handler(void) {}
void unexpected_handler(void) { guest_exit(0x11); }

void kernel_main(void) {
  print("echo_kernel: type q to quit\n");
  for (;;) {
    while (!(inb(0x3FD) & 0x01)) {
    }
    const char c = (char)inb(0x3F8);
    if (c == 'q') break;
    put(c);
  }
  print("\necho_kernel: bye\n");
  guest_exit(0x10);
}
