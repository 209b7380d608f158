; Entry points and interrupt stubs of the TLS scenario (docs/scenarios/tls.md): the
; Multiboot header, the ring-0 hypervisor's #GP and hypercall entries, the ring-1 guest
; kernel's system-call entry and the ring transitions (SDM Vol. 3, "Interrupt and
; Exception Handling", "Privilege Level Checking When Accessing Data Segments").
;
; Every entry saves the interrupted context as struct frame (hypervisor.h): EDI..EAX
; (PUSHAD), DS, ES, FS, GS, the error code, then what the CPU pushed. Every exit
; restores it with POP GS before IRET, as Xen's did: that pop reloads the TLS
; descriptor into the GS descriptor cache (a flip takes effect there).
bits 32
section .multiboot
align 4
MB_MAGIC equ 0x1BADB002
MB_FLAGS equ 0x00000003
  dd MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)

SEL_HV_CODE equ 0x08
SEL_HV_DATA equ 0x10
SEL_GUEST_DATA equ 0x21

section .text
global _start, load_gdt, enter_outer_ring, gp_entry, hypercall_entry, syscall_entry
global exception_entries, guest_stack_top, hv_stack_top
extern __bss_start, __bss_end
extern hypervisor_main, hv_gp_handler, hv_hypercall, hv_unexpected, guest_syscall
extern hv_gp_window_instructions, hv_gp_window_cycles

_start:
  mov edx, eax
  mov edi, __bss_start             ; the loader need not clear .bss
  mov ecx, __bss_end
  sub ecx, edi
  xor eax, eax
  cld
  rep stosb
  mov eax, edx
  mov esp, hv_stack_top
  push ebx                         ; Multiboot information
  push eax                         ; 2BADB002h
  call hypervisor_main
.halt:
  cli
  hlt
  jmp .halt

; void load_gdt(const void *gdtr): LGDT, then CS, DS, ES, SS from the new table.
load_gdt:
  mov eax, [esp + 4]
  lgdt [eax]
  jmp SEL_HV_CODE:.reload
.reload:
  mov ax, SEL_HV_DATA
  mov ds, ax
  mov es, ax
  mov ss, ax
  xor eax, eax
  mov fs, ax
  mov gs, ax
  ret

; void enter_outer_ring(uint32_t eip, uint32_t esp, uint32_t cs, uint32_t ds): IRET
; to the ring of `cs` with SS = DS = ES = `ds` and IF clear (hypervisor -> ring 1,
; guest kernel -> ring 3).
enter_outer_ring:
  mov eax, [esp + 4]
  mov ecx, [esp + 8]
  mov edx, [esp + 16]
  mov ds, dx
  mov es, dx
  push edx
  push ecx
  push 0x00000002
  push dword [esp + 24]            ; cs (ESP moved by 12 bytes of pushes)
  push eax
  iretd

%macro SAVE_FRAME 1
  push gs
  push fs
  push es
  push ds
  pushad
  mov ax, %1
  mov ds, ax
  mov es, ax
%endmacro

%macro RESTORE_FRAME 0
  popad
  pop ds
  pop es
  pop fs
  pop gs
  add esp, 4                       ; error code
  iretd
%endmacro

; #GP (vector 13, ring-0 interrupt gate). The handler's instructions and cycles are
; measured with RDPMC (PerfCtr0 = instructions retired, PerfCtr1 = cycles; set up by
; the hypervisor) between the two marked reads; hypervisor.c adds the instructions
; outside that window (GP_STUB_INSTRUCTIONS_OUTSIDE: 9 before the first RDPMC, 14
; from the second RDPMC on, IRETD included).
gp_entry:
  SAVE_FRAME SEL_HV_DATA           ; 8 instructions
  xor ecx, ecx                     ; 9th instruction: still before the window
  rdpmc                            ; window start (this RDPMC is the first counted)
  mov [gp_start_instructions], eax
  mov ecx, 1
  rdpmc
  mov [gp_start_cycles], eax
  push esp
  call hv_gp_handler
  add esp, 4
  xor ecx, ecx
  rdpmc                            ; window end: counts up to the XOR above
  sub eax, [gp_start_instructions]
  add [hv_gp_window_instructions], eax
  mov ecx, 1
  rdpmc
  sub eax, [gp_start_cycles]
  add [hv_gp_window_cycles], eax
  RESTORE_FRAME                    ; 7 instructions (with IRETD)

; Hypercalls (int 0x82 from ring 1).
hypercall_entry:
  push 0
  SAVE_FRAME SEL_HV_DATA
  push esp
  call hv_hypercall
  add esp, 4
  RESTORE_FRAME

; System calls of the ring-1 guest kernel (int 0x80 from ring 3; the gate leads
; straight to ring 1, as Xen 2.0's fast trap for int 0x80 did).
syscall_entry:
  push 0
  SAVE_FRAME SEL_GUEST_DATA
  push esp
  call guest_syscall
  add esp, 4
  RESTORE_FRAME

; Any other exception: the vector and the frame go to hv_unexpected, which reports
; and ends the run as failed. Vectors with an error code: 8, 10-14, 17.
%macro EXCEPTION 1
exception_%1:
%if %1 != 8 && (%1 < 10 || %1 > 14) && %1 != 17
  push 0
%endif
  SAVE_FRAME SEL_HV_DATA
  push esp
  push %1
  call hv_unexpected
%endmacro
%assign v 0
%rep 32
EXCEPTION v
%assign v v + 1
%endrep

section .rodata
align 4
exception_entries:
%assign v 0
%rep 32
  dd exception_%[v]
%assign v v + 1
%endrep

section .bss
align 16
  resb 16384
hv_stack_top:
  resb 8192
guest_stack_top:                   ; ring 1 (TSS ESP1)
gp_start_instructions: resd 1
gp_start_cycles: resd 1

section .note.GNU-stack noalloc noexec nowrite progbits
