/* Lab 4 (docs/labs/04-paging.md): a page walk, the Accessed and Dirty bits, and a stale
 * TLB entry. A Multiboot kernel with debug symbols (-O0 -g), loaded at 1 MiB, printing on
 * the debug console (port E9h). Sources: SDM Vol. 3, "Paging" (32-bit paging: the
 * page-directory and page-table entry formats, "Accessed and Dirty Flags") and "Invalidation
 * of TLBs and Paging-Structure Caches" (a PTE change is not seen until INVLPG or a CR3 load
 * removes the TLB entry; the processor may keep using the old translation).
 *  1. Identity-maps 0-4 MiB with one page table, and maps the single linear page 400000h
 *     (second page table) to the physical page of page_a; enables paging.
 *  2. Reads linear 400000h: the walk sets A in the PDE and the PTE; writes 400004h: D in
 *     the PTE.
 *  3. Points the PTE at page_b without INVLPG: the read still returns page_a's word (the
 *     TLB's translation); after INVLPG 400000h it returns page_b's.
 * Leaves through the exit port F4h: 10h when every step saw what the SDM says. */
#include <stdint.h>

#include "guest_io.h"

#define MULTIBOOT_MAGIC 0x1BADB002u
#define MULTIBOOT_FLAGS 0x00000003u
__attribute__((section(".multiboot"), used, aligned(4))) static const uint32_t multiboot_header[3] = {
    MULTIBOOT_MAGIC, MULTIBOOT_FLAGS, (uint32_t)-(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)};

enum { PTE_P = 1u << 0, PTE_RW = 1u << 1, PTE_A = 1u << 5, PTE_D = 1u << 6 };
#define LINEAR 0x400000u

uint32_t page_directory[1024] __attribute__((aligned(4096)));
uint32_t low_table[1024] __attribute__((aligned(4096)));  /* 0-4 MiB, identity */
uint32_t high_table[1024] __attribute__((aligned(4096))); /* 4-8 MiB: only 400000h */
uint32_t page_a[1024] __attribute__((aligned(4096)));
uint32_t page_b[1024] __attribute__((aligned(4096)));
uint8_t kernel_stack[8192] __attribute__((aligned(16)));
static int failures;

static void print(const char* s) {
  while (*s) outb(0xE9, (uint8_t)*s++);
}

static void print_hex(uint32_t value) {
  for (int i = 7; i >= 0; --i) outb(0xE9, (uint8_t)"0123456789ABCDEF"[(value >> (4 * i)) & 0xF]);
}

static void show(const char* what, uint32_t value, uint32_t expected) {
  print(what);
  print_hex(value);
  if (value != expected) {
    print(" (expected ");
    print_hex(expected);
    print(")");
    ++failures;
  }
  print("\n");
}

static void show_entry_bits(void) {
  const uint32_t pde = page_directory[LINEAR >> 22], pte = high_table[(LINEAR >> 12) & 0x3FF];
  print("  PDE[1] ");
  print_hex(pde);
  print(pde & PTE_A ? " A=1" : " A=0");
  print("   PTE ");
  print_hex(pte);
  print(pte & PTE_A ? " A=1" : " A=0");
  print(pte & PTE_D ? " D=1\n" : " D=0\n");
}

static volatile uint32_t* const mapped = (volatile uint32_t*)LINEAR;

void kernel_main(void) {
  page_a[0] = 0xAAAAAAAAu;
  page_b[0] = 0xBBBBBBBBu;
  for (uint32_t i = 0; i < 1024; ++i) low_table[i] = (i << 12) | PTE_RW | PTE_P;
  high_table[0] = (uint32_t)page_a | PTE_RW | PTE_P;
  page_directory[0] = (uint32_t)low_table | PTE_RW | PTE_P;
  page_directory[1] = (uint32_t)high_table | PTE_RW | PTE_P;
  __asm__ volatile(
      "mov %0, %%cr3\n"
      "mov %%cr0, %%eax\n"
      "or $0x80000000, %%eax\n"
      "mov %%eax, %%cr0\n" ::"r"(page_directory)
      : "eax", "memory");
  print("lab 4: paging on, linear 00400000h -> page_a\n");
  show_entry_bits();
  show("read [00400000h] = ", *mapped, 0xAAAAAAAAu);
  show_entry_bits();
  if ((page_directory[1] & PTE_A) == 0 || (high_table[0] & (PTE_A | PTE_D)) != PTE_A) ++failures;
  mapped[1] = 1;
  print("wrote [00400004h]\n");
  show_entry_bits();
  if ((high_table[0] & PTE_D) == 0) ++failures;
  high_table[0] = (uint32_t)page_b | PTE_RW | PTE_P;
  print("PTE now points at page_b, no INVLPG\n");
  show("read [00400000h] = ", *mapped, 0xAAAAAAAAu);
  __asm__ volatile("invlpg (%0)" ::"r"(LINEAR) : "memory");
  print("INVLPG 00400000h\n");
  show("read [00400000h] = ", *mapped, 0xBBBBBBBBu);
  print(failures == 0 ? "lab 4 done\n" : "lab 4 FAILED\n");
  guest_exit(failures == 0 ? 0x10 : 0x11);
}

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "  mov $kernel_stack + 8192, %esp\n"
        "  call kernel_main\n"
        "1: cli\n"
        "  hlt\n"
        "  jmp 1b\n");
