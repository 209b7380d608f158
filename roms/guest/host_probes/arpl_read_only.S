# A 32-bit Linux program that runs ARPL on the host CPU with its destination word in a
# read-only data segment (an LDT entry made with modify_ldt), for
# tests/cpu/arpl_host_probe.sh: the hardware evidence behind x86lab's ARPL (Intel SDM
# Vol. 2, "ARPL"; docs/test386.md, "ARPL").
#   no argument:    ARPL with the word's RPL (3) already >= the source's (3): nothing
#                   to write; exit status 0 unless the CPU faults (then SIGSEGV)
#   one argument:   ARPL that must raise the word's RPL (0 -> 3): a write
#   two arguments:  a plain MOV to the segment (shows that it is read-only)
# Exit status 77 when the kernel refuses the LDT entry.
        .text
        .globl _start
_start:
        movl $123, %eax                 # modify_ldt(1, &entry, sizeof entry)
        movl $1, %ebx
        movl $entry, %ecx
        movl $16, %edx
        int $0x80
        testl %eax, %eax
        jnz refused
        movl $7, %eax                   # LDT entry 0, TI = 1, RPL 3
        movw %ax, %fs
        movw $3, %bx                    # source RPL 3
        movl (%esp), %ecx               # argc
        cmpl $1, %ecx
        je equal
        cmpl $2, %ecx
        je raise
        movw $0x0004, %fs:0             # a plain write
        jmp done
raise:
        arpl %bx, %fs:2                 # RPL 0 < 3: ARPL writes
        jmp done
equal:
        arpl %bx, %fs:0                 # RPL 3 = 3: nothing to write
done:
        movl $1, %eax                   # exit(0)
        xorl %ebx, %ebx
        int $0x80
refused:
        movl $1, %eax                   # exit(77)
        movl $77, %ebx
        int $0x80

        .data
        .balign 4
entry:                                  # struct user_desc
        .long 0                         # entry_number
        .long words                     # base_addr
        .long 0xFFF                     # limit (bytes)
        .long 0x49                      # seg_32bit (bit 0), read_exec_only (bit 3), useable (bit 6); data
words:  .word 0x0007, 0x0004            # RPL 3, RPL 0
