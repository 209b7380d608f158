; A tiny scenario guest for the runner's own tests (tests/platform/scenario_*_test.cpp,
; tests/ui/compare_cli_test.cpp): it counts down LOOPS times (two instructions per
; iteration), raises INT 50h three times, and reports on the debug console in the
; METRIC/SAMPLES protocol of docs/compare.md. Knobs (nasm -D): LOOPS, EXIT_CODE (the
; value written to port F4h), END_HALT (end with CLI; HLT instead), HANG (never end),
; MALFORMED (print a METRIC line with a bad value).
%include "rom.inc"

%ifndef LOOPS
  %define LOOPS 100
%endif
%ifndef EXIT_CODE
  %define EXIT_CODE PASS_CODE
%endif
%define SAMPLE_COUNT 8

section .text
start:
  REAL_MODE_START
  mov word [0x50 * 4], int50_handler
  mov word [0x50 * 4 + 2], 0xF000
  PRINT "selftest: free text between the reports is ignored", 10

  mov cx, LOOPS
.work:
  dec cx
  jnz .work

  int 0x50
  int 0x50
  int 0x50

  PRINT "METRIC operations "
  mov eax, LOOPS
  call print_dec32
  PRINT 10, "METRIC answer -42", 10
%ifdef MALFORMED
  PRINT "METRIC broken 12x", 10
%endif

  ; SAMPLE_COUNT back-to-back RDTSC deltas, then one appended line.
  PRINT "SAMPLES latency"
  mov si, SAMPLE_COUNT
.sample:
  rdtsc
  mov ebx, eax
  rdtsc
  sub eax, ebx
  PRINT " "
  call print_dec32
  dec si
  jnz .sample
  PRINT 10, "SAMPLES latency 1000000", 10

%ifdef HANG
  jmp $
%endif
%ifdef END_HALT
  cli
  hlt
%endif
  mov al, EXIT_CODE
  out EXIT_PORT, al
  cli
  hlt

int50_handler:
  iret

; print_dec32: prints EAX as an unsigned decimal number.
print_dec32:
  pushad
  mov ebx, 10
  xor cx, cx
.divide:
  xor edx, edx
  div ebx
  push dx
  inc cx
  test eax, eax
  jnz .divide
.digit:
  pop ax
  add al, '0'
  out DEBUGCON, al
  loop .digit
  popad
  ret

ROM_END
