/* The irq scenario kernel (docs/scenarios/irq.md; shared/docs/scenarios.md section 3,
 * seed 004): a ring-0 Multiboot kernel whose external vectors 20h-FFh enter through the
 * layout entry.asm was assembled for (LAYOUT 1-4), under
 *   - an 8254 timer at a high rate (IRQ 0), MC146818 periodic interrupts (IRQ 8) and
 *     16550A transmitter-empty interrupts of COM2 (IRQ 3) for the bytes the timer
 *     handler sends, all through the 8259A pair, or with APIC=1 through the I/O APIC
 *     and the local APIC (irq_apic.h);
 *   - phase 1: a ring-3 loop taking back-to-back RDTSC deltas (SAMPLES rdtsc_delta);
 *   - phase 2: a ring-3 ping-pong pair of tasks passing a 100-byte message through
 *     INT 80h send/receive calls, hackbench-like (METRIC pingpong_cycles, operations).
 * Reports on the debug console (port E9h) and leaves through the exit port F4h (10h on
 * success, 11h on failure). CS_ACCESSED (0 or 1) is the Accessed bit the per-vector code
 * descriptors of LAYOUT 4 are created with. */
#include <stdint.h>

/* The timer_hz knob (parse_command_line), 0 when not given. Defined before the other
 * variables and parsed by a function placed after the others: the default images keep
 * their layout. */
static uint32_t timer_hz_knob;

#include "guest_io.h"

#ifndef LAYOUT
#error "compile with -DLAYOUT=1..4"
#endif
#ifndef CS_ACCESSED
#define CS_ACCESSED 1
#endif
#ifndef APIC
#define APIC 0 /* 1: device interrupts through the I/O APIC and the local APIC */
#endif

#define PIT_COUNT 12        /* 1193182 Hz / 12 = 99.4 kHz timer (the default; knob timer_hz) */
#define UART_EVERY 4       /* a COM2 byte (and its IRQ 3) every 4th timer tick */
#define RTC_RATE 3          /* MC146818 register A rate 3: 65536 >> 3 = 8192 Hz */
#define RDTSC_SAMPLES 20000 /* phase 1 deltas */
#define ROUND_TRIPS 1500    /* phase 2 operations: one message each way */
#define MESSAGE_BYTES 100   /* hackbench's default message size */

#define KERNEL_CS 0x08
#define KERNEL_SS 0x10
#define USER_CS 0x1B
#define USER_DS 0x23
#define VECTOR_GDT_INDEX0 6 /* entry.asm: GDT index of vector 20h's code descriptor */
#define FIRST_VECTOR 0x20
#define VECTORS 224
#define SYSCALL_VECTOR 0x80

enum { SYS_EXIT = 0, SYS_SEND = 1, SYS_RECV = 2 };

/* Layout of the stack (56 bytes, entry.asm FRAME_BYTES) at do_irq/do_syscall: entry.asm's PUSHAD, the pushed ~vector,
 * then the CPU's ring-3 delivery frame. */
struct frame {
  uint32_t edi, esi, ebp, esp_at_pushad, ebx, edx, ecx, eax;
  uint32_t not_vector;
  uint32_t eip, cs, eflags, esp, ss;
};


/* gcc may emit calls to these for structure copies. */
void* memcpy(void* dst, const void* src, uint32_t n) {
  void* d = dst;
  __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
  return dst;
}
void* memset(void* dst, int value, uint32_t n) {
  void* d = dst;
  __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(value) : "memory");
  return dst;
}

/* ---- Debug console output, buffered and written with REP OUTSB ---- */
static char out_buffer[4096];
static uint32_t out_used;
static void flush(void) {
  const char* p = out_buffer;
  uint32_t n = out_used;
  __asm__ volatile("rep outsb" : "+S"(p), "+c"(n) : "d"(0xE9) : "memory");
  out_used = 0;
}
static void put(char c) {
  if (out_used == sizeof out_buffer) flush();
  out_buffer[out_used++] = c;
}
#define CONSOLE_TAG "irq: "
#include "scenario_console.h"
#if APIC
#include "irq_apic.h"
#endif

/* ---- Descriptor tables (SDM Vol. 3, "Segment Descriptors", "IDT Descriptors") ---- */
static uint64_t gdt[VECTOR_GDT_INDEX0 + VECTORS] __attribute__((aligned(8)));
static uint64_t idt[256] __attribute__((aligned(8)));
static uint32_t tss[26] __attribute__((aligned(8))); /* 104-byte 32-bit TSS */
extern const uint32_t irq_entries[VECTORS];
extern char kstack_top[];         /* TSS ESP0 */
extern struct frame kstack_frame; /* just below kstack_top: where a ring-3 entry's frame lies */
extern void load_descriptor_tables(const void* gdtr, const void* idtr);
extern void enter_user(struct frame* frame) __attribute__((noreturn));
extern void system_call(void), unexpected_entry(void);

/* A segment descriptor: base, 20-bit limit, access byte (P DPL S type), flags (G D/B). */
static uint64_t descriptor(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags) {
  return (uint64_t)(limit & 0xFFFF) | (uint64_t)(base & 0xFFFFFF) << 16 | (uint64_t)access << 40 |
         (uint64_t)((limit >> 16) & 0xF) << 48 | (uint64_t)(flags & 0xF) << 52 | (uint64_t)(base >> 24) << 56;
}
static uint64_t gate(uint16_t selector, uint32_t offset, uint8_t type) {
  return (uint64_t)(offset & 0xFFFF) | (uint64_t)selector << 16 | (uint64_t)type << 40 | (uint64_t)(offset >> 16) << 48;
}

static void setup_descriptor_tables(void) {
  /* The fixed descriptors are created with A=1, so loading them never writes the GDT. */
  gdt[1] = descriptor(0, 0xFFFFF, 0x9B, 0xC); /* 08h kernel code, DPL0 */
  gdt[2] = descriptor(0, 0xFFFFF, 0x93, 0xC); /* 10h kernel stack, DPL0 */
  gdt[3] = descriptor(0, 0xFFFFF, 0xFB, 0xC); /* 1Bh user code, DPL3 */
  gdt[4] = descriptor(0, 0xFFFFF, 0xF3, 0xC); /* 23h user data, DPL3 (the kernel's DS/ES too) */
  gdt[5] = descriptor((uint32_t)tss, sizeof tss - 1, 0x89, 0x0); /* 28h available 32-bit TSS */
  tss[1] = (uint32_t)kstack_top; /* ESP0 */
  tss[2] = KERNEL_SS;            /* SS0 */
  tss[25] = sizeof tss << 16;    /* I/O map base beyond the limit: no I/O bitmap */
  for (int v = 0; v < 256; ++v) idt[v] = gate(KERNEL_CS, (uint32_t)unexpected_entry, 0x8E);
  for (int i = 0; i < VECTORS; ++i) {
#if LAYOUT == 4
    /* One flat DPL0 code descriptor per vector; every gate names the same offset. */
    gdt[VECTOR_GDT_INDEX0 + i] = descriptor(0, 0xFFFFF, 0x9A | CS_ACCESSED, 0xC);
    idt[FIRST_VECTOR + i] = gate((uint16_t)((VECTOR_GDT_INDEX0 + i) << 3), irq_entries[i], 0x8E);
#else
    idt[FIRST_VECTOR + i] = gate(KERNEL_CS, irq_entries[i], 0x8E);
#endif
  }
  idt[SYSCALL_VECTOR] = gate(KERNEL_CS, (uint32_t)system_call, 0xEE); /* DPL3 interrupt gate */
  struct __attribute__((packed)) {
    uint16_t limit;
    uint32_t base;
  } gdtr = {sizeof gdt - 1, (uint32_t)gdt}, idtr = {sizeof idt - 1, (uint32_t)idt};
  load_descriptor_tables(&gdtr, &idtr);
}

/* ---- Devices: 8259A pair, 8254, MC146818, 16550A (COM2) ---- */
static void setup_devices(void) {
  const uint32_t pit_count = timer_hz_knob ? (1193182u + timer_hz_knob / 2) / timer_hz_knob : PIT_COUNT;
#if APIC
  setup_apic(); /* 8259A pair masked; IRQ 0, 3 and 8 through the I/O APIC */
#else
  outb(0x20, 0x11); outb(0x21, 0x20); outb(0x21, 0x04); outb(0x21, 0x01); /* master: vectors 20h-27h */
  outb(0xA0, 0x11); outb(0xA1, 0x28); outb(0xA1, 0x02); outb(0xA1, 0x01); /* slave: vectors 28h-2Fh */
  outb(0x21, (uint8_t)~((1 << 0) | (1 << 2) | (1 << 3))); /* IRQ 0, cascade, IRQ 3 */
  outb(0xA1, (uint8_t)~(1 << 0));                        /* IRQ 8 */
#endif
  outb(0x43, 0x34); /* counter 0, LSB then MSB, mode 2 */
  outb(0x40, pit_count & 0xFF);
  outb(0x40, pit_count >> 8);
  outb(0x70, 0x0A); outb(0x71, 0x20 | RTC_RATE);     /* 32.768 kHz time base, periodic rate */
  outb(0x70, 0x0B); uint8_t b = inb(0x71);
  outb(0x70, 0x0B); outb(0x71, (uint8_t)(b | 0x40)); /* PIE */
  outb(0x70, 0x0C); (void)inb(0x71);
  outb(0x2FB, 0x80); outb(0x2F8, 1); outb(0x2F9, 0); /* DLAB: divisor 1 = 115200 baud */
  outb(0x2FB, 0x03);                                 /* 8N1 */
  outb(0x2FC, 0x08);                                 /* OUT2: IRQ driver on */
  outb(0x2F9, 0x02);                                 /* IER: transmitter holding register empty */
}

/* ---- Interrupts ---- */
static uint32_t by_vector[256];
static uint32_t interrupts, interrupts_timer, interrupts_rtc, interrupts_uart;
static uint32_t uart_bytes;

void do_irq(struct frame* f) {
  const uint32_t vector = ~f->not_vector;
  if (vector < FIRST_VECTOR || vector > 0xFF || vector == SYSCALL_VECTOR) fail("bad vector from the entry code");
  if ((f->cs & 3) != 3) fail("interrupt outside ring 3");
  ++by_vector[vector];
  ++interrupts;
#if APIC
  /* The same work per source as below, found by the IRQ the vector was assigned to;
   * one EOI to the local APIC ends every source's interrupt. */
  switch (irq_of_vector[vector]) {
    case 0 + 1:
      if (++interrupts_timer % UART_EVERY == 0) outb(0x2F8, (uint8_t)('a' + uart_bytes++ % 26));
      break;
    case 3 + 1:
      if ((inb(0x2FA) & 0x0F) != 0x02) fail("COM2 interrupt other than transmitter empty");
      ++interrupts_uart;
      break;
    case 8 + 1:
      outb(0x70, 0x0C);
      (void)inb(0x71);
      ++interrupts_rtc;
      break;
    default:
      fail("interrupt on an unused vector");
  }
  lapic_write(LAPIC_EOI, 0);
#else
  switch (vector) {
    case 0x20:
      /* x86lab's 16550A transmits instantly (its DEVIATION note), so the transmitter-
       * empty interrupt is paced here: one byte every UART_EVERY timer ticks. */
      if (++interrupts_timer % UART_EVERY == 0) outb(0x2F8, (uint8_t)('a' + uart_bytes++ % 26));
      break;
    case 0x23:
      if ((inb(0x2FA) & 0x0F) != 0x02) fail("COM2 interrupt other than transmitter empty"); /* reading IIR clears it */
      ++interrupts_uart;
      break;
    case 0x28:
      outb(0x70, 0x0C);
      (void)inb(0x71); /* register C: acknowledges IRQF */
      ++interrupts_rtc;
      outb(0xA0, 0x20);
      break;
    default:
      fail("interrupt on an unused vector");
  }
  outb(0x20, 0x20);
#endif
}

void do_unexpected(void) { fail("exception"); }

/* ---- Ring-3 tasks ---- */
static inline uint32_t sys(uint32_t number, const void* argument) {
  uint32_t result;
  __asm__ volatile("int $0x80" : "=a"(result) : "a"(number), "b"(argument) : "memory");
  return result;
}

static uint32_t rdtsc_delta[RDTSC_SAMPLES];
static void rdtsc_task(void) {
  uint32_t previous = (uint32_t)rdtsc();
  for (uint32_t i = 0; i < RDTSC_SAMPLES; ++i) {
    const uint32_t now = (uint32_t)rdtsc();
    rdtsc_delta[i] = now - previous;
    previous = now;
  }
  sys(SYS_EXIT, 0);
}

static uint32_t message_a[MESSAGE_BYTES / 4], message_b[MESSAGE_BYTES / 4];
static uint64_t pingpong_cycles;
static uint32_t pingpong_errors;
static void ping_task(void) {
  const uint64_t start = rdtsc();
  for (uint32_t i = 0; i < ROUND_TRIPS; ++i) {
    message_a[0] = i;
    sys(SYS_SEND, message_a);
    sys(SYS_RECV, message_a);
    if (message_a[0] != i + 1) ++pingpong_errors;
  }
  pingpong_cycles = rdtsc() - start;
  sys(SYS_EXIT, 0);
}
static void pong_task(void) {
  for (;;) {
    sys(SYS_RECV, message_b);
    ++message_b[0];
    sys(SYS_SEND, message_b);
  }
}

static uint8_t user_stacks[3][4096] __attribute__((aligned(16)));
static struct frame user_frame(void (*entry)(void), int stack) {
  struct frame f = {0};
  f.eip = (uint32_t)entry;
  f.cs = USER_CS;
  f.eflags = 0x202; /* IF */
  f.esp = (uint32_t)(user_stacks[stack] + sizeof user_stacks[stack]);
  f.ss = USER_DS;
  return f;
}

/* ---- System calls: one pipe each way holding at most one message ---- */
enum { PHASE_RDTSC, PHASE_PINGPONG };
static int phase, current;
static struct frame saved[2]; /* the ping-pong tasks' contexts while switched out */
static uint32_t pipe_data[2][MESSAGE_BYTES / 4];
static int pipe_full[2];
static uint32_t syscalls, switches, interrupts_rdtsc_phase;

static void copy_message(void* dst, const void* src) {
  uint32_t n = MESSAGE_BYTES / 4;
  __asm__ volatile("rep movsl" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* Blocks the calling task: it re-executes its INT 80h (2 bytes) when switched back in. */
static void block_and_switch(struct frame* f) {
  f->eip -= 2;
  saved[current] = *f;
  current ^= 1;
  *f = saved[current];
  ++switches;
}

static void report(void);

void do_syscall(struct frame* f) {
  ++syscalls;
  switch (f->eax) {
    case SYS_EXIT:
      if (phase == PHASE_RDTSC) {
        interrupts_rdtsc_phase = interrupts;
        phase = PHASE_PINGPONG;
        current = 0;
        saved[1] = user_frame(pong_task, 2);
        *f = user_frame(ping_task, 1);
        return;
      }
      report();
      return;
    case SYS_SEND: { /* task n writes pipe n */
      if (pipe_full[current]) return block_and_switch(f);
      copy_message(pipe_data[current], (const void*)f->ebx);
      pipe_full[current] = 1;
      f->eax = 0;
      return;
    }
    case SYS_RECV: { /* task n reads pipe 1 - n */
      const int pipe = current ^ 1;
      if (!pipe_full[pipe]) return block_and_switch(f);
      copy_message((void*)f->ebx, pipe_data[pipe]);
      pipe_full[pipe] = 0;
      f->eax = 0;
      return;
    }
    default:
      fail("bad system call");
  }
}

#if APIC
/* Out of line, so that do_syscall (report is inlined there) compiles as in the 8259A
 * images: the APIC variants differ from them only where the APIC is involved. */
__attribute__((noinline)) static void report_apic(void) {
  metric("vector_timer", routed_vector(0)); /* as the redirection entries hold them */
  metric("vector_uart", routed_vector(3));
  metric("vector_rtc", routed_vector(8));
  if (in_service_bits()) fail("a vector is still in service at the end");
}
#endif

static void report(void) {
  metric("interrupts", interrupts);
  metric("interrupts_timer", interrupts_timer);
  metric("interrupts_rtc", interrupts_rtc);
  metric("interrupts_uart", interrupts_uart);
  metric("interrupts_rdtsc_phase", interrupts_rdtsc_phase);
  uint32_t distinct = 0;
  for (int v = 0; v < 256; ++v) distinct += by_vector[v] != 0;
  metric("distinct_vectors", distinct);
#if APIC
  report_apic();
#endif
  metric("syscalls", syscalls);
  metric("task_switches", switches);
  metric("operations", ROUND_TRIPS);
  metric("pingpong_cycles", pingpong_cycles);
  metric("cycles_per_op", pingpong_cycles / ROUND_TRIPS);
  metric("rdtsc_samples", RDTSC_SAMPLES);
  for (uint32_t i = 0; i < RDTSC_SAMPLES; ++i) {
    if (i % 1000 == 0) print(i ? "\nSAMPLES rdtsc_delta" : "SAMPLES rdtsc_delta");
    put(' ');
    print_u64(rdtsc_delta[i]);
  }
  put('\n');
  if (pingpong_errors) fail("ping-pong message corrupted");
  if (!interrupts_timer || !interrupts_rtc || !interrupts_uart) fail("a device never interrupted");
  finish(1);
}

/* The sweep knob of the Multiboot command line (docs/compare.md, "Sweeps"):
 * timer_hz=100..1193182 sets the 8254 divisor to round(1193182 / timer_hz). */
__attribute__((noinline)) void parse_command_line(const uint32_t *info) {
  if (!(info[0] & 4)) return;
  const char *s = (const char *)info[4];
  while (*s) {
    while (*s == ' ') ++s;
    const char *word = s;
    while (*s && *s != ' ') ++s;
    const char *name = "timer_hz=";
    unsigned i = 0;
    while (name[i] && word + i < s && word[i] == name[i]) ++i;
    if (word == s) continue;
    if (name[i]) fail("unknown command-line word");
    uint32_t hz = 0;
    unsigned digits = 0;
    for (const char *c = word + i; c < s; ++c, ++digits) {
      if (*c < '0' || *c > '9' || digits >= 8) fail("bad timer_hz value");
      hz = hz * 10 + (uint32_t)(*c - '0');
    }
    if (!digits || hz < 100 || hz > 1193182) fail("timer_hz out of range (100-1193182)");
    timer_hz_knob = hz;
  }
}

void kernel_main(uint32_t magic, const uint32_t *info) {
  if (magic != 0x2BADB002) fail("Multiboot magic");
  parse_command_line(info);
  print("irq: layout " );
  print_u64(LAYOUT);
  print(", CS Accessed bit ");
  print_u64(CS_ACCESSED);
#if APIC
  print(", interrupts through the I/O APIC and the local APIC");
#endif
  put('\n');
  setup_descriptor_tables();
  setup_devices();
  kstack_frame = user_frame(rdtsc_task, 0);
  enter_user(&kstack_frame);
}
