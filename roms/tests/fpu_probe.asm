; The boot-time FPU probe of a Linux i386 kernel seeing a present x87 (SDM Vol. 3,
; "Initialization of the x87 FPU"): CPUID.1:EDX.FPU; CR0 as head_32.S leaves it (NE
; and MP set, EM and TS clear, ET reading 1); fpu__init_system_early_generic's FNINIT,
; FNSTSW, FNSTCW and its test FSW = 0, FCW & 103Fh = 003Fh; the older check_x87's
; FNSTSW AX with AL = 0 and the FSETPM that the 387 ignores. Then the FPU computes,
; an unmasked #Z reaches the #MF handler at the next FWAIT (CR0.NE = 1), and CR0.TS
; makes an escape opcode raise #NM until CLTS.
%include "rom.inc"

section .text
start:
  REAL_MODE_START
  SET_VECTOR 7, device_not_available
  SET_VECTOR 16, floating_point_error

  mov eax, 1
  cpuid
  test dl, 1
  CHECK nz, "CPUID.1:EDX.FPU is set"
  mov eax, cr0
  and eax, ~0x0C              ; clear EM and TS
  or eax, 0x22                ; set NE and MP
  mov cr0, eax
  mov eax, cr0
  test al, 0x10
  CHECK nz, "CR0.ET reads 1"

  ; fpu__init_system_early_generic: both words start as FFFFh.
  mov word [0x500], 0xFFFF
  mov word [0x502], 0xFFFF
  fninit
  fnstsw [0x500]
  fnstcw [0x502]
  CHECK_EQ word [0x500], 0, "FNSTSW after FNINIT reads 0"
  mov ax, [0x502]
  and ax, 0x103F
  CHECK_EQ ax, 0x003F, "FNSTCW after FNINIT: every exception masked"
  CHECK_EQ word [0x502], 0x037F, "FNSTCW after FNINIT reads 037Fh"

  ; check_x87 of older kernels.
  mov ax, 0xFFFF
  fninit
  fnstsw ax
  CHECK_EQ al, 0, "FNSTSW AX after FNINIT: AL = 0"
  db 0xDB, 0xE4               ; FSETPM: a 287 instruction the 387 and later ignore

  ; 3 * 7 + 1 = 22 through FILD, FIMUL, FLD1, FADDP, FISTP.
  mov word [0x504], 7
  fild word [0x504]
  mov word [0x504], 3
  fimul word [0x504]
  fld1
  faddp st1, st0
  fistp word [0x506]
  CHECK_EQ word [0x506], 22, "FPU arithmetic: 3 * 7 + 1 = 22"

  ; #MF: with #Z unmasked, 1 / 0 flags the exception; the next FWAIT faults.
  mov byte [0x510], 0
  mov word [0x504], 0x037B
  fldcw [0x504]
  fld1
  fldz
  fdivp st1, st0
  CHECK_EQ byte [0x510], 0, "the divide itself does not fault"
.wait:
  fwait
  CHECK_EQ byte [0x510], 1, "#MF delivered once at FWAIT"
  CHECK_EQ word [0x512], .wait, "#MF pushes the IP of the waiting instruction"
  mov ax, [0x514]
  and ax, 0x0084
  CHECK_EQ ax, 0x0084, "the #MF handler sees ZE and ES"

  ; #NM: CR0.TS makes the escape opcode fault; the handler's CLTS lets it restart.
  mov byte [0x520], 0
  mov eax, cr0
  or eax, 0x08
  mov cr0, eax
.escape:
  fninit
  CHECK_EQ byte [0x520], 1, "#NM delivered once"
  CHECK_EQ word [0x522], .escape, "#NM pushes the IP of the escape instruction"
  jmp pass

; #MF: count, record the pushed IP and the status word, clear the exception.
floating_point_error:
  inc byte [0x510]
  push bp
  mov bp, sp
  mov ax, [bp + 2]
  mov [0x512], ax
  fnstsw [0x514]
  fnclex
  pop bp
  iret

; #NM: count, record the pushed IP, clear CR0.TS.
device_not_available:
  inc byte [0x520]
  push bp
  mov bp, sp
  mov ax, [bp + 2]
  mov [0x522], ax
  clts
  pop bp
  iret

ROM_END
