/* Stream mode of the ctxsw kernel (docs/scenarios/ctxsw.md "Stream mode"; issue 25),
 * #included by ctxsw_kernel.c when built with CTXSW_STREAM (the stream_<variant>.elf
 * images): the design's context switch driven by a recorded switch sequence instead of
 * the round-robin timer. Multiboot module 0 is a TLS access stream
 * (roms/scenarios/tls/stream.h); its thread count gives the threads (stream thread k is
 * kernel thread k + 1, each with the variant's TLS_DESCRIPTORS descriptors) and each
 * switch marker to another thread is one switch_descriptors() from the running thread
 * to it, followed by the %gs:0 check of the tls scenario's threads. Access records are
 * skipped. Two passes over the records with interrupts off, RDTSC around each: one with
 * the switches, one without (the same loop otherwise); their difference is the
 * designs' cost of the recorded sequence. A bad stream fails the run before any METRIC. */
#include "../tls/stream.h"

static uint32_t stream_le32(const uint8_t* p) {
  return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const struct tls_stream_record* stream_records;
static uint32_t stream_count, stream_threads;

static void stream_load(const uint32_t* info) {
  if (!(info[0] & 8) || info[5] == 0) fail("TLS stream module: no Multiboot module (x86lab --initrd FILE)");
  const uint32_t* module = (const uint32_t*)info[6];
  const uint8_t* m = (const uint8_t*)module[0];
  const uint32_t bytes = module[1] - module[0];
  if (module[1] < module[0] || bytes < TLS_STREAM_HEADER_BYTES) fail("TLS stream module: shorter than the 24-byte header");
  for (int i = 0; i < 8; ++i)
    if (m[i] != (uint8_t)TLS_STREAM_MAGIC[i]) fail("TLS stream module: magic is not X86LTLS1");
  if (stream_le32(m + 8) != TLS_STREAM_VERSION || stream_le32(m + 20) != 0)
    fail("TLS stream module: version is not 1 or the reserved word is not 0");
  stream_count = stream_le32(m + 12);
  stream_threads = stream_le32(m + 16);
  if (stream_threads == 0 || stream_threads > THREADS - 1) fail("TLS stream module: thread count is not 1..16");
  if (stream_count > (bytes - TLS_STREAM_HEADER_BYTES) / TLS_STREAM_RECORD_BYTES ||
      bytes != TLS_STREAM_HEADER_BYTES + stream_count * TLS_STREAM_RECORD_BYTES)
    fail("TLS stream module: size is not 24 + 8 x record count");
  stream_records = (const struct tls_stream_record*)(m + TLS_STREAM_HEADER_BYTES);
  for (uint32_t i = 0; i < stream_count; ++i)
    if (stream_records[i].thread >= stream_threads) fail("TLS stream module: a record's thread is not below the thread count");
}

static uint32_t stream_switches, stream_checks;

/* One pass over the records from stream thread 0: with `do_switch`, the design's switch
 * at every marker to another thread and the new thread's %gs:0 check; without, the same
 * loop, checking stream thread 0's %gs (still the one mapped). Returns the TSC cycles of the pass. */
static uint64_t stream_pass(int do_switch) {
  uint32_t lo0, hi0, lo1, hi1, running = 0, switched = 0, checks = 0;
  __asm__ volatile("rdtsc" : "=a"(lo0), "=d"(hi0));
  for (uint32_t i = 0; i < stream_count; ++i) {
    const struct tls_stream_record* r = &stream_records[i];
    if (!(r->flags & TLS_STREAM_SWITCH) || r->thread == running) continue;
    if (do_switch) switch_descriptors(&threads[running + 1], &threads[r->thread + 1]);
    running = r->thread;
    const uint32_t mapped = do_switch ? running : 0;
    uint32_t seen;
    __asm__ volatile("movl %%gs:0, %0" : "=r"(seen) : : "memory");
    if (seen != tls_magic((int)mapped + 1, 0)) fail("a thread's %gs does not map its TLS after a recorded switch");
    ++checks;
    ++switched;
  }
  __asm__ volatile("rdtsc" : "=a"(lo1), "=d"(hi1));
  if (do_switch) {
    switch_descriptors(&threads[running + 1], &threads[1]);  /* back to stream thread 0 for the next pass */
    stream_switches = switched;
    stream_checks = checks;
  }
  return (((uint64_t)hi1 << 32) | lo1) - (((uint64_t)hi0 << 32) | lo0);
}

__attribute__((noreturn)) static void stream_main(const uint32_t* info) {
  stream_load(info);
  if (!USES_TLS) fail("stream mode needs a variant whose threads use TLS (not c3_0)");
  switch_descriptors(&threads[0], &threads[1]);  /* the entry switch into stream thread 0 */
  const uint64_t empty = stream_pass(0);
  const uint64_t replay = stream_pass(1);
  const uint64_t sw = replay > empty ? replay - empty : 0;
  uint32_t markers = 0;
  for (uint32_t i = 0; i < stream_count; ++i) markers += (stream_records[i].flags & TLS_STREAM_SWITCH) != 0;
  metric("stream_records", stream_count);
  metric("stream_threads", stream_threads);
  metric("stream_switch_markers", markers);
  metric("switches", stream_switches);
  metric("operations", stream_switches);
  metric("tls_checks", stream_checks);
  metric("tls_descriptors", TLS_DESCRIPTORS);
  metric("descriptor_accessed", DESCRIPTOR_ACCESSED);
  metric("replay_cycles_total", replay);
  metric("empty_cycles_total", empty);
  metric("switch_cycles_total", sw);
  metric("cycles_per_switch_x100", stream_switches ? per_run_x100(sw, stream_switches) : 0);
  finish(1);
  for (;;) {
  }
}
