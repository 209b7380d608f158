/* Lab 3 (docs/labs/03-fault-delivery.md): a #GP delivered from ring 3 to ring 0, then a
 * double fault. A Multiboot kernel with debug symbols (-O0 -g) that sets up its own GDT,
 * IDT and TSS and prints on the debug console (port E9h):
 *  1. In ring 3, MOV DS with selector 0010h (a DPL-0 data segment) raises #GP(0010h)
 *     (SDM Vol. 2, MOV: "If the DS ... register is being loaded and ... the segment
 *     selector's RPL and the CPL are not both less than or equal to the DPL: #GP(selector)").
 *     The gate is a DPL-0 interrupt gate to ring-0 code, so the CPU switches to the stack
 *     in the TSS (SS0:ESP0) and pushes SS, ESP, EFLAGS, CS, EIP and the error code (SDM
 *     Vol. 3, "Exception and Interrupt Handling", "Stack Switching"). The handler prints
 *     that frame and resumes after the faulting instruction.
 *  2. Back in ring 3, INT 80h (a DPL-3 trap gate) enters the kernel. There the #GP gate's
 *     code segment selector is set to 0030h, beyond the GDT limit, and the kernel loads DS
 *     with the TSS's selector 0028h: #GP(0028h). Delivering it needs the gate's code
 *     segment, which raises #GP(0031h: selector 30h with EXT = 1) -- a contributory
 *     exception while delivering a contributory exception, so the CPU delivers #DF(0)
 *     instead (SDM Vol. 3, "Interrupt 8 - Double Fault Exception (#DF)", table
 *     "Conditions for Generating a Double Fault").
 *  3. The #DF handler prints its frame and leaves through the exit port F4h (10h: PASS).
 * With "triple" on the Multiboot command line (x86lab run --kernel ... --append triple)
 * the #DF gate is broken the same way, so delivering #DF faults again: the processor
 * shuts down (a triple fault; SDM "Interrupt 8", "If another exception occurs while
 * attempting to call the double-fault handler, the processor enters shutdown mode").
 */
#include <stdint.h>

#include "guest_io.h"

#define MULTIBOOT_MAGIC 0x1BADB002u
#define MULTIBOOT_FLAGS 0x00000003u
__attribute__((section(".multiboot"), used, aligned(4))) static const uint32_t multiboot_header[3] = {
    MULTIBOOT_MAGIC, MULTIBOOT_FLAGS, (uint32_t)-(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)};

enum { SEL_KCODE = 0x08, SEL_KDATA = 0x10, SEL_UCODE = 0x18 | 3, SEL_UDATA = 0x20 | 3, SEL_TSS = 0x28, SEL_BAD = 0x30 };

/* The 32-bit TSS (SDM Vol. 3, "32-Bit Task-State Segment (TSS)"): ESP0 at 4, SS0 at 8,
 * the I/O map base at 102. */
struct tss {
  uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
  uint32_t es, cs, ss, ds, fs, gs, ldtr;
  uint16_t trap, iomap_base;
};

/* What the stubs leave on the ring-0 stack: PUSHAD's registers, then the CPU's frame. */
struct frame {
  uint32_t edi, esi, ebp, esp_at_pushad, ebx, edx, ecx, eax;
  uint32_t error_code, eip, cs, eflags, esp, ss; /* esp and ss: only from ring 3 */
};

uint64_t gdt[7] __attribute__((aligned(8)));
uint64_t idt[256] __attribute__((aligned(8)));
struct tss tss __attribute__((aligned(128)));
uint8_t kernel_stack[8192] __attribute__((aligned(16)));
uint8_t ring0_stack[4096] __attribute__((aligned(16)));
uint8_t ring3_stack[4096] __attribute__((aligned(16)));
volatile uint32_t gp_count;
static int triple; /* "triple" on the command line */

static uint64_t segment_descriptor(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags) {
  return (uint64_t)(limit & 0xFFFF) | (uint64_t)(base & 0xFFFFFF) << 16 | (uint64_t)access << 40 |
         (uint64_t)((limit >> 16) & 0xF) << 48 | (uint64_t)(flags & 0xF) << 52 | (uint64_t)(base >> 24) << 56;
}

static uint64_t gate(uint16_t selector, void (*target)(void), uint8_t type_attr) {
  const uint32_t offset = (uint32_t)target;
  return (uint64_t)(offset & 0xFFFF) | (uint64_t)selector << 16 | (uint64_t)type_attr << 40 |
         (uint64_t)(offset >> 16) << 48;
}

static void print(const char* s) {
  while (*s) outb(0xE9, (uint8_t)*s++);
}

static void print_hex(uint32_t value, int digits) {
  for (int i = digits - 1; i >= 0; --i) outb(0xE9, (uint8_t)"0123456789ABCDEF"[(value >> (4 * i)) & 0xF]);
}

static void print_field(const char* name, uint32_t value, int digits) {
  print(name);
  print_hex(value, digits);
  print("h");
}

void gp_entry(void);
void df_entry(void);
void syscall_entry(void);
void user_start(void);
extern char user_fault[], user_after[], kernel_fault[];

void gp_handler(struct frame* f) {
  ++gp_count;
  print("#GP delivered:");
  print_field(" error code ", f->error_code, 4);
  print_field(" CS:EIP ", f->cs, 4);
  print_field(":", f->eip, 8);
  print_field(" EFLAGS ", f->eflags, 8);
  print_field(" SS:ESP ", f->ss, 4);
  print_field(":", f->esp, 8);
  print("\n");
  print_field("  handler stack: TSS.ESP0 ", tss.esp0, 8);
  print_field(", frame at ", (uint32_t)&f->error_code, 8);
  print(" (6 dwords below ESP0)\n");
  if (f->eip == (uint32_t)user_fault) f->eip = (uint32_t)user_after; /* skip the MOV DS */
}

__attribute__((noreturn)) void df_handler(struct frame* f) {
  print("#DF delivered:");
  print_field(" error code ", f->error_code, 4);
  print_field(" CS:EIP ", f->cs, 4);
  print_field(":", f->eip, 8);
  /* The SDM leaves the saved CS:EIP of a #DF undefined; x86lab, like QEMU, saves the
   * instruction of the first #GP. */
  print(f->eip == (uint32_t)kernel_fault ? " (the instruction of the first #GP)\n" : " (another instruction)\n");
  print(gp_count == 1 && f->error_code == 0 ? "lab 3 done\n" : "lab 3 FAILED\n");
  guest_exit(gp_count == 1 && f->error_code == 0 ? 0x10 : 0x11);
}

/* INT 80h from ring 3: part 2, the double fault. */
void syscall_handler(struct frame* f) {
  print_field("INT 80h from ring 3: CS ", f->cs, 4);
  print("\n");
  idt[13] = gate(SEL_BAD, gp_entry, 0x8E); /* the #GP gate now names a selector beyond the GDT limit */
  print("the #GP gate's selector is now 0030h; loading DS with the TSS selector 0028h\n");
  if (triple) {
    idt[8] = gate(SEL_BAD, df_entry, 0x8E);
    print("the #DF gate's selector is 0030h too: expect a triple fault\n");
  }
  __asm__ volatile(
      ".globl kernel_fault\n"
      "kernel_fault:\n"
      "  mov %0, %%ds\n" ::"r"((uint16_t)SEL_TSS));
  print("not reached\n");
  guest_exit(0x11);
}

/* The Multiboot information (Multiboot Specification 0.6.96, "Boot information format"):
 * flags bit 2, the command line's physical address at offset 16. */
struct multiboot_info {
  uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
};

static int has_word(const char* text, const char* word) {
  for (; *text; ++text) {
    int i = 0;
    while (word[i] && text[i] == word[i]) ++i;
    if (!word[i]) return 1;
  }
  return 0;
}

void kernel_main(uint32_t magic, const struct multiboot_info* info) {
  triple = magic == 0x2BADB002u && (info->flags & 4) && info->cmdline && has_word((const char*)info->cmdline, "triple");
  gdt[0] = 0;
  gdt[1] = segment_descriptor(0, 0xFFFFF, 0x9A, 0xC); /* 08h: ring-0 code */
  gdt[2] = segment_descriptor(0, 0xFFFFF, 0x92, 0xC); /* 10h: ring-0 data */
  gdt[3] = segment_descriptor(0, 0xFFFFF, 0xFA, 0xC); /* 18h: ring-3 code */
  gdt[4] = segment_descriptor(0, 0xFFFFF, 0xF2, 0xC); /* 20h: ring-3 data */
  gdt[5] = segment_descriptor((uint32_t)&tss, sizeof tss - 1, 0x89, 0x0); /* 28h: available 32-bit TSS */
  struct {
    uint16_t limit;
    uint32_t base;
  } __attribute__((packed)) gdtr = {6 * 8 - 1, (uint32_t)gdt}, idtr = {sizeof idt - 1, (uint32_t)idt};
  idt[8] = gate(SEL_KCODE, df_entry, 0x8E);       /* interrupt gate, DPL 0 */
  idt[13] = gate(SEL_KCODE, gp_entry, 0x8E);      /* interrupt gate, DPL 0 */
  idt[0x80] = gate(SEL_KCODE, syscall_entry, 0xEF); /* trap gate, DPL 3 */
  tss.ss0 = SEL_KDATA;
  tss.esp0 = (uint32_t)(ring0_stack + sizeof ring0_stack);
  tss.iomap_base = sizeof tss;
  __asm__ volatile(
      "lgdt %0\n"
      "lidt %1\n"
      "ljmp $0x08, $1f\n"
      "1: mov $0x10, %%ax\n"
      "mov %%ax, %%ds\n"
      "mov %%ax, %%es\n"
      "mov %%ax, %%ss\n"
      "mov $0x28, %%ax\n"
      "ltr %%ax\n" ::"m"(gdtr),
      "m"(idtr)
      : "eax", "memory");
  print("lab 3: GDT, IDT and TSS loaded; entering ring 3\n");
  /* IRET to ring 3: SS, ESP, EFLAGS (IF = 0, IOPL = 0), CS, EIP. */
  __asm__ volatile(
      "push %0\n"
      "push %1\n"
      "push $0x002\n"
      "push %2\n"
      "push %3\n"
      "mov %0, %%eax\n"
      "mov %%ax, %%ds\n"
      "mov %%ax, %%es\n"
      "iret\n" ::"i"(SEL_UDATA),
      "r"((uint32_t)(ring3_stack + sizeof ring3_stack)), "i"(SEL_UCODE), "r"((uint32_t)user_start)
      : "eax");
  for (;;) __asm__ volatile("hlt");
}

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "  mov $kernel_stack + 8192, %esp\n"
        "  push %ebx\n" /* the Multiboot information */
        "  push %eax\n" /* 2BADB002h */
        "  call kernel_main\n"
        "1: cli\n"
        "  hlt\n"
        "  jmp 1b\n"
        /* The stubs: PUSHAD, the C handler with a pointer to the frame, POPAD, drop the
         * error code (#GP, #DF) or not (INT 80h), IRET. */
        ".globl gp_entry, df_entry, syscall_entry\n"
        "gp_entry:\n"
        "  pushal\n"
        "  push %esp\n"
        "  call gp_handler\n"
        "  add $4, %esp\n"
        "  popal\n"
        "  add $4, %esp\n"
        "  iret\n"
        "df_entry:\n"
        "  pushal\n"
        "  push %esp\n"
        "  call df_handler\n"
        "syscall_entry:\n"
        "  push $0\n" /* a zero in the error code's place, so struct frame fits */
        "  pushal\n"
        "  push %esp\n"
        "  call syscall_handler\n"
        /* Ring 3: the faulting load, then INT 80h. */
        ".globl user_start, user_fault, user_after\n"
        "user_start:\n"
        "  mov $0x10, %ax\n"
        "user_fault:\n"
        "  mov %ax, %ds\n"
        "user_after:\n"
        "  int $0x80\n"
        "  jmp user_after\n");
