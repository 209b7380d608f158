/* Port I/O, the time-stamp counter and the exit port for the freestanding Multiboot
 * kernels (gcc -m32 -ffreestanding; roms/guest/multiboot, roms/scenarios/<name>).
 * Included by each kernel's C file; every function is static inline so a kernel that
 * uses one gets exactly the instructions it would get from its own copy.
 * Sources: SDM Vol. 2, OUT, IN, RDTSC, CLI and HLT. */
#ifndef X86LAB_GUEST_IO_H
#define X86LAB_GUEST_IO_H
#include <stdint.h>

/* OUT DX/imm8, AL: one byte to I/O port `port` (0-FFFFh). */
static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
/* IN AL, DX/imm8: one byte from I/O port `port` (0-FFFFh). */
static inline uint8_t inb(uint16_t port) {
  uint8_t v;
  __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
/* RDTSC: the time-stamp counter (x86lab: the modelled cycle count). */
static inline uint64_t rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
}
/* Writes `status` to the exit port F4h (x86lab's exit port, QEMU's isa-debug-exit: the
 * process exit status is status * 2 + 1) and, should the port be absent, halts with
 * interrupts disabled for ever. The kernels use 10h for success. */
__attribute__((noreturn)) static inline void guest_exit(uint8_t status) {
  outb(0xF4, status);
  for (;;) __asm__ volatile("cli; hlt");
}

#endif
