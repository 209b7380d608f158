/* Shared by the ring-0 hypervisor (hypervisor.c, gp_handler.c) and the ring-1 guest
 * kernel (guest.c) of the TLS scenario: the saved-context frame built by start.asm,
 * the boot-time options and a small text formatter for the debug console. */
#ifndef X86LAB_TLS_HYPERVISOR_H
#define X86LAB_TLS_HYPERVISOR_H
#include <stdint.h>

#include "abi.h"
#include "descriptor.h"

/* The interrupted context, lowest address first (start.asm SAVE_FRAME). esp/ss are
 * valid only when the event came from an outer ring. */
struct frame {
  uint32_t edi, esi, ebp, esp_at_pushad, ebx, edx, ecx, eax;
  uint32_t ds, es, fs, gs;
  uint32_t error_code, eip, cs, eflags, esp, ss;
};

enum hv_mode { MODE_NATIVE, MODE_EMULATION, MODE_FLIPPING };

/* Parsed from the Multiboot command line: "mode=native|emulation|flipping rewrites=0|1". */
struct start_info {
  enum hv_mode mode;
  int rewrites; /* the guest kernel rewrites the TLS descriptor on every SYS_YIELD */
};
extern struct start_info hv_start_info;
extern struct seg_desc hv_gdt[GDT_ENTRIES];

/* Text for port E9h. */
struct text {
  char buf[1024];
  unsigned len;
};

static inline void text_char(struct text *t, char c) {
  if (t->len < sizeof t->buf) t->buf[t->len++] = c;
}

static inline void text_str(struct text *t, const char *s) {
  while (*s) text_char(t, *s++);
}

static inline void text_u64(struct text *t, uint64_t v) {
  char digits[20];
  unsigned n = 0;
  do {
    digits[n++] = (char)('0' + (unsigned)(v % 10));
    v /= 10;
  } while (v);
  while (n) text_char(t, digits[--n]);
}

static inline void text_hex(struct text *t, uint32_t v) {
  text_str(t, "0x");
  for (int shift = 28; shift >= 0; shift -= 4) text_char(t, "0123456789ABCDEF"[(v >> shift) & 0xF]);
}

/* "METRIC <name> <value>\n" (docs/scenarios contract). */
static inline void text_metric(struct text *t, const char *name, uint64_t value) {
  text_str(t, "METRIC ");
  text_str(t, name);
  text_char(t, ' ');
  text_u64(t, value);
  text_char(t, '\n');
}

/* hypervisor.c */
void hv_console(const char *s, unsigned length);
__attribute__((noreturn)) void hv_fail(const char *why, const struct frame *f);
/* gp_handler.c: the #GP(0) path, per mode. */
void hv_gp_handler(struct frame *f);
void hv_gp_report(struct text *t);
extern uint64_t hv_handler_descriptor_writes; /* flips written into the GDT */

#ifdef TLS_STREAM
#include "stream.h"
/* stream_hv.c (tls_stream.elf only): the checked stream of Multiboot module 0. */
struct stream_info {
  const struct tls_stream_record *records;
  uint32_t count, threads;
  int virt_happy; /* "stream=virt-happy": negative offsets go through a %gs:0 load, as -mno-tls-direct-seg-refs code */
};
extern struct stream_info hv_stream;
int stream_command_word(const char *word, unsigned length); /* "stream=direct|virt-happy": 1 if it was one */
void stream_load(const uint32_t *multiboot_info);           /* checks the module; a bad one ends the run */
void stream_map(uint32_t *page_directory);                  /* identity pages over the module */
/* What the ring-3 replay (stream_user.c) hands to SYS_EXIT. */
struct stream_user_report {
  struct user_report common;     /* operations = accesses replayed, yields = switch markers */
  uint32_t lengths_approximated; /* accesses replayed with an instruction of another length */
  uint32_t writes;               /* accesses with the write flag */
  uint64_t replay_instructions;  /* PerfCtr0 (instructions retired) over the replay loop */
  uint64_t replay_cycles;        /* PerfCtr1 (cycles) over the replay loop */
};
void stream_user_main(void); /* stream_user.c */
#endif

#endif
