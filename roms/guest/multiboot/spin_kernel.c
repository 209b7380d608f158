/* A Multiboot kernel that prints one line on COM1 and then spins without touching any
 * device: the serial console's Ctrl-A keys must still act (tests/ui/console_monitor.sh),
 * as they would for a hung kernel. */
#include <stdint.h>

#include "guest_io.h"

void irq0_handler(void) {}
void spurious7_handler(void) {}
void unexpected_handler(void) { guest_exit(0x11); }

void kernel_main(void) {
  for (const char* s = "spin_kernel: spinning\n"; *s; ++s) {
    while (!(inb(0x3FD) & 0x20)) {
    }
    outb(0x3F8, (uint8_t)*s);
  }
  for (;;) __asm__ volatile("");
}
