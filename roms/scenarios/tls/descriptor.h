/* Segment-descriptor arithmetic of the TLS scenario's hypervisor (Intel SDM Vol. 3,
 * "Segment Descriptors": base 31:0 split over both dwords, limit 19:0 in pages when
 * G = 1, type bit 2 = expand-down for data segments, bit 0 = Accessed).
 *
 * Plain C, header only, no library calls: compiled into the ring-0 hypervisor
 * (hypervisor.c, gcc -m32) and into the host unit test (tests/scenarios/tls_test.cpp),
 * which checks it against the worked table of docs/scenarios.md section 1. */
#ifndef X86LAB_TLS_DESCRIPTOR_H
#define X86LAB_TLS_DESCRIPTOR_H
#include <stdint.h>

/* Guest segments end below this linear address (Xen 2.0 clipped them at 0xFC400000:
 * the hypervisor starts at 0xFC000000 and its first 4 MiB, a read-only table, stay
 * readable by guests). */
#define TLS_SEGMENT_CLIP 0xFC400000u
/* The hypervisor's hole: the emulator never touches linear addresses at or above it. */
#define TLS_HOLE_START 0xFC000000u

#define DESC_ACCESSED 0x00000100u   /* high dword: type bit 0 */
#define DESC_EXPAND_DOWN 0x00000400u /* high dword: type bit 2 of a data segment */
#define DESC_CODE 0x00000800u       /* high dword: type bit 3 */
#define DESC_S 0x00001000u          /* high dword: code or data (not system) */
#define DESC_PRESENT 0x00008000u
#define DESC_DB 0x00400000u
#define DESC_G 0x00800000u

struct seg_desc {
  uint32_t low, high;
};

/* A code/data descriptor from its fields: `access` is bits 15:8 of the high dword
 * (P, DPL, S, type), `flags` bits 23:20 (G, D/B, L, AVL). */
static inline struct seg_desc desc_make(uint32_t base, uint32_t limit_field, uint32_t access, uint32_t flags) {
  struct seg_desc d;
  d.low = (base << 16) | (limit_field & 0xFFFFu);
  d.high = (base & 0xFF000000u) | ((flags & 0xFu) << 20) | (limit_field & 0x000F0000u) | ((access & 0xFFu) << 8) |
           ((base >> 16) & 0xFFu);
  return d;
}

/* The TLS descriptor glibc's NPTL asks for with set_thread_area (Linux fills it from
 * struct user_desc: limit 0xFFFFF pages, 32-bit, writable data, DPL 3, "useable" =
 * AVL set, Accessed clear). */
static inline struct seg_desc desc_glibc_tls(uint32_t thread_pointer) {
  return desc_make(thread_pointer, 0xFFFFFu, 0xF2u, 0xDu);
}

static inline uint32_t desc_base(struct seg_desc d) {
  return (d.low >> 16) | ((d.high & 0xFFu) << 16) | (d.high & 0xFF000000u);
}

/* Raw 20-bit limit field (pages when G = 1, bytes when G = 0). */
static inline uint32_t desc_limit_field(struct seg_desc d) { return (d.low & 0xFFFFu) | (d.high & 0x000F0000u); }

/* Byte limit: the field, scaled by G ((limit << 12) | 0xFFF). */
static inline uint32_t desc_byte_limit(struct seg_desc d) {
  const uint32_t field = desc_limit_field(d);
  return (d.high & DESC_G) ? (field << 12) | 0xFFFu : field;
}

static inline unsigned desc_dpl(struct seg_desc d) { return (d.high >> 13) & 3u; }

static inline int desc_is_data(struct seg_desc d) { return (d.high & DESC_S) && !(d.high & DESC_CODE); }

static inline int desc_expand_down(struct seg_desc d) { return desc_is_data(d) && (d.high & DESC_EXPAND_DOWN); }

static inline struct seg_desc desc_with_limit_field(struct seg_desc d, uint32_t field) {
  struct seg_desc r;
  r.low = (d.low & 0xFFFF0000u) | (field & 0xFFFFu);
  r.high = (d.high & ~0x000F0000u) | (field & 0x000F0000u);
  return r;
}

/* Clips an expand-up code or data segment so that its last byte lies below
 * TLS_SEGMENT_CLIP (limit rewritten in pages, G set), as Xen 2.0 did to every
 * descriptor a guest installed. Expand-down and system descriptors and segments that
 * already end below the clip come back unchanged. A base at or above the clip cannot
 * be clipped: the caller rejects it. */
static inline struct seg_desc desc_truncate(struct seg_desc d) {
  if (!(d.high & DESC_S) || desc_expand_down(d)) return d;
  const uint64_t base = desc_base(d);
  if (base + desc_byte_limit(d) < TLS_SEGMENT_CLIP) return d;
  struct seg_desc r = desc_with_limit_field(d, (uint32_t)((TLS_SEGMENT_CLIP - base - 1) >> 12));
  r.high |= DESC_G;
  return r;
}

/* Flip 1 (negative offset on the expand-up form): expand-down, G = 1, with the
 * lowest valid offset 2^32 - base rounded up to a page, so that offsets wrap onto
 * linear [0, base) and nothing at or above the base is reachable. */
static inline struct seg_desc desc_flip_down(struct seg_desc d) {
  const uint64_t lowest = ((1ull << 32) - desc_base(d) + 0xFFFu) & ~0xFFFull;
  struct seg_desc r = desc_with_limit_field(d, (uint32_t)((lowest >> 12) - 1));
  r.high |= DESC_EXPAND_DOWN | DESC_G;
  return r;
}

/* Flip 2 (positive offset on the expand-down form): back to the clipped expand-up
 * form the hypervisor installs (the limit the guest asked for is not kept: 0xFFFFF
 * pages, then clipped). */
static inline struct seg_desc desc_flip_up(struct seg_desc d) {
  struct seg_desc r = desc_with_limit_field(d, 0xFFFFFu);
  r.high = (r.high & ~DESC_EXPAND_DOWN) | DESC_G;
  return desc_truncate(r);
}

/* Whether a data access of `size` bytes at `offset` passes the segment's limit check
 * (SDM "Limit Checking"; 32-bit segments, D/B = 1). */
static inline int desc_offset_valid(struct seg_desc d, uint32_t offset, uint32_t size) {
  const uint64_t last = (uint64_t)offset + size - 1;
  if (desc_expand_down(d)) return offset > desc_byte_limit(d) && last <= 0xFFFFFFFFull;
  return last <= desc_byte_limit(d);
}

#endif
