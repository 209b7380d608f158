/* Interfaces between the three rings of the TLS scenario (docs/scenarios/tls.md):
 * selectors, the hypercall numbers of the ring-0 hypervisor (int 0x82 from ring 1, as
 * Xen 2.0's guests called it), the system calls of the ring-1 guest kernel (int 0x80
 * from ring 3) and the report the ring-3 program hands back. */
#ifndef X86LAB_TLS_ABI_H
#define X86LAB_TLS_ABI_H
#include <stdint.h>

/* GDT layout. Entry 6 is the TLS entry glibc's NPTL asks for (selector 0x33). */
#define SEL_HV_CODE 0x08     /* ring 0, flat */
#define SEL_HV_DATA 0x10
#define SEL_GUEST_CODE 0x19  /* ring 1, clipped */
#define SEL_GUEST_DATA 0x21
#define SEL_USER_CODE 0x2B   /* ring 3, clipped */
#define SEL_TLS 0x33         /* ring 3, base = thread pointer */
#define SEL_USER_DATA 0x3B
#define SEL_TSS 0x40
#define GDT_TLS_ENTRY 6
#define GDT_ENTRIES 9

/* The thread pointer (base of the TLS segment) of the worked example in
 * docs/scenarios.md section 1; mapped by a 4 MiB page. */
#define TLS_THREAD_POINTER 0xB7E00000u
/* glibc's i386 tcbhead_t: tcb (self) at 0, dtv 4, self 8, multiple_threads 0xC,
 * sysinfo 0x10, stack_guard 0x14, pointer_guard 0x18. */
#define TCB_TCB 0x00
#define TCB_SELF 0x08
#define TCB_MULTIPLE_THREADS 0x0C
#define TCB_STACK_GUARD 0x14
#define TCB_POINTER_GUARD 0x18

/* Hypercalls (int 0x82, EAX = number; result in EAX, 0 or -1). */
#define HYPERCALL_VECTOR 0x82
#define HC_UPDATE_DESCRIPTOR 1 /* EBX = GDT entry, ECX = low dword, EDX = high dword */
#define HC_CONSOLE_WRITE 2     /* EBX = text, ECX = length in bytes */
#define HC_SHUTDOWN 3          /* EBX = 0: success, else failure */

/* System calls (int 0x80, EAX = number). */
#define SYSCALL_VECTOR 0x80
#define SYS_YIELD 1 /* a "context switch": the kernel may rewrite the TLS descriptor */
#define SYS_EXIT 2  /* EBX = struct user_report * */

/* What the ring-3 program did, from its own structure (user.c). */
struct user_report {
  uint32_t operations;          /* TLS accesses at the source level */
  uint32_t iterations;          /* calls of tls_operation() */
  uint32_t yields;              /* SYS_YIELD calls */
  uint32_t gs_negative;         /* %gs accesses with a negative offset, as compiled */
  uint32_t gs_positive;         /* %gs accesses with a positive offset, as compiled */
  uint32_t extra_user_loads;    /* thread-pointer loads added by -mno-tls-direct-seg-refs */
  uint32_t checksum;            /* fold of the values read, so nothing is optimised away */
  uint32_t tls_operations;      /* calls that were TLS operations (the others: density < 100) */
};

/* The sweep knobs of the Multiboot command line (docs/compare.md, "Sweeps"), parsed by
 * the hypervisor and copied by the guest kernel for the ring-3 program. */
struct user_knobs {
  uint32_t density; /* density=1..100: percent of the calls that are TLS operations; the
                       others do the same 8 accesses to ordinary memory (default 100) */
  uint32_t run;     /* run=1..64: the 8 accesses of an operation in sign runs of this
                       length (run=1: - + - + ...); 0 (default): the compiled + - + - operation */
  uint32_t threads; /* threads=1..16: threads taking turns at each SYS_YIELD, round robin
                       (default 1); the guest kernel switches TLS descriptors between them */
  uint32_t bases;   /* bases=1..threads: distinct TLS bases among the threads (thread k
                       uses base k mod bases; default 1): a switch installs the next
                       thread's descriptor only when its base differs, as XenLinux 2.6
                       updated a changed TLS descriptor */
};
extern struct user_knobs user_knobs;

#endif
