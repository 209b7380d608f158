/* The ring-1 guest kernel of the TLS scenario (docs/scenarios/tls.md), standing for
 * XenLinux 2.6 of 2004: it installs the ring-3 thread's TLS descriptor the way NPTL
 * asks for it (set_thread_area, through the hypervisor), builds the TLS block and the
 * tcbhead at the thread pointer, runs the ring-3 program (user.c) and serves its two
 * system calls. With rewrites=1 every SYS_YIELD stands for a context switch between
 * threads with different TLS: the kernel writes the TLS descriptor again (Accessed
 * clear), which undoes a flip; the exit path's POP GS then loads it (one implied locked
 * Accessed-bit write). */
#include "hypervisor.h"

static uint8_t user_stack[8192] __attribute__((aligned(16)));
static uint64_t yields, rewrites;
struct user_knobs user_knobs;

/* start.asm, user.c */
void enter_outer_ring(uint32_t eip, uint32_t esp, uint32_t cs, uint32_t ds) __attribute__((noreturn));
void user_main(void);

static uint32_t hypercall(uint32_t number, uint32_t a, uint32_t b, uint32_t c) {
  uint32_t result;
  __asm__ volatile("int %1" : "=a"(result) : "i"(HYPERCALL_VECTOR), "a"(number), "b"(a), "c"(b), "d"(c) : "memory");
  return result;
}

static void console_text(const struct text *t) { hypercall(HC_CONSOLE_WRITE, (uint32_t)t->buf, t->len, 0); }

__attribute__((noreturn)) static void guest_exit(uint32_t status) {
  hypercall(HC_SHUTDOWN, status, 0, 0);
  for (;;) {
  }
}

/* The thread pointer of TLS base `base` (the knob `bases`): one TLS block and tcbhead
 * per base, 64 KiB apart below TLS_THREAD_POINTER. */
static uint32_t base_thread_pointer(uint32_t base) { return TLS_THREAD_POINTER - base * 0x10000u; }

/* set_thread_area as NPTL calls it: entry 6, base = thread pointer. */
static void install_tls_descriptor_of(uint32_t base) {
  const struct seg_desc d = desc_glibc_tls(base_thread_pointer(base));
  if (hypercall(HC_UPDATE_DESCRIPTOR, GDT_TLS_ENTRY, d.low, d.high) != 0) {
    struct text t = {.len = 0};
    text_str(&t, "FAIL the hypervisor refused the TLS descriptor\n");
    console_text(&t);
    guest_exit(1);
  }
}

/* The knobs threads and bases: the thread running and the base it uses, the switches
 * between threads and those that changed the TLS base. */
static uint32_t current_thread, current_base, thread_switches, base_changes;

#ifdef TLS_STREAM
__attribute__((noreturn)) static void stream_guest_main(void);
static void stream_yield(uint32_t thread);
__attribute__((noreturn)) static void stream_exit(const struct stream_user_report *r);
#endif

void guest_main(void) {
#ifdef TLS_STREAM
  stream_guest_main();
#endif
  install_tls_descriptor_of(0);
  /* The TLS block (zero-initialised __thread variables) below each thread pointer and
   * glibc's tcbhead_t at it. */
  for (uint32_t base = 0; base < hv_start_info.knobs.bases; ++base) {
    const uint32_t tp = base_thread_pointer(base);
    volatile uint32_t *block = (volatile uint32_t *)(tp - 4096);
    for (unsigned i = 0; i < 4096 / 4 + 16; ++i) block[i] = 0;
    volatile uint32_t *tcb = (volatile uint32_t *)tp;
    tcb[TCB_TCB / 4] = tp;
    tcb[TCB_SELF / 4] = tp;
    tcb[TCB_MULTIPLE_THREADS / 4] = 1;
    tcb[TCB_STACK_GUARD / 4] = 0x5A17C0DEu;
    tcb[TCB_POINTER_GUARD / 4] = 0x3C0FFEE5u;
  }
  /* GS = the TLS selector for ring 3; this first load of the installed descriptor
   * sets its Accessed bit (the run's first implied locked Accessed-bit write). */
  __asm__ volatile("mov %0, %%gs" : : "r"(SEL_TLS));
  user_knobs = hv_start_info.knobs;
  enter_outer_ring((uint32_t)user_main, (uint32_t)(user_stack + sizeof user_stack), SEL_USER_CODE, SEL_USER_DATA);
}

static void report(const struct user_report *r, uint64_t instructions) {
  struct text t = {.len = 0};
  text_metric(&t, "instructions_at_exit", instructions);
  text_metric(&t, "operations", r->operations);
  text_metric(&t, "iterations", r->iterations);
  text_metric(&t, "yields", yields);
  text_metric(&t, "rewrites", rewrites);
  text_metric(&t, "tls_accesses_negative", r->gs_negative);
  text_metric(&t, "tls_accesses_positive", r->gs_positive);
  text_metric(&t, "extra_user_loads", r->extra_user_loads);
  text_metric(&t, "checksum", r->checksum);
  if (hv_start_info.knobs_given) {
    text_metric(&t, "knob_density", user_knobs.density);
    text_metric(&t, "knob_run", user_knobs.run);
    text_metric(&t, "tls_operations", r->tls_operations);
    text_metric(&t, "knob_threads", user_knobs.threads);
    text_metric(&t, "knob_bases", user_knobs.bases);
    text_metric(&t, "thread_switches", thread_switches);
    text_metric(&t, "base_changes", base_changes);
  }
  console_text(&t);
}

void guest_syscall(struct frame *f) {
  switch (f->eax) {
    case SYS_YIELD:
#ifdef TLS_STREAM
      stream_yield(f->ebx);
      f->eax = 0;
      return;
#endif
      ++yields;
      {
        /* A yield with threads > 1 switches to the next thread; its descriptor goes in
         * when its TLS base differs (or always, with rewrites=1). */
        int base_changed = 0;
        if (hv_start_info.knobs.threads > 1) {
          current_thread = (current_thread + 1) % hv_start_info.knobs.threads;
          ++thread_switches;
          const uint32_t base = current_thread % hv_start_info.knobs.bases;
          base_changed = base != current_base;
          base_changes += (uint32_t)base_changed;
          current_base = base;
        }
        if (hv_start_info.rewrites || base_changed) {
          install_tls_descriptor_of(current_base);
          ++rewrites;
        }
      }
      f->eax = 0;
      return;
    case SYS_EXIT: {
      /* Instructions retired so far (PerfCtr0, set up by the hypervisor), before any
       * printing: the part of the run that the variants share. */
#ifdef TLS_STREAM
      stream_exit((const struct stream_user_report *)f->ebx);
#endif
      uint32_t low, high;
      __asm__ volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(0));
      const struct user_report *r = (const struct user_report *)f->ebx;
      report(r, ((uint64_t)high << 32) | low);
      guest_exit(r->yields == yields ? 0 : 1);
    }
    default:
      f->eax = (uint32_t)-1;
  }
}

#ifdef TLS_STREAM
/* Stream mode (docs/scenarios/tls.md "Stream mode"): one TLS block and tcbhead per
 * recorded thread, thread k's thread pointer TLS_THREAD_POINTER - k * 64 KiB. A switch
 * marker is a SYS_YIELD with EBX = the next thread: the kernel installs that thread's
 * descriptor when the thread changes (its TLS base differs), and with rewrites=1 on
 * every switch, as a context switch did. */
static uint32_t stream_current, stream_thread_changes;

_Static_assert(TLS_STREAM_THREAD_SPACING == 0x10000u, "stream threads use the knob bases' thread pointers");
static uint32_t stream_thread_pointer(uint32_t thread) { return base_thread_pointer(thread); }
static void install_thread_descriptor(uint32_t thread) { install_tls_descriptor_of(thread); }

__attribute__((noreturn)) static void stream_guest_main(void) {
  for (uint32_t k = 0; k < hv_stream.threads; ++k) {
    const uint32_t tp = stream_thread_pointer(k);
    volatile uint32_t *window = (volatile uint32_t *)(tp - TLS_STREAM_WINDOW);
    for (unsigned i = 0; i < 2 * TLS_STREAM_WINDOW / 4; ++i) window[i] = 0;
    volatile uint32_t *tcb = (volatile uint32_t *)tp;
    tcb[TCB_TCB / 4] = tp;
    tcb[TCB_SELF / 4] = tp;
    tcb[TCB_MULTIPLE_THREADS / 4] = hv_stream.threads > 1;
    tcb[TCB_STACK_GUARD / 4] = 0x5A17C0DEu;
    tcb[TCB_POINTER_GUARD / 4] = 0x3C0FFEE5u;
  }
  install_thread_descriptor(0);
  __asm__ volatile("mov %0, %%gs" : : "r"(SEL_TLS));
  enter_outer_ring((uint32_t)stream_user_main, (uint32_t)(user_stack + sizeof user_stack), SEL_USER_CODE, SEL_USER_DATA);
}

static void stream_yield(uint32_t thread) {
  ++yields;
  if (thread >= hv_stream.threads) thread = stream_current;  /* checked by stream_load; defensive */
  const int change = thread != stream_current;
  stream_thread_changes += (uint32_t)change;
  stream_current = thread;
  if (change || hv_start_info.rewrites) {
    install_thread_descriptor(thread);
    ++rewrites;
  }
}

__attribute__((noreturn)) static void stream_exit(const struct stream_user_report *r) {
  uint32_t low, high;
  __asm__ volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(0));
  struct text t = {.len = 0};
  text_metric(&t, "instructions_at_exit", ((uint64_t)high << 32) | low);
  text_metric(&t, "operations", r->common.operations);
  text_metric(&t, "stream_records", hv_stream.count);
  text_metric(&t, "stream_threads", hv_stream.threads);
  text_metric(&t, "yields", yields);
  text_metric(&t, "thread_changes", stream_thread_changes);
  text_metric(&t, "rewrites", rewrites);
  text_metric(&t, "tls_accesses_negative", r->common.gs_negative);
  text_metric(&t, "tls_accesses_positive", r->common.gs_positive);
  text_metric(&t, "tls_writes", r->writes);
  text_metric(&t, "lengths_approximated", r->lengths_approximated);
  text_metric(&t, "extra_user_loads", r->common.extra_user_loads);
  text_metric(&t, "checksum", r->common.checksum);
  text_metric(&t, "replay_instructions", r->replay_instructions);
  text_metric(&t, "replay_cycles_measured", r->replay_cycles);
  console_text(&t);
  guest_exit(r->common.yields == yields ? 0 : 1);
}
#endif
