/* The ring-3 program of the TLS scenario's stream mode (docs/scenarios/tls.md "Stream
 * mode"): replays the checked stream (stream_hv.c) record by record. An access record is
 * one %gs access of the recorded size and direction at the recorded offset, made by an
 * instruction of stream_forms.asm of the recorded length (or the nearest one there is);
 * a switch marker is a SYS_YIELD to the recorded thread. With stream=virt-happy a
 * negative offset is reached as -mno-tls-direct-seg-refs code reaches it: the thread
 * pointer loaded from %gs:0, then the access through DS, by a stub of stream_tp_forms
 * called as the %gs forms are (the same table look-up, CALL and RET: the design adds
 * the one load, never less work than native). */
#include "hypervisor.h"

struct stream_form {
  uint32_t stub;  /* address of the instruction, followed by RET */
  uint8_t size, write, length, unused;
};
extern const struct stream_form stream_forms[];
extern const uint32_t stream_form_count;
extern const struct stream_form stream_tp_forms[];  /* [size 1, 2, 4][read, write] */

/* [size 1, 2, 4][read, write][length 0..15]: the form replaying such a record; with
 * stream=virt-happy, tp_form_for the same for a negative offset (every length: the
 * thread-pointer code has one form per size and direction). */
static const struct stream_form *form_for[3][2][16];
static const struct stream_form *tp_form_for[3][2][16];

static unsigned size_index(uint32_t size) { return size == 4 ? 2 : size - 1; }

static unsigned distance(unsigned a, unsigned b) { return a > b ? a - b : b - a; }

static void choose_forms(void) {
  for (uint32_t f = 0; f < stream_form_count; ++f) {
    const struct stream_form *form = &stream_forms[f];
    const struct stream_form **row = form_for[size_index(form->size)][form->write];
    for (unsigned length = 0; length < 16; ++length)
      if (!row[length] || distance(form->length, length) < distance(row[length]->length, length)) row[length] = form;
  }
  for (unsigned size = 0; size < 3; ++size)
    for (unsigned write = 0; write < 2; ++write)
      for (unsigned length = 0; length < 16; ++length) tp_form_for[size][write][length] = &stream_tp_forms[size * 2 + write];
}

/* Runs a stub: EBX = offset, EAX = the value stored, or the value loaded (low bytes);
 * the thread-pointer stubs use EDX. */
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
     * it within a function, which the stream does not record: an upper bound). */
    const int through_tp = r->offset < 0 && hv_stream.virt_happy;
    const struct stream_form *form = (through_tp ? tp_form_for : form_for)[size_index(r->size)][write][r->length];
    const uint32_t value = gs_access(form->stub, r->offset, i);
    if (through_tp) {
      ++report.common.extra_user_loads;
    } else {
      report.lengths_approximated += form->length != r->length;
      if (r->offset < 0) ++report.common.gs_negative;
      else ++report.common.gs_positive;
    }
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
