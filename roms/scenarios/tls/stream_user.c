/* The ring-3 program of the TLS scenario's stream mode (docs/scenarios/tls.md "Stream
 * mode"): replays the checked stream (stream_hv.c) record by record. An access record is
 * one %gs access of the recorded size and direction at the recorded offset, made by an
 * instruction of stream_forms.asm of the recorded length (or the nearest one there is);
 * a switch marker is a SYS_YIELD to the recorded thread. With stream=virt-happy a
 * negative offset is reached as -mno-tls-direct-seg-refs code reaches it: the thread
 * pointer loaded from %gs:0, then the access through DS, by the form's twin (stream_forms.asm)
 * called as the form is: the same look-up, CALL, RET and bookkeeping, so that the design
 * differs from native only by the load it adds. */
#include "hypervisor.h"

struct stream_form {
  uint32_t stub[2];  /* the instruction followed by RET; [1] its thread-pointer twin */
  uint8_t size, write, length, unused;
};
extern const struct stream_form stream_forms[];
extern const uint32_t stream_form_count;

/* [size 1, 2, 4][read, write][length 0..15]: the form replaying such a record. */
static const struct stream_form *form_for[3][2][16];

static unsigned size_index(uint32_t size) { return size == 4 ? 2 : size - 1; }

static unsigned distance(unsigned a, unsigned b) { return a > b ? a - b : b - a; }

static void choose_forms(void) {
  for (uint32_t f = 0; f < stream_form_count; ++f) {
    const struct stream_form *form = &stream_forms[f];
    const struct stream_form **row = form_for[size_index(form->size)][form->write];
    for (unsigned length = 0; length < 16; ++length)
      if (!row[length] || distance(form->length, length) < distance(row[length]->length, length)) row[length] = form;
  }
}

/* Runs a stub: EBX = offset, EAX = the value stored, or the value loaded (low bytes);
 * the twins use EDX for the thread pointer. */
static inline uint32_t gs_access(uint32_t stub, int32_t offset, uint32_t value) {
  __asm__ volatile("call *%2" : "+a"(value) : "b"(offset), "r"(stub) : "edx", "memory", "cc");
  return value;
}

static uint32_t do_syscall(uint32_t number, uint32_t argument) {
  uint32_t result;
  __asm__ volatile("int %1" : "=a"(result) : "i"(SYSCALL_VECTOR), "a"(number), "b"(argument) : "memory");
  return result;
}

static struct stream_user_report report;

static uint64_t read_pmc(uint32_t counter) {
  uint32_t low, high;
  __asm__ volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(counter));
  return ((uint64_t)high << 32) | low;
}

void stream_user_main(void) {
  choose_forms();
  uint32_t checksum = 0;
  uint32_t *const counters[3] = {&report.common.gs_positive, &report.common.gs_negative,
                                 &report.common.extra_user_loads};
  /* The replay loop alone (CR4.PCE lets ring 3 use RDPMC): the workload and the
   * designs' work, without the stream check and the TLS set-up before it. */
  const uint64_t instructions_before = read_pmc(0), cycles_before = read_pmc(1);
  for (uint32_t i = 0; i < hv_stream.count; ++i) {
    const struct tls_stream_record *r = &hv_stream.records[i];
    if (r->flags & TLS_STREAM_SWITCH) {
      do_syscall(SYS_YIELD, r->thread);
      ++report.common.yields;
      continue;
    }
    const unsigned write = r->flags & TLS_STREAM_WRITE;
    /* -mno-tls-direct-seg-refs: one thread-pointer load per negative access (gcc reuses
     * it within a function, which the stream does not record: an upper bound). Indexed,
     * not branched, so that every design runs the same instructions around the stub. */
    const unsigned negative = r->offset < 0, through_tp = negative & hv_stream.virt_happy;
    const struct stream_form *form = form_for[size_index(r->size)][write][r->length];
    report.lengths_approximated += form->length != r->length;
    const uint32_t value = gs_access(form->stub[through_tp], r->offset, i);
    ++*counters[negative + through_tp];
    report.writes += write;
    ++report.common.operations;
    if (!write) checksum = checksum * 33 + value;
  }
  report.replay_cycles = read_pmc(1) - cycles_before;
  report.replay_instructions = read_pmc(0) - instructions_before;
  report.common.checksum = checksum;
  do_syscall(SYS_EXIT, (uint32_t)&report);
  for (;;) {
  }
}
