/* Stream mode of the TLS scenario, ring-0 side (docs/scenarios/tls.md "Stream mode"):
 * the hypervisor takes the recorded TLS access stream from Multiboot module 0 (Multiboot
 * Specification 0.6.96, "Boot information format": mods_count, mods_addr), checks the
 * header and every record before the guest kernel starts, and maps the module's
 * physical pages for the ring-3 replay. A bad stream ends the run with one FAIL line on
 * the debug console and no METRIC. Only in tls_stream.elf (TLS_STREAM). */
#include "hypervisor.h"

#include "guest_io.h"

struct stream_info hv_stream;

static int same_word(const char *word, unsigned length, const char *expected) {
  unsigned i = 0;
  for (; i < length && expected[i]; ++i)
    if (word[i] != expected[i]) return 0;
  return i == length && !expected[i];
}

int stream_command_word(const char *word, unsigned length) {
  if (same_word(word, length, "stream=direct")) hv_stream.virt_happy = 0;
  else if (same_word(word, length, "stream=virt-happy")) hv_stream.virt_happy = 1;
  else return 0;
  return 1;
}

__attribute__((noreturn)) static void stream_fail(const char *why, long record, uint32_t value) {
  struct text t = {.len = 0};
  text_str(&t, "FAIL TLS stream module: ");
  if (record >= 0) {
    text_str(&t, "record ");
    text_u64(&t, (uint64_t)record);
    text_str(&t, ": ");
  }
  text_str(&t, why);
  text_char(&t, ' ');
  text_hex(&t, value);
  text_char(&t, '\n');
  hv_console(t.buf, t.len);
  guest_exit(0x01);
}

static uint32_t le32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The records must lie above the TLS pages' physical 4-8 MiB (hypervisor.c maps the
 * thread pointer's 4 MiB page there) and below the first 4 MiB page that is not
 * identity mapped for them (stream_map). */
#define STREAM_LOWEST 0x00800000u
#define STREAM_HIGHEST (TLS_THREAD_POINTER & 0xFFC00000u)

void stream_load(const uint32_t *info) {
  if (!(info[0] & 8) || info[5] == 0) stream_fail("no Multiboot module (x86lab --initrd FILE); mods_count", -1, info[5]);
  const uint32_t *module = (const uint32_t *)info[6];
  const uint32_t start = module[0], end = module[1];
  if (start < STREAM_LOWEST || end > STREAM_HIGHEST || end < start)
    stream_fail("module must lie in physical 8 MiB .. 0xB7C00000 (give more --memory); it starts at", -1, start);
  const uint8_t *m = (const uint8_t *)start;
  const uint32_t bytes = end - start;
  if (bytes < TLS_STREAM_HEADER_BYTES) stream_fail("shorter than the 24-byte header; bytes", -1, bytes);
  for (unsigned i = 0; i < 8; ++i)
    if (m[i] != (uint8_t)TLS_STREAM_MAGIC[i]) stream_fail("magic is not X86LTLS1; first bytes", -1, le32(m));
  const uint32_t version = le32(m + 8), count = le32(m + 12), threads = le32(m + 16);
  if (version != TLS_STREAM_VERSION) stream_fail("version is not 1:", -1, version);
  if (le32(m + 20) != 0) stream_fail("reserved header word is not 0:", -1, le32(m + 20));
  if (threads == 0 || threads > TLS_STREAM_MAX_THREADS) stream_fail("thread count is not 1..16:", -1, threads);
  if (count > (bytes - TLS_STREAM_HEADER_BYTES) / TLS_STREAM_RECORD_BYTES ||
      bytes != TLS_STREAM_HEADER_BYTES + count * TLS_STREAM_RECORD_BYTES)
    stream_fail("size is not 24 + 8 x record count; bytes", -1, bytes);
  const struct tls_stream_record *r = (const struct tls_stream_record *)(m + TLS_STREAM_HEADER_BYTES);
  uint32_t current = 0;  /* the replay starts in thread 0 */
  for (uint32_t i = 0; i < count; ++i) {
    if (r[i].thread >= threads) stream_fail("thread is not below the thread count:", (long)i, r[i].thread);
    if (r[i].flags & TLS_STREAM_SWITCH) {
      if (r[i].flags != TLS_STREAM_SWITCH || r[i].offset || r[i].size || r[i].length)
        stream_fail("context-switch marker with other fields set; flags", (long)i, r[i].flags);
      current = r[i].thread;
      continue;
    }
    if (r[i].flags & ~TLS_STREAM_WRITE) stream_fail("unknown flags", (long)i, r[i].flags);
    if (r[i].size != 1 && r[i].size != 2 && r[i].size != 4) stream_fail("size is not 1, 2 or 4:", (long)i, r[i].size);
    if (r[i].length == 0 || r[i].length > 15) stream_fail("instruction length is not 1..15:", (long)i, r[i].length);
    if (r[i].thread != current) stream_fail("access by a thread other than the running one (no switch marker):", (long)i, r[i].thread);
    if (r[i].offset < -TLS_STREAM_WINDOW || r[i].offset > TLS_STREAM_WINDOW - (int32_t)r[i].size)
      stream_fail("offset outside -0x4000 .. 0x4000 - size:", (long)i, (uint32_t)r[i].offset);
  }
  hv_stream.records = r;
  hv_stream.count = count;
  hv_stream.threads = threads;
}

void stream_map(uint32_t *page_directory) {
  /* Identity 4 MiB pages (user-accessible, as the first 16 MiB) up to the module's end. */
  const uint32_t end = (uint32_t)(hv_stream.records + hv_stream.count);
  for (uint32_t i = 4; i < ((end + 0x3FFFFFu) >> 22); ++i) page_directory[i] = (i << 22) | 0x87;
}
