/* The recorded TLS access stream (issue 25; docs/scenarios/tls.md "Stream mode"): the
 * file the recorder of a real run writes and the tls guest replays as Multiboot module 0
 * (x86lab --initrd FILE, or the manifest's "module"). Little-endian:
 *   header (24 bytes): "X86LTLS1", u32 version = 1, u32 record count N,
 *                      u32 thread count T, u32 reserved = 0;
 *   N records of 8 bytes (struct tls_stream_record).
 * Plain C, header only: compiled into the guest (gcc -m32) and into the host tests and
 * the stream writer (platform/scenario/tls_stream.*). */
#ifndef X86LAB_TLS_STREAM_H
#define X86LAB_TLS_STREAM_H
#include <stdint.h>

#define TLS_STREAM_MAGIC "X86LTLS1"
#define TLS_STREAM_VERSION 1u
#define TLS_STREAM_HEADER_BYTES 24u
#define TLS_STREAM_RECORD_BYTES 8u

#define TLS_STREAM_WRITE 0x01u  /* flags bit 0: the access writes */
#define TLS_STREAM_SWITCH 0x80u /* flags bit 7: context switch to thread `thread`; other fields 0 */

/* What the guest accepts (the hypervisor checks every record before the replay): at most
 * TLS_STREAM_MAX_THREADS threads, each with its own thread pointer
 * TLS_THREAD_POINTER - k * TLS_STREAM_THREAD_SPACING, and offsets inside
 * [-TLS_STREAM_WINDOW, TLS_STREAM_WINDOW) around it (glibc's static TLS block below the
 * thread pointer and struct pthread above it are a few KiB at most). */
#define TLS_STREAM_MAX_THREADS 16u
#define TLS_STREAM_THREAD_SPACING 0x10000u
#define TLS_STREAM_WINDOW 0x4000

struct tls_stream_record {
  int32_t offset;   /* the effective address through %gs (signed) */
  uint8_t size;     /* operand bytes: 1, 2 or 4 */
  uint8_t flags;    /* TLS_STREAM_WRITE, TLS_STREAM_SWITCH */
  uint8_t length;   /* instruction bytes of the recorded access, 1..15 */
  uint8_t thread;   /* the accessing thread, or the switch's target; 0..T-1 */
};

#endif
