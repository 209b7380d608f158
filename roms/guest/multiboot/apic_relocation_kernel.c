/* A Multiboot test kernel for relocating the local APIC's registers (Intel SDM Vol. 3,
 * "Advanced Programmable Interrupt Controller (APIC)": "Relocating the Local APIC
 * Registers", IA32_APIC_BASE): WRMSR 1Bh moves the 4-KiByte register page to another
 * base; the registers keep their contents, answer at the new base and no longer at the
 * old one, and a self-IPI and its EOI work through the new base; moved back, they
 * answer at FEE00000h again. No QEMU peer: QEMU 7.2 leaves the registers at FEE00000h
 * (docs/qemu-differences.md). Report and exit codes: apic_kernel.h. */
#include "apic_kernel.h"

#define SPURIOUS_VECTOR 0xFF
#define NEW_BASE 0xFEF00000u /* outside the FEE00000h-FEEFFFFFh range that QEMU decodes as APIC */
#define OLD_BASE 0xFEE00000u

static volatile uint32_t taken;
static void self_ipi_handler(struct interrupt_frame* frame) {
  (void)frame;
  ++taken;
  lapic_eoi(); /* through lapic_base, the new base */
}
static void spurious_handler(struct interrupt_frame* frame) { (void)frame; }

void kernel_main(uint32_t magic, const uint32_t* multiboot_info);
void kernel_main(uint32_t magic, const uint32_t* multiboot_info) {
  (void)multiboot_info;
  print("apic_relocation_kernel\n");
  check_eq("Multiboot magic", magic, 0x2BADB002);
  idt_install();
  handlers[0x50] = self_ipi_handler;
  handlers[SPURIOUS_VECTOR] = spurious_handler;
  pic_init(0xFF, 0xFF);
  lapic_enable();

  uint64_t msr = rdmsr(IA32_APIC_BASE);
  check_eq("IA32_APIC_BASE low half is FEE00900h at start", (uint32_t)msr, OLD_BASE | APIC_BASE_ENABLE | APIC_BASE_BSP);
  uint32_t version = lapic_read(LAPIC_VERSION);
  lapic_write(LAPIC_TPR, 0x20);

  wrmsr(IA32_APIC_BASE, NEW_BASE | ((uint32_t)msr & 0xFFF));
  check_eq("IA32_APIC_BASE reads back the new base FEF00900h", (uint32_t)rdmsr(IA32_APIC_BASE),
           NEW_BASE | APIC_BASE_ENABLE | APIC_BASE_BSP);
  lapic_base = NEW_BASE;
  check_eq("new base: version register as before", lapic_read(LAPIC_VERSION), version);
  check_eq("new base: TPR kept its value 20h", lapic_read(LAPIC_TPR) & 0xFF, 0x20);
  check_eq("new base: SVR kept its value 1FFh", lapic_read(LAPIC_SVR) & 0x3FF, 0x1FF);
  lapic_write(LAPIC_TPR, 0x30);
  check_eq("new base: TPR written 30h reads back", lapic_read(LAPIC_TPR) & 0xFF, 0x30);
  check_true("old base: no longer reads the TPR",
             (*(volatile uint32_t*)(OLD_BASE + LAPIC_TPR) & 0xFF) != 0x30, *(volatile uint32_t*)(OLD_BASE + LAPIC_TPR));
  *(volatile uint32_t*)(OLD_BASE + LAPIC_TPR) = 0x40;
  check_eq("old base: a write does not reach the TPR", lapic_read(LAPIC_TPR) & 0xFF, 0x30);

  lapic_write(LAPIC_TPR, 0);
  sti();
  lapic_self_ipi(0x50);
  WAIT_UNTIL(taken != 0, 100000);
  cli();
  check_eq("new base: self-IPI through the ICR taken", taken, 1);
  check_true("new base: ISR clear after the EOI", lapic_bits_clear(LAPIC_ISR), 0);

  wrmsr(IA32_APIC_BASE, msr);
  lapic_base = OLD_BASE;
  check_eq("IA32_APIC_BASE back at FEE00900h", (uint32_t)rdmsr(IA32_APIC_BASE), OLD_BASE | APIC_BASE_ENABLE | APIC_BASE_BSP);
  lapic_write(LAPIC_TPR, 0x10);
  check_eq("base FEE00000h again: TPR written 10h reads back", lapic_read(LAPIC_TPR) & 0xFF, 0x10);
  lapic_write(LAPIC_TPR, 0);
  finish();
}
