; Multiboot header, start-up, and the interrupt entry code of the irq scenario kernels
; (docs/scenarios/irq.md; ../../../../shared/docs/scenarios.md section 3). Assembled once
; per layout with -DLAYOUT=n:
;   1 classic      one 16-byte slot per vector: push imm8/imm32 ~vector; jmp common_interrupt
;   2 compressed   seven 4-byte stubs per 32-byte chunk: push imm8 (~vector+80h); jmp short
;                  to the chunk's shared jmp common_interrupt (the 7th falls through)
;   3 single       one 8-byte slot per vector: push imm8 (~vector+80h); jmp common_interrupt
;   4 csvec        no stubs: every gate names csvec_entry with its own code selector; the
;                  entry pushes CS and far-jumps back to KERNEL_CS, and the vector comes
;                  from the pushed selector
; All of it lives in section .irqentry, which kernel.ld places alone at IRQ_ENTRY_BASE.
; Frames follow struct frame in irq_kernel.c: PUSHAD registers, the pushed ~vector (-1 for
; a system call), then what the CPU pushed on delivery from ring 3 (SDM Vol. 3,
; "Interrupt and Exception Handling": EIP, CS, EFLAGS, ESP, SS).
bits 32
%ifndef LAYOUT
%error "assemble with -DLAYOUT=1..4"
%endif
KERNEL_CS equ 0x08
KERNEL_SS equ 0x10
USER_DS equ 0x23
TSS_SEL equ 0x28
VECTOR_GDT_INDEX0 equ 6            ; GDT index of the code descriptor of vector 20h (csvec)

%include "multiboot_entry.inc"

section .text
global _start, load_descriptor_tables, enter_user, system_call, unexpected_entry, irq_entries, kstack_top, kstack_frame
extern kernel_main, do_irq, do_syscall, do_unexpected

MULTIBOOT_START boot_stack_top

; void load_descriptor_tables(const void* gdtr, const void* idtr): LGDT, reload every
; segment register from the new GDT (CS by a far jump), LIDT, LTR.
load_descriptor_tables:
  mov eax, [esp + 4]
  lgdt [eax]
  mov eax, [esp + 8]
  lidt [eax]
  jmp KERNEL_CS:.reload
.reload:
  mov ax, KERNEL_SS
  mov ss, ax
  mov ax, USER_DS
  mov ds, ax
  mov es, ax
  mov fs, ax
  mov gs, ax
  mov ax, TSS_SEL
  ltr ax
  ret

; void enter_user(struct frame* frame): frame sits at the top of the kernel stack; IRET
; through it into ring 3.
enter_user:
  mov esp, [esp + 4]
  jmp ret_from_interrupt

%if LAYOUT == 4
; Back in KERNEL_CS with the interrupted context and the per-vector selector pushed.
csvec_common:
  pushad
  movzx eax, word [esp + 32]       ; PUSH CS wrote only the low 16 bits
  shr eax, 3
  add eax, 0x20 - VECTOR_GDT_INDEX0
  not eax
  mov [esp + 32], eax              ; ~vector, as the stubs push it
  jmp interrupt_saved
%endif

common_interrupt:
%if LAYOUT == 2 || LAYOUT == 3
  add dword [esp], -0x80           ; the stubs pushed ~vector + 80h to fit an imm8
%endif
  pushad
interrupt_saved:
  cld
  push esp
  call do_irq
  add esp, 4
ret_from_interrupt:
  popad
  add esp, 4
  iretd

; INT 80h (a DPL3 interrupt gate on KERNEL_CS, outside the entry area, as Linux's
; system_call): EAX = number, EBX = argument.
system_call:
  push dword -1
  pushad
  cld
  push esp
  call do_syscall
  add esp, 4
  jmp ret_from_interrupt

; Exceptions 0-1Fh: the variant failed.
unexpected_entry:
  cld
  call do_unexpected
.halt:
  cli
  hlt
  jmp .halt

section .irqentry progbits alloc exec nowrite align=32
%if LAYOUT == 1 || LAYOUT == 3
; One slot per vector: classic pushes ~v (imm8 when it fits a sign-extended byte, v < 80h,
; else imm32), single pushes ~v + 80h (always an imm8).
%if LAYOUT == 1
SLOT_BYTES equ 16
%assign bias 0
%else
SLOT_BYTES equ 8
%assign bias 0x80
%endif
%assign v 0x20
%rep 224
%assign value (~v) + bias
irq_stub_%[v]:
%if value >= -128 && value <= 127
  push byte value                  ; 6A ib
%else
  push dword value                 ; 68 id
%endif
  jmp near common_interrupt
  times SLOT_BYTES - ($ - irq_stub_%[v]) db 0xCC
%assign v v + 1
%endrep

%elif LAYOUT == 2
%assign v 0x20
%rep 32
irq_chunk_%[v]:
%assign i 0
%rep 7
%assign w v + i
irq_stub_%[w]:
  push byte (~w) + 0x80
%if i < 6
  jmp short irq_chunk_end_%[v]
%endif
%assign i i + 1
%endrep
irq_chunk_end_%[v]:
  jmp near common_interrupt
  times 32 - ($ - irq_chunk_%[v]) db 0xCC
%assign v v + 7
%endrep

%elif LAYOUT == 4
csvec_entry:
  push cs
  jmp KERNEL_CS:csvec_common
%else
%error "LAYOUT must be 1..4"
%endif

; irq_entries[v - 20h]: the gate offset of vector v.
section .rodata
align 4
irq_entries:
%assign v 0x20
%rep 224
%if LAYOUT == 4
  dd csvec_entry
%else
  dd irq_stub_%[v]
%endif
%assign v v + 1
%endrep

section .bss
align 16
  resb 8192
boot_stack_top:
FRAME_BYTES equ 56                 ; sizeof(struct frame)
  resb 8192 - FRAME_BYTES
kstack_frame:                      ; the frame of every entry from ring 3
  resb FRAME_BYTES
kstack_top:

section .note.GNU-stack noalloc noexec nowrite progbits
