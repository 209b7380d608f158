/* The ctxsw scenario kernel (docs/scenarios/ctxsw.md; shared/docs/scenarios.md section 2,
 * seed 003): a ring-0 Multiboot kernel that switches four threads on 8254 timer
 * interrupts and gives each TLS thread its descriptors the way one Linux 2.4/2.5
 * design did (SWITCH_KIND):
 *   1 LDT per address space, LDT descriptor written into the GDT + LLDT (LinuxThreads);
 *   2 TLS_DESCRIPTORS (1-3) descriptors copied unconditionally into GDT 6.. (the 1- and
 *     2-entry patches, D5, D9);
 *   3 the C3 patch: a ranged memcpy (REP MOVSD) of the entries in use, skipped by a
 *     branch when neither thread uses TLS (TLS_DESCRIPTORS 0, 1 or 8 per thread);
 *   4 a GDT per thread + LGDT.
 * Each is followed by Linux's conditional %fs/%gs reload. The TLS descriptors are built
 * with the Accessed bit DESCRIPTOR_ACCESSED (0 as set_thread_area did in 2002, or 1).
 * Before the threads run, "Luca's method" (seed 003) times the seed's operation and the
 * whole switch routine: WARMUP + ITERATIONS RDTSC-bracketed runs with interrupts off,
 * the first WARMUP not counted, minus the same loop with nothing inside the brackets.
 * Reports METRIC lines on the debug console (port E9h); exit port F4h: 10h pass, 11h fail. */
#include <stddef.h>
#include <stdint.h>

#include "guest_io.h"

#if !defined(SWITCH_KIND) || !defined(TLS_DESCRIPTORS) || !defined(DESCRIPTOR_ACCESSED)
#error "compile with -DSWITCH_KIND=1..4 -DTLS_DESCRIPTORS=n -DDESCRIPTOR_ACCESSED=0|1"
#endif
#ifndef ITERATIONS
#define ITERATIONS 1000000 /* the seed's count; CMake passes a smaller default (ctxsw.md) */
#endif
#define WARMUP 8

#define KIND_LDT 1
#define KIND_COPY 2
#define KIND_RANGED 3
#define KIND_GDT 4

#ifdef CTXSW_STREAM
#define THREADS 17       /* thread 0 is kernel_main; 1-16 are the stream's threads 0-15 (ctxsw_stream.c) */
#else
#define THREADS 4        /* thread 0 is kernel_main (no TLS); 1-3 use TLS */
#endif
#define SWITCHES 64      /* timer-driven switches, round robin; a multiple of THREADS */
#define PIT_COUNT 1193   /* 1193182 Hz / 1193 = 1000.15 Hz */
#define STACK_BYTES 4096

#define GDT_TLS_MIN 6     /* Linux 2.5.31: TLS entries from GDT 6 (selector 33h) */
#define TLS_ENTRIES 11    /* the C3 patch's maximum */
#define GDT_LDT (GDT_TLS_MIN + TLS_ENTRIES) /* 17: the LDT descriptor slot */
#define GDT_ENTRIES (GDT_LDT + 1)
#define LDT_SELECTOR (GDT_LDT * 8)
#define LDT_ENTRIES THREADS /* entry t is thread t's (LinuxThreads) */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10

#if SWITCH_KIND == KIND_COPY && (TLS_DESCRIPTORS < 1 || TLS_DESCRIPTORS > 3)
#error "the unconditional copy moves 1 to 3 descriptors"
#endif
#if TLS_DESCRIPTORS > TLS_ENTRIES
#error "at most TLS_ENTRIES descriptors"
#endif
#define USES_TLS (TLS_DESCRIPTORS > 0)

#define S_(x) #x
#define S(x) S_(x)

/* ---- console and ports ---- */

static void put(char c) { outb(0xE9, (uint8_t)c); }
static void flush(void) {} /* nothing is buffered */
#include "scenario_console.h"

/* ---- descriptors (SDM "Segment Descriptors"; Linux's struct desc_struct) ---- */

struct desc {
  uint32_t lo, hi;
};

/* access: P, DPL, S and type (bit 0 = Accessed); flags: G and D/B in bits 3 and 2. */
static struct desc make_desc(uint32_t base, uint32_t limit, uint32_t access, uint32_t flags) {
  struct desc d;
  d.lo = (limit & 0xFFFF) | (base << 16);
  d.hi = ((base >> 16) & 0xFF) | (access << 8) | (limit & 0xF0000) | (flags << 20) | (base & 0xFF000000);
  return d;
}

#define TLS_ACCESS (0xF2 | DESCRIPTOR_ACCESSED) /* present, DPL 3, read/write data */
#define LDT_ACCESS 0x82                         /* present, DPL 0, LDT */

/* ---- threads and address spaces ---- */

struct mm {                       /* an address space: its LDT (KIND_LDT) */
  struct desc ldt[LDT_ENTRIES];
  struct desc ldt_desc;           /* the system descriptor written into GDT_LDT */
};

struct gdtr {
  uint16_t pad, limit;
  uint32_t base;
};

/* Offsets used by the assembly below (checked by _Static_assert). */
#define T_FS 4
#define T_GS 8
#define T_COUNT 12
#define T_MM 16
#define T_GDTR 22
#define T_TLS 32
struct thread {
  uint32_t esp;                   /* saved stack pointer while switched out */
  uint32_t fs, gs;                /* saved selectors (Linux thread_struct) */
  uint32_t tls_count;             /* TLS entries in use (the C3 range) */
  struct mm* mm;
  struct gdtr gdtr;               /* this thread's GDT (KIND_GDT) */
  uint32_t id;
  struct desc tls[TLS_ENTRIES];   /* the thread's TLS descriptors */
};
_Static_assert(offsetof(struct thread, fs) == T_FS && offsetof(struct thread, gs) == T_GS, "layout");
_Static_assert(offsetof(struct thread, tls_count) == T_COUNT && offsetof(struct thread, mm) == T_MM, "layout");
_Static_assert(offsetof(struct thread, gdtr) + 2 == T_GDTR && offsetof(struct thread, tls) == T_TLS, "layout");
_Static_assert(offsetof(struct mm, ldt_desc) == 8 * LDT_ENTRIES, "layout");

struct desc gdt_table[GDT_ENTRIES] __attribute__((aligned(8), used)); /* the CPU's GDT */
static struct desc thread_gdt[THREADS][GDT_ENTRIES] __attribute__((aligned(8)));
static struct mm mms[THREADS];
static struct thread threads[THREADS];
static uint32_t tls_area[THREADS][TLS_ENTRIES][4]; /* what each TLS descriptor maps */
static uint8_t stacks[THREADS][STACK_BYTES] __attribute__((aligned(16)));
static struct thread* current;

/* The selector a TLS thread keeps in %gs: GDT 6 (RPL 3), or its LDT entry (TI, RPL 3). */
static uint32_t tls_selector(int t) {
  return SWITCH_KIND == KIND_LDT ? (uint32_t)(t * 8 + 7) : GDT_TLS_MIN * 8 + 3;
}
static uint32_t tls_magic(int t, int k) { return 0xC0DE0000u | (uint32_t)(t << 8) | (uint32_t)k; }

/* ---- the switch routines (inline assembly so the timed instructions are exact) ----
 * Register contract: %edx = prev thread, %ebx = next thread; %eax %ecx %esi %edi
 * may be clobbered. The C versions they stand for are in docs/scenarios/ctxsw.md. */

/* gdt[6+i] = next->tls[i]: two loads and two stores, as gcc compiles the assignment. */
#define COPY_DESC(i)                                                          \
  "movl " S(T_TLS) "+8*" #i "(%%ebx), %%eax\n\t"                              \
  "movl " S(T_TLS) "+8*" #i "+4(%%ebx), %%ecx\n\t"                            \
  "movl %%eax, gdt_table+8*(" S(GDT_TLS_MIN) "+" #i ")\n\t"                   \
  "movl %%ecx, gdt_table+8*(" S(GDT_TLS_MIN) "+" #i ")+4\n\t"

#if SWITCH_KIND == KIND_LDT
/* switch_mm: a different address space writes its LDT descriptor into the GDT + LLDT. */
#define TLS_SWITCH                                                            \
  "movl " S(T_MM) "(%%edx), %%eax\n\t"                                        \
  "cmpl " S(T_MM) "(%%ebx), %%eax\n\t"                                        \
  "je 5f\n\t"                                                                 \
  "movl " S(T_MM) "(%%ebx), %%eax\n\t"                                        \
  "movl 8*" S(LDT_ENTRIES) "(%%eax), %%ecx\n\t"                               \
  "movl %%ecx, gdt_table+8*" S(GDT_LDT) "\n\t"                                \
  "movl 8*" S(LDT_ENTRIES) "+4(%%eax), %%ecx\n\t"                             \
  "movl %%ecx, gdt_table+8*" S(GDT_LDT) "+4\n\t"                              \
  "movl $" S(LDT_SELECTOR) ", %%eax\n\t"                                      \
  "lldt %%ax\n"                                                               \
  "5:\n\t"
#define SEED_OP "lldt %%cx\n\t" /* seed: "lldt: 51 cycles" */
#elif SWITCH_KIND == KIND_COPY
#if TLS_DESCRIPTORS == 1
#define TLS_SWITCH COPY_DESC(0)
#elif TLS_DESCRIPTORS == 2
#define TLS_SWITCH COPY_DESC(0) COPY_DESC(1)
#else
#define TLS_SWITCH COPY_DESC(0) COPY_DESC(1) COPY_DESC(2)
#endif
#define SEED_OP TLS_SWITCH
#elif SWITCH_KIND == KIND_RANGED
/* if (prev->tls_count | next->tls_count)
 *   __memcpy(gdt + 6, next->tls, max(prev->tls_count, next->tls_count) * 8);
 * Copying the larger range clears the entries prev used and next does not (next's
 * unused entries are zero). __memcpy is Linux's: REP MOVSD, then the 2- and 1-byte tail. */
#define TLS_SWITCH                                                            \
  "movl " S(T_COUNT) "(%%edx), %%eax\n\t"                                     \
  "orl " S(T_COUNT) "(%%ebx), %%eax\n\t"                                      \
  "je 2f\n\t"                                                                 \
  "movl " S(T_COUNT) "(%%edx), %%eax\n\t"                                     \
  "cmpl " S(T_COUNT) "(%%ebx), %%eax\n\t"                                     \
  "jae 1f\n\t"                                                                \
  "movl " S(T_COUNT) "(%%ebx), %%eax\n"                                       \
  "1:\n\t"                                                                    \
  "leal " S(T_TLS) "(%%ebx), %%esi\n\t"                                       \
  "movl $gdt_table+8*" S(GDT_TLS_MIN) ", %%edi\n\t"                           \
  "shll $3, %%eax\n\t"                                                        \
  "movl %%eax, %%ecx\n\t"                                                     \
  "shrl $2, %%ecx\n\t"                                                        \
  "rep movsl\n\t"                                                             \
  "testb $2, %%al\n\t"                                                        \
  "je 3f\n\t"                                                                 \
  "movsw\n"                                                                   \
  "3:\n\t"                                                                    \
  "testb $1, %%al\n\t"                                                        \
  "je 2f\n\t"                                                                 \
  "movsb\n"                                                                   \
  "2:\n\t"
#define SEED_OP TLS_SWITCH
#else
#define TLS_SWITCH "lgdt " S(T_GDTR) "(%%ebx)\n\t"
#define SEED_OP TLS_SWITCH /* seed: "lgdt: 50 cycles" */
#endif

/* Linux __switch_to: save %fs/%gs into prev; reload next's if either thread has any. */
#define SEGMENT_RELOAD                                                        \
  "movw %%fs, " S(T_FS) "(%%edx)\n\t"                                         \
  "movw %%gs, " S(T_GS) "(%%edx)\n\t"                                         \
  "movl " S(T_FS) "(%%edx), %%eax\n\t"                                        \
  "orl " S(T_GS) "(%%edx), %%eax\n\t"                                         \
  "orl " S(T_FS) "(%%ebx), %%eax\n\t"                                         \
  "orl " S(T_GS) "(%%ebx), %%eax\n\t"                                         \
  "je 4f\n\t"                                                                 \
  "movw " S(T_FS) "(%%ebx), %%fs\n\t"                                         \
  "movw " S(T_GS) "(%%ebx), %%gs\n"                                           \
  "4:\n\t"

#define SWITCH_ROUTINE TLS_SWITCH SEGMENT_RELOAD

/* The descriptor part of a context switch, as the scheduler runs it. */
static void switch_descriptors(struct thread* prev, struct thread* next) {
  __asm__ volatile(SWITCH_ROUTINE : : "d"(prev), "b"(next) : "eax", "ecx", "esi", "edi", "memory", "cc");
}

/* ---- Luca's method ---- */

/* One RDTSC-bracketed run of `op`: the harness inside the brackets (saving the first
 * TSC, loading prev/next and the LLDT selector) is the same for every op and cancels
 * against the empty run. */
#define BRACKET(op)                                                           \
  "rdtsc\n\t"                                                                 \
  "pushl %%edx\n\t"                                                           \
  "pushl %%eax\n\t"                                                           \
  "movl bench_prev, %%edx\n\t"                                                \
  "movl bench_next, %%ebx\n\t"                                                \
  "movl $" S(LDT_SELECTOR) ", %%ecx\n\t" op                                   \
  "rdtsc\n\t"                                                                 \
  "subl (%%esp), %%eax\n\t"                                                   \
  "sbbl 4(%%esp), %%edx\n\t"                                                  \
  "addl $8, %%esp\n\t"

/* The whole loop of Luca's method, in assembly so that the code around the brackets is
 * the same for every op: WARMUP + ITERATIONS runs, prev and next swapped before each,
 * the deltas of all but the first WARMUP summed into bench_sum. Leaves the TSC cycles
 * of the whole loop in %edx:%eax. */
#define BENCH_LOOP(op)                                                        \
  "movl $0, bench_count\n\t"                                                  \
  "movl $0, bench_sum\n\t"                                                    \
  "movl $0, bench_sum+4\n\t"                                                  \
  "rdtsc\n\t"                                                                 \
  "movl %%eax, bench_start\n\t"                                               \
  "movl %%edx, bench_start+4\n"                                                \
  "10:\n\t"                                                                   \
  "movl bench_prev, %%eax\n\t"                                                \
  "movl bench_next, %%ecx\n\t"                                                \
  "movl %%ecx, bench_prev\n\t"                                                \
  "movl %%eax, bench_next\n\t" BRACKET(op)                                    \
  "cmpl $" S(WARMUP) ", bench_count\n\t"                                      \
  "jb 11f\n\t"                                                                \
  "addl %%eax, bench_sum\n\t"                                                 \
  "adcl %%edx, bench_sum+4\n"                                                  \
  "11:\n\t"                                                                   \
  "incl bench_count\n\t"                                                      \
  "cmpl $" S(WARMUP) "+" S(ITERATIONS) ", bench_count\n\t"                    \
  "jb 10b\n\t"                                                                \
  "rdtsc\n\t"                                                                 \
  "subl bench_start, %%eax\n\t"                                               \
  "sbbl bench_start+4, %%edx\n\t"

struct thread* bench_prev __attribute__((used));
struct thread* bench_next __attribute__((used));
uint32_t bench_count __attribute__((used));
uint64_t bench_sum __attribute__((used)), bench_start __attribute__((used));

enum bench_kind { BENCH_EMPTY, BENCH_SEED_OP, BENCH_SWITCH };

struct bench_result {
  uint64_t bracketed; /* sum of the counted runs' TSC deltas (Luca's method), cycles */
  uint64_t loop;      /* TSC across the whole loop, warm-up included, cycles */
};

/* BENCH_SWITCH alternates prev and next between threads 1 and 2 (thread 1 first), as a
 * switch back and forth would. RDTSC reads whole cycles while the model charges
 * fractions (0.625 for a MOV on p3), so each bracketed run rounds and their sum can be
 * off by up to a cycle per run; the whole-loop difference is exact to 1/(WARMUP +
 * ITERATIONS) cycle because only the op differs between the loops. */
static struct bench_result bench(enum bench_kind kind) {
  uint32_t lo, hi;
  bench_prev = &threads[2];
  bench_next = &threads[1];
  if (kind == BENCH_EMPTY)
    __asm__ volatile(BENCH_LOOP("") : "=a"(lo), "=d"(hi) : : "ebx", "ecx", "esi", "edi", "memory", "cc");
  else if (kind == BENCH_SEED_OP)
    __asm__ volatile(BENCH_LOOP(SEED_OP) : "=a"(lo), "=d"(hi) : : "ebx", "ecx", "esi", "edi", "memory", "cc");
  else
    __asm__ volatile(BENCH_LOOP(SWITCH_ROUTINE) : "=a"(lo), "=d"(hi) : : "ebx", "ecx", "esi", "edi", "memory", "cc");
  return (struct bench_result){bench_sum, ((uint64_t)hi << 32) | lo};
}

/* ---- the scheduler ---- */

static volatile uint32_t switches, tls_switches, tls_checks;

/* Saves the callee-saved registers on prev's stack, stores its ESP, loads next's and
 * returns into next (where next last called this, or thread_start). */
void switch_stacks(uint32_t* save_esp, uint32_t next_esp);
__asm__(".text\n"
        "switch_stacks:\n\t"
        "movl 4(%esp), %eax\n\t"
        "movl 8(%esp), %edx\n\t"
        "pushl %ebp\n\tpushl %ebx\n\tpushl %esi\n\tpushl %edi\n\t"
        "movl %esp, (%eax)\n\t"
        "movl %edx, %esp\n\t"
        "popl %edi\n\tpopl %esi\n\tpopl %ebx\n\tpopl %ebp\n\t"
        "ret\n");

void irq0_handler(void) {
  outb(0x20, 0x20); /* non-specific EOI before switching away */
  if (switches >= SWITCHES) return;
  struct thread* prev = current;
  struct thread* next = &threads[(prev->id + 1) % THREADS];
  ++switches;
  if (next->gs) ++tls_switches;
  switch_descriptors(prev, next);
  current = next;
  switch_stacks(&prev->esp, next->esp);
}
void spurious7_handler(void) {}
void unexpected_handler(void) { fail("unexpected interrupt or exception"); }

/* A TLS thread: checks that %gs maps its own TLS area each time it runs, then sleeps
 * until the next timer interrupt. Entered with IF = 0 from switch_stacks. */
static void thread_start(void) {
  const int t = (int)current->id;
  for (;;) {
    if (USES_TLS) {
      uint32_t seen;
      __asm__ volatile("movl %%gs:0, %0" : "=r"(seen));
      if (seen != tls_magic(t, 0)) fail("a thread's %gs does not map its TLS");
      ++tls_checks;
    }
    __asm__ volatile("sti; hlt; cli");
  }
}

/* ---- set-up ---- */

static struct desc idt[256];
extern void irq0_entry(void), spurious7_entry(void), unexpected_entry(void);

/* A 32-bit interrupt gate (type Eh, present, DPL 0) to KERNEL_CS:entry. */
static void set_gate(int vector, void (*entry)(void)) {
  const uint32_t offset = (uint32_t)entry;
  idt[vector] = (struct desc){(KERNEL_CS << 16) | (offset & 0xFFFF), (offset & 0xFFFF0000) | 0x8E00};
}

static void load_gdt(struct gdtr* r) { __asm__ volatile("lgdt 2(%0)" : : "r"(r) : "memory"); }

static void init_threads(void) {
  for (int t = 0; t < THREADS; ++t) {
    struct thread* th = &threads[t];
    th->id = (uint32_t)t;
    th->mm = &mms[t];
    mms[t].ldt_desc = make_desc((uint32_t)mms[t].ldt, sizeof mms[t].ldt - 1, LDT_ACCESS, 0);
    struct desc* table = t == 0 ? gdt_table : thread_gdt[t];
    th->gdtr = (struct gdtr){0, sizeof gdt_table - 1, (uint32_t)table};
    if (t == 0 || !USES_TLS) continue;
    th->tls_count = TLS_DESCRIPTORS;
    for (int k = 0; k < TLS_DESCRIPTORS; ++k) {
      tls_area[t][k][0] = tls_magic(t, k);
      th->tls[k] = make_desc((uint32_t)tls_area[t][k], 0xFFFFF, TLS_ACCESS, 0xC);
    }
    th->gs = tls_selector(t);
    mms[t].ldt[t] = th->tls[0]; /* LinuxThreads: the thread's entry in its LDT */
  }
  /* The per-thread GDTs: the kernel entries, then the thread's TLS entries. */
  for (int t = 1; t < THREADS; ++t) {
    for (int e = 0; e < GDT_ENTRIES; ++e) thread_gdt[t][e] = gdt_table[e];
    for (int k = 0; k < TLS_ENTRIES; ++k) thread_gdt[t][GDT_TLS_MIN + k] = threads[t].tls[k];
  }
  /* New threads start in thread_start through switch_stacks' POPs and RET. */
  for (int t = 1; t < THREADS; ++t) {
    uint32_t* sp = (uint32_t*)(stacks[t] + STACK_BYTES);
    *--sp = (uint32_t)thread_start;
    for (int r = 0; r < 4; ++r) *--sp = 0; /* EBP EBX ESI EDI */
    threads[t].esp = (uint32_t)sp;
  }
}

static void init_descriptor_tables(void) {
  gdt_table[1] = make_desc(0, 0xFFFFF, 0x9B, 0xC); /* kernel code, Accessed set */
  gdt_table[2] = make_desc(0, 0xFFFFF, 0x93, 0xC); /* kernel data, Accessed set */
  struct gdtr boot = {0, sizeof gdt_table - 1, (uint32_t)gdt_table};
  load_gdt(&boot);
  __asm__ volatile("ljmp $" S(KERNEL_CS) ", $1f\n1:\n\t"
                   "movl $" S(KERNEL_DS) ", %%eax\n\t"
                   "movl %%eax, %%ds\n\tmovl %%eax, %%es\n\tmovl %%eax, %%ss\n\t"
                   "xorl %%eax, %%eax\n\tmovl %%eax, %%fs\n\tmovl %%eax, %%gs"
                   : : : "eax", "memory");
  for (int v = 0; v < 256; ++v) set_gate(v, unexpected_entry);
  set_gate(0x20, irq0_entry);
  set_gate(0x27, spurious7_entry);
  struct __attribute__((packed)) { uint16_t limit; uint32_t base; } idtr = {sizeof idt - 1, (uint32_t)idt};
  __asm__ volatile("lidt %0" : : "m"(idtr));
}

static void start_timer(void) {
  /* 8259A pair: edge, cascade, ICW4; bases 20h and 28h; only IRQ 0 unmasked. */
  outb(0x20, 0x11); outb(0x21, 0x20); outb(0x21, 0x04); outb(0x21, 0x01);
  outb(0xA0, 0x11); outb(0xA1, 0x28); outb(0xA1, 0x02); outb(0xA1, 0x01);
  outb(0x21, 0xFE);
  outb(0xA1, 0xFF);
  /* 8254 counter 0: mode 2, LSB then MSB. */
  outb(0x43, 0x34);
  outb(0x40, PIT_COUNT & 0xFF);
  outb(0x40, PIT_COUNT >> 8);
}

/* x100 / runs, rounded: hundredths of a cycle per run. */
static uint64_t per_run_x100(uint64_t cycles, uint64_t runs) { return (cycles * 100 + runs / 2) / runs; }

/* Luca's method for the seed's operation and for the whole switch routine. The switch
 * runs are entered by one untimed switch from thread 0 to thread 1 and left by one back,
 * so every timed switch saves the selectors the CPU really holds. */
static void measure(void) {
  const struct bench_result empty = bench(BENCH_EMPTY);
  const struct bench_result seed_op = bench(BENCH_SEED_OP);
  switch_descriptors(&threads[0], &threads[1]);
  const struct bench_result whole = bench(BENCH_SWITCH);
  switch_descriptors(bench_next, &threads[0]);
  const uint64_t op = seed_op.bracketed - empty.bracketed, sw = whole.bracketed - empty.bracketed;
  metric("iterations", ITERATIONS);
  metric("warmup_iterations", WARMUP);
  metric("empty_cycles_total", empty.bracketed);
  metric("op_cycles_total", op);
  metric("cycles_per_op", (op + ITERATIONS / 2) / ITERATIONS);
  metric("cycles_per_op_x100", per_run_x100(op, ITERATIONS));
  metric("loop_cycles_per_op_x100", per_run_x100(seed_op.loop - empty.loop, WARMUP + ITERATIONS));
  metric("switch_cycles_total", sw);
  metric("cycles_per_switch", (sw + ITERATIONS / 2) / ITERATIONS);
  metric("loop_cycles_per_switch_x100", per_run_x100(whole.loop - empty.loop, WARMUP + ITERATIONS));
  metric("bench_switches", WARMUP + ITERATIONS);
  metric("bench_tls_switches", USES_TLS ? WARMUP + ITERATIONS + 1 : 0); /* + the entry switch */
}

#ifdef CTXSW_STREAM
#include "ctxsw_stream.c"
#endif

void kernel_main(uint32_t magic, const uint32_t* info) {
  if (magic != 0x2BADB002) fail("Multiboot magic");
  init_descriptor_tables();
  init_threads();
  current = &threads[0];
  gdt_table[GDT_LDT] = mms[0].ldt_desc; /* thread 0's LDT (Linux 2.4's default_ldt) */
  if (SWITCH_KIND == KIND_LDT) __asm__ volatile("lldt %w0" : : "r"(LDT_SELECTOR));
#ifdef CTXSW_STREAM
  stream_main(info);
#else
  (void)info;
#endif
  measure();

  start_timer();
  for (;;) {
    __asm__ volatile("cli");
    if (switches >= SWITCHES) break;
    __asm__ volatile("sti; hlt");
  }
  if (current != &threads[0]) fail("the last switch did not return to thread 0");
  if (USES_TLS && tls_checks != tls_switches) fail("a TLS thread missed its check");
  metric("gdt_base", (uint32_t)gdt_table);
  metric("threads", THREADS);
  metric("tls_threads", USES_TLS ? THREADS - 1 : 0);
  metric("tls_descriptors", TLS_DESCRIPTORS);
  metric("descriptor_accessed", DESCRIPTOR_ACCESSED);
  metric("switches", switches);
  metric("tls_switches", tls_switches);
  metric("tls_checks", tls_checks);
  finish(1);
}
