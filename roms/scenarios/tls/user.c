/* The ring-3 program of the TLS scenario: glibc-style thread-structure reads at
 * positive %gs offsets interleaved with local-exec __thread variables, which gcc -m32
 * reaches with negative %gs offsets (mov %gs:0xfffffff0,%edx). Built twice
 * (CMakeLists.txt): with -ftls-model=local-exec, and with -mno-tls-direct-seg-refs
 * added (VIRT_HAPPY), which makes gcc load the thread pointer from %gs:0 and address
 * the variables through it. The per-call counts below are those of the compiled code;
 * tests/scenarios/tls_test.cpp checks them against objdump of the image. */
#include "abi.h"

#define ITERATIONS 1024u  /* calls of tls_operation() */
#define YIELD_PERIOD 16u  /* a SYS_YIELD after every 16th call */

/* Zero-initialised, so the guest kernel only clears the block below the thread pointer. */
__thread uint32_t tls_counter, tls_flag, tls_match, tls_last;

/* glibc's THREAD_GETMEM: a read of a tcbhead_t field at a positive %gs offset. The
 * "memory" clobber keeps gcc from moving TLS accesses across it. */
#define THREAD_GETMEM(offset)                                                          \
  ({                                                                                   \
    uint32_t value_;                                                                   \
    __asm__ volatile("movl %%gs:%c1,%0" : "=r"(value_) : "i"(offset) : "memory");      \
    value_;                                                                            \
  })

/* One operation: 8 TLS accesses, signs + - + - + - + - in the direct build (MOV r->m,
 * MOV imm->m, CMP m,r and MOV m->r on the negative side); in the VIRT_HAPPY build
 * 4 tcbhead reads plus one %gs:0 thread-pointer load, nothing negative. */
__attribute__((noinline)) uint32_t tls_operation(uint32_t i) {
  const uint32_t self = THREAD_GETMEM(TCB_SELF);
  tls_counter = i;
  const uint32_t guard = THREAD_GETMEM(TCB_STACK_GUARD);
  tls_flag = 1;
  const uint32_t threads = THREAD_GETMEM(TCB_MULTIPLE_THREADS);
  const uint32_t same = tls_match == guard;
  const uint32_t pointer_guard = THREAD_GETMEM(TCB_POINTER_GUARD);
  uint32_t last = tls_last;
  __asm__("" : "+r"(last));  /* a plain MOV load, not folded into the XOR below */
  return self ^ guard ^ threads ^ same ^ pointer_guard ^ last;
}

/* After a yield the result goes to a __thread variable (as a syscall wrapper stores
 * errno): one negative store, or a %gs:0 load and a store through it. */
__attribute__((noinline)) void tls_after_yield(uint32_t result) { tls_last = result; }

#ifdef VIRT_HAPPY
#define OP_NEGATIVE 0u
#define OP_POSITIVE 5u
#define OP_EXTRA_LOADS 1u  /* gcc loads %gs:0 once per function and reuses it */
#define YIELD_NEGATIVE 0u
#define YIELD_POSITIVE 1u
#define YIELD_EXTRA_LOADS 1u
#else
#define OP_NEGATIVE 4u
#define OP_POSITIVE 4u
#define OP_EXTRA_LOADS 0u
#define YIELD_NEGATIVE 1u
#define YIELD_POSITIVE 0u
#define YIELD_EXTRA_LOADS 0u
#endif
#define OP_SOURCE_ACCESSES 8u  /* 4 tcbhead reads + 4 __thread accesses */
#define YIELD_SOURCE_ACCESSES 1u

/* The sweep knobs (abi.h struct user_knobs). run=R: the same 4 tcbhead reads and 4
 * __thread accesses (2 stores, 2 loads, all MOV with a 32-bit displacement, the forms
 * the emulating #GP handler decodes) as tls_operation, in sign runs of R counted across
 * calls. density < 100: the other calls do 8 accesses to ordinary memory. */
__thread uint32_t tls_run0, tls_run1, tls_run2, tls_run3;
static uint32_t run_index, run_negative, run_positive;

#define RUN_STEP(positive_offset, negative_access)            \
  if ((run_index++ / run) & 1) {                              \
    fold ^= THREAD_GETMEM(positive_offset);                   \
    ++positive;                                               \
  } else {                                                    \
    negative_access;                                          \
    ++negative;                                               \
  }
#define RUN_LOAD(variable)                                    \
  {                                                           \
    uint32_t value_ = variable;                               \
    __asm__("" : "+r"(value_)); /* a plain MOV load */        \
    fold ^= value_;                                           \
  }

__attribute__((noinline)) uint32_t tls_operation_runs(uint32_t i, uint32_t run) {
  uint32_t fold = 0, positive = 0, negative = 0;
  RUN_STEP(TCB_SELF, tls_run0 = i)
  RUN_STEP(TCB_STACK_GUARD, RUN_LOAD(tls_run1))
  RUN_STEP(TCB_MULTIPLE_THREADS, tls_run2 = i)
  RUN_STEP(TCB_POINTER_GUARD, RUN_LOAD(tls_run3))
  RUN_STEP(TCB_SELF, tls_run1 = i)
  RUN_STEP(TCB_STACK_GUARD, RUN_LOAD(tls_run0))
  RUN_STEP(TCB_MULTIPLE_THREADS, tls_run3 = i)
  RUN_STEP(TCB_POINTER_GUARD, RUN_LOAD(tls_run2))
  run_positive += positive;
  run_negative += negative;
  return fold;
}

/* tls_operation's shape on ordinary memory: the same 4 reads and 4 variable accesses
 * without %gs (a density < 100 call that is not a TLS operation). */
uint32_t plain_tcb[4] = {0xB7E00000u, 0x5A17C0DEu, 1, 0x3C0FFEE5u};
uint32_t plain_counter, plain_flag, plain_match, plain_last;
#define PLAIN_GETMEM(index)                                                               \
  ({                                                                                      \
    uint32_t value_;                                                                      \
    __asm__ volatile("movl %1,%0" : "=r"(value_) : "m"(plain_tcb[index]) : "memory");     \
    value_;                                                                               \
  })

__attribute__((noinline)) uint32_t plain_operation(uint32_t i) {
  const uint32_t self = PLAIN_GETMEM(0);
  plain_counter = i;
  const uint32_t guard = PLAIN_GETMEM(1);
  plain_flag = 1;
  const uint32_t threads = PLAIN_GETMEM(2);
  const uint32_t same = plain_match == guard;
  const uint32_t pointer_guard = PLAIN_GETMEM(3);
  uint32_t last = plain_last;
  __asm__("" : "+r"(last));
  return self ^ guard ^ threads ^ same ^ pointer_guard ^ last;
}

static uint32_t do_syscall(uint32_t number, uint32_t argument) {
  uint32_t result;
  __asm__ volatile("int %1" : "=a"(result) : "i"(SYSCALL_VECTOR), "a"(number), "b"(argument) : "memory");
  return result;
}

static struct user_report report;

/* The knobs' loop: a TLS operation on `density` of every 100 calls (spread evenly), the
 * run-ordered one when run > 0. Counts as user_main's; run-ordered accesses are counted
 * as executed (in the VIRT_HAPPY build gcc reaches tls_words through %gs:0: no negative
 * offsets, and extra_user_loads leaves them out). */
static uint32_t swept_loop(uint32_t *yields, uint32_t *tls_operations) {
  uint32_t checksum = 0, credit = 0;
  for (uint32_t i = 0; i < ITERATIONS; ++i) {
    credit += user_knobs.density;
    if (credit >= 100) {
      credit -= 100;
      ++*tls_operations;
      checksum += user_knobs.run ? tls_operation_runs(i, user_knobs.run) : tls_operation(i);
    } else {
      checksum += plain_operation(i);
    }
    if ((i + 1) % YIELD_PERIOD == 0) {
      tls_after_yield(do_syscall(SYS_YIELD, 0));
      ++*yields;
    }
  }
  return checksum;
}

void user_main(void) {
  uint32_t checksum = 0, yields = 0, tls_operations = 0;
  if (user_knobs.density == 100 && user_knobs.run == 0) {
    tls_operations = ITERATIONS;
    for (uint32_t i = 0; i < ITERATIONS; ++i) {
      checksum += tls_operation(i);
      if ((i + 1) % YIELD_PERIOD == 0) {
        tls_after_yield(do_syscall(SYS_YIELD, 0));
        ++yields;
      }
    }
  } else {
    checksum = swept_loop(&yields, &tls_operations);
  }
  const uint32_t compiled = user_knobs.run ? 0 : tls_operations;  /* calls of tls_operation() */
  report.iterations = ITERATIONS;
  report.yields = yields;
  report.tls_operations = tls_operations;
  report.operations = tls_operations * OP_SOURCE_ACCESSES + yields * YIELD_SOURCE_ACCESSES;
#ifdef VIRT_HAPPY
  report.gs_negative = compiled * OP_NEGATIVE + yields * YIELD_NEGATIVE;
  report.gs_positive = compiled * OP_POSITIVE + yields * YIELD_POSITIVE + run_positive;
#else
  report.gs_negative = compiled * OP_NEGATIVE + yields * YIELD_NEGATIVE + run_negative;
  report.gs_positive = compiled * OP_POSITIVE + yields * YIELD_POSITIVE + run_positive;
#endif
  report.extra_user_loads = compiled * OP_EXTRA_LOADS + yields * YIELD_EXTRA_LOADS;
  report.checksum = checksum;
  do_syscall(SYS_EXIT, (uint32_t)&report);
  for (;;) {
  }
}
