/* The ring-0 hypervisor of the TLS scenario (docs/scenarios/tls.md), modeled on Xen
 * 2.0 (2004): it owns the GDT, IDT, TSS and page tables, runs a ring-1 guest kernel,
 * and clips every guest code/data segment below TLS_SEGMENT_CLIP (descriptor.h) unless
 * booted with mode=native. Hypercalls come in through int 0x82; #GP(0) goes to
 * gp_handler.c. Results go to the debug console (port E9h) as METRIC lines, and the
 * run ends through port F4h (10h = success). */
#include "hypervisor.h"

#include "guest_io.h"

struct start_info hv_start_info;
struct seg_desc hv_gdt[GDT_ENTRIES] __attribute__((aligned(8)));

struct gate {
  uint16_t offset_low, selector;
  uint8_t zero, type_attr;
  uint16_t offset_high;
};
static struct gate idt[256] __attribute__((aligned(8)));
static uint32_t tss[26] __attribute__((aligned(128)));
static uint32_t page_directory[1024] __attribute__((aligned(4096)));

static uint64_t descriptor_updates, hypercalls;
static struct seg_desc last_installed_tls;

/* start.asm */
extern char hv_stack_top[];
extern const uint32_t exception_entries[32];
void load_gdt(const void *gdtr);
void enter_outer_ring(uint32_t eip, uint32_t esp, uint32_t cs, uint32_t ds) __attribute__((noreturn));
void gp_entry(void);
void hypercall_entry(void);
void syscall_entry(void);
/* guest.c */
void guest_main(void);
extern char guest_stack_top[];

static inline void wrmsr(uint32_t msr, uint32_t low) {
  __asm__ volatile("wrmsr" : : "c"(msr), "a"(low), "d"(0));
}

void hv_console(const char *s, unsigned length) {
  for (unsigned i = 0; i < length; ++i) outb(0xE9, (uint8_t)s[i]);
}

static void console_text(const struct text *t) { hv_console(t->buf, t->len); }

__attribute__((noreturn)) static void hv_exit(int success) {
  guest_exit(success ? 0x10 : 0x01);
}

__attribute__((noreturn)) void hv_fail(const char *why, const struct frame *f) {
  struct text t = {.len = 0};
  text_str(&t, "FAIL ");
  text_str(&t, why);
  if (f) {
    text_str(&t, " at ");
    text_hex(&t, f->cs);
    text_char(&t, ':');
    text_hex(&t, f->eip);
    text_str(&t, " error ");
    text_hex(&t, f->error_code);
  }
  text_char(&t, '\n');
  console_text(&t);
  hv_exit(0);
}

void hv_unexpected(uint32_t vector, struct frame *f) {
  struct text t = {.len = 0};
  text_str(&t, "vector ");
  text_u64(&t, vector);
  text_char(&t, '\n');
  console_text(&t);
  hv_fail("unexpected exception", f);
}

static void set_gate(unsigned vector, void (*handler)(void), uint16_t selector, unsigned dpl) {
  const uint32_t offset = (uint32_t)handler;
  idt[vector].offset_low = (uint16_t)offset;
  idt[vector].offset_high = (uint16_t)(offset >> 16);
  idt[vector].selector = selector;
  idt[vector].zero = 0;
  idt[vector].type_attr = (uint8_t)(0x8E | (dpl << 5));  /* present 32-bit interrupt gate */
}

/* Applies the hypervisor's policy to a guest descriptor: the clip (except in native
 * mode). Returns 0 if the descriptor may not be installed. */
static int guest_descriptor(struct seg_desc *d) {
  if (!(d->high & DESC_PRESENT) || !(d->high & DESC_S) || desc_dpl(*d) == 0) return 0;
  if (hv_start_info.mode == MODE_NATIVE) return 1;
  if (!desc_expand_down(*d) && desc_base(*d) >= TLS_SEGMENT_CLIP) return 0;
  *d = desc_truncate(*d);
  return 1;
}

static int word_is(const char *word, unsigned length, const char *expected) {
  unsigned i = 0;
  for (; i < length && expected[i]; ++i)
    if (word[i] != expected[i]) return 0;
  return i == length && !expected[i];
}

/* "<name>=<decimal in [min, max]>" into *value; 0 when the word is not that knob. A
 * malformed or out-of-range value stops the run (hv_fail). */
static int knob_word(const char *word, unsigned length, const char *name, uint32_t min, uint32_t max,
                     uint32_t *value) {
  unsigned i = 0;
  for (; name[i]; ++i)
    if (i >= length || word[i] != name[i]) return 0;
  if (i >= length || word[i] != '=') return 0;
  uint32_t v = 0;
  unsigned digits = 0;
  for (++i; i < length; ++i, ++digits) {
    if (word[i] < '0' || word[i] > '9' || digits >= 9) hv_fail("bad knob value on the command line", 0);
    v = v * 10 + (uint32_t)(word[i] - '0');
  }
  if (!digits || v < min || v > max) hv_fail("knob value out of range on the command line", 0);
  *value = v;
  hv_start_info.knobs_given = 1;
  return 1;
}

static void parse_command_line(const char *s) {
  hv_start_info.mode = MODE_EMULATION;
  hv_start_info.rewrites = 0;
  hv_start_info.knobs.density = 100;
  hv_start_info.knobs.run = 0;
  hv_start_info.knobs.threads = 1;
  hv_start_info.knobs.bases = 1;
  while (s && *s) {
    while (*s == ' ') ++s;
    const char *word = s;
    while (*s && *s != ' ') ++s;
    const unsigned n = (unsigned)(s - word);
    if (word_is(word, n, "mode=native")) hv_start_info.mode = MODE_NATIVE;
    else if (word_is(word, n, "mode=emulation")) hv_start_info.mode = MODE_EMULATION;
    else if (word_is(word, n, "mode=flipping")) hv_start_info.mode = MODE_FLIPPING;
    else if (word_is(word, n, "rewrites=1")) hv_start_info.rewrites = 1;
    else if (word_is(word, n, "rewrites=0")) hv_start_info.rewrites = 0;
    else if (knob_word(word, n, "density", 1, 100, &hv_start_info.knobs.density)) continue;
    else if (knob_word(word, n, "run", 0, 64, &hv_start_info.knobs.run)) continue;
    else if (knob_word(word, n, "threads", 1, 16, &hv_start_info.knobs.threads)) continue;
    else if (knob_word(word, n, "bases", 1, 16, &hv_start_info.knobs.bases)) continue;
#ifdef TLS_STREAM
    else if (stream_command_word(word, n)) continue;
#endif
    else if (n) hv_fail("unknown command-line word", 0);
  }
  if (hv_start_info.knobs.bases > hv_start_info.knobs.threads) hv_fail("knob bases above threads on the command line", 0);
}

void hypervisor_main(uint32_t magic, const uint32_t *info) {
  if (magic != 0x2BADB002u) hv_fail("not booted by a Multiboot loader", 0);
  parse_command_line((info[0] & 4) ? (const char *)info[4] : 0);
#ifdef TLS_STREAM
  stream_load(info);
#endif

  /* GDT: the hypervisor's flat ring-0 segments, the guest's ring-1 and ring-3 segments
   * (clipped like any guest descriptor), the TLS entry (empty until the guest asks)
   * and the TSS. Accessed is preset on all but the TLS entry, so the only implied
   * locked Accessed-bit writes of a run are the TLS descriptor's. */
  hv_gdt[1] = desc_make(0, 0xFFFFF, 0x9B, 0xC);
  hv_gdt[2] = desc_make(0, 0xFFFFF, 0x93, 0xC);
  hv_gdt[3] = desc_make(0, 0xFFFFF, 0xBB, 0xC);
  hv_gdt[4] = desc_make(0, 0xFFFFF, 0xB3, 0xC);
  hv_gdt[5] = desc_make(0, 0xFFFFF, 0xFB, 0xC);
  hv_gdt[7] = desc_make(0, 0xFFFFF, 0xF3, 0xC);
  for (unsigned i = 3; i <= 7; ++i)
    if (i != GDT_TLS_ENTRY && !guest_descriptor(&hv_gdt[i])) hv_fail("guest segment", 0);
  hv_gdt[SEL_TSS >> 3] = desc_make((uint32_t)tss, sizeof tss - 1, 0x89, 0x0);
  struct __attribute__((packed)) { uint16_t limit; uint32_t base; } gdtr = {sizeof hv_gdt - 1, (uint32_t)hv_gdt};
  load_gdt(&gdtr);

  /* TSS: ring-0 and ring-1 stacks. */
  tss[1] = (uint32_t)hv_stack_top;
  tss[2] = SEL_HV_DATA;
  tss[3] = (uint32_t)guest_stack_top;
  tss[4] = SEL_GUEST_DATA;
  tss[25] = sizeof tss << 16;  /* I/O map base beyond the limit: no I/O bitmap */
  __asm__ volatile("ltr %w0" : : "r"(SEL_TSS));

  for (unsigned v = 0; v < 32; ++v) set_gate(v, (void (*)(void))exception_entries[v], SEL_HV_CODE, 0);
  set_gate(13, gp_entry, SEL_HV_CODE, 0);
  set_gate(HYPERCALL_VECTOR, hypercall_entry, SEL_HV_CODE, 1);
  set_gate(SYSCALL_VECTOR, syscall_entry, SEL_GUEST_CODE, 3);
  struct __attribute__((packed)) { uint16_t limit; uint32_t base; } idtr = {sizeof idt - 1, (uint32_t)idt};
  __asm__ volatile("lidt %0" : : "m"(idtr));

  /* Paging with 4 MiB pages (CR4.PSE; CR4.PCE lets the guest kernel use RDPMC): 0-16 MiB identity, and the 4 MiB around the
   * thread pointer (0xB7C00000) onto physical 4-8 MiB. All user-accessible. */
  for (uint32_t i = 0; i < 4; ++i) page_directory[i] = (i << 22) | 0x87;
  page_directory[TLS_THREAD_POINTER >> 22] = 0x00400000u | 0x87;
#ifdef TLS_STREAM
  stream_map(page_directory);
#endif
  __asm__ volatile(
      "mov %%cr4, %%eax\n\tor $0x110, %%eax\n\tmov %%eax, %%cr4\n\t"
      "mov %0, %%cr3\n\t"
      "mov %%cr0, %%eax\n\tor $0x80000000, %%eax\n\tmov %%eax, %%cr0"
      : : "r"(page_directory) : "eax", "memory");

  /* PerfCtr0 = instructions retired (event C0h), PerfCtr1 = cycles (79h), all rings. */
  wrmsr(0x186, 0xC0u | (3u << 16) | (1u << 22));
  wrmsr(0x187, 0x79u | (3u << 16));

  struct text t = {.len = 0};
  text_str(&t, "tls hypervisor: mode=");
  text_str(&t, hv_start_info.mode == MODE_NATIVE ? "native" : hv_start_info.mode == MODE_EMULATION ? "emulation" : "flipping");
  text_str(&t, hv_start_info.rewrites ? " rewrites=1\n" : " rewrites=0\n");
  console_text(&t);
  enter_outer_ring((uint32_t)guest_main, (uint32_t)guest_stack_top, SEL_GUEST_CODE, SEL_GUEST_DATA);
}

static int guest_range_ok(uint32_t address, uint32_t length) {
  return length <= TLS_HOLE_START && address <= TLS_HOLE_START - length;
}

static void report_and_exit(int success) {
  struct text t = {.len = 0};
  hv_gp_report(&t);
  console_text(&t);
  t.len = 0;
  text_metric(&t, "descriptor_updates", descriptor_updates);
  text_metric(&t, "hypervisor_descriptor_writes", descriptor_updates + hv_handler_descriptor_writes);
  text_metric(&t, "hypercalls", hypercalls);
  text_metric(&t, "tls_descriptor_high", last_installed_tls.high);
  text_metric(&t, "tls_descriptor_low", last_installed_tls.low);
  console_text(&t);
  hv_exit(success);
}

void hv_hypercall(struct frame *f) {
  ++hypercalls;
  switch (f->eax) {
    case HC_UPDATE_DESCRIPTOR: {
      struct seg_desc d = {f->ecx, f->edx};
      if (f->ebx != GDT_TLS_ENTRY || !guest_descriptor(&d)) {
        f->eax = (uint32_t)-1;
        return;
      }
      hv_gdt[f->ebx] = d;
      last_installed_tls = d;
      ++descriptor_updates;
      f->eax = 0;
      return;
    }
    case HC_CONSOLE_WRITE:
      if (!guest_range_ok(f->ebx, f->ecx)) {
        f->eax = (uint32_t)-1;
        return;
      }
      hv_console((const char *)f->ebx, f->ecx);
      f->eax = 0;
      return;
    case HC_SHUTDOWN:
      report_and_exit(f->ebx == 0);
      return;
    default:
      f->eax = (uint32_t)-1;
  }
}
