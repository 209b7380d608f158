# Runs `x86lab gui` offscreen with a script and checks its screenshot and text dump.
# -DCASE=first_gp: the main layout stopped at the first #GP of the TLS flipping scenario
#   (or, when the scenario is not built, of roms/tests/protected/pm_segment_loads), twice:
#   both PNGs must be 1600x1000 and identical (deterministic), and the dump must show
#   every main window with the #GP's content.
# -DCASE=click_step: a click on the Control window's Step button executes one instruction.
# -DCASE=quick_taps: ten F11 taps given all at once (as xdotool types them, press and
#   release between two frames) step ten instructions, and a click given at once presses
#   the Step button (Dear ImGui 1.86 lost such presses before the input queue).
# -DCASE=debug_console: the demo prints on port E9h only; after a run the Serial console
#   window shows the Debug console tab with that output (it was behind the COM1 tab).
# -DCASE=layout_1280: at 1280x800 the controls are in view (the dump logs only what is
#   drawn inside a window): the Trace window's "locked only" filter, the Control
#   buttons, Memory's Write, the Segments state column; a drag on the Control window's
#   lower-right grip resizes it, a drag on its title bar moves it.
# -DCASE=sideways_1280: at 1280x800 no window needs scrolling sideways (Trace wraps its
#   event lines onto a continuation line).
# -DCASE=breakpoints: an event breakpoint set by a script (break-on, the notation of
#   gdb's monitor) stops the demo at its first implied locked access (the Accessed bit
#   of GDT entry 1 on the far jump into protected mode); the Breakpoints window lists
#   every breakpoint with its hits.
# -DCASE=vga_keyboard: keys typed into the VGA text screen reach the guest through the
#   8042 (roms/guest/multiboot/keyboard_kernel.elf echoes them on the screen and sends
#   the line to COM1 on Enter); the VGA text screen opens by itself once the guest
#   writes text there.
# -DCASE=bad_script: a script with an unknown command is one line and exit status 2.
# -DCASE=apic_priority: the APIC window at 1280x800 on roms/guest/multiboot/apic_priority_kernel.c
#   stopped at the delivery of 61h nested in 51h's handler (after a stop at 51h's): ISR
#   51h and 61h, IRR 41h (class 4 waits), PPR 60h, the ICR of the self-IPI 61h; the grid
#   rows in the dump; hovering cell 41h gives its tooltip; the window needs no sideways
#   scrolling. Then the PNG (1280x800) for a human to look at.
# -DCASE=apic_ioapic: ioapic_kernel.c stopped at the delivery of 31h from I/O APIC pin 2,
#   level-triggered: ISR and TMR bit 31h, the redirection entry with remote IRR set.
# -DCASE=apic_timer: apic_timer_kernel.c at its first periodic expiry (vector 40h): the
#   LVT timer entry decoded, divide by 1, initial count 10000h; 1000 steps later the
#   current count is lower and the next expiry nearer by exactly the cycles that passed.
cmake_minimum_required(VERSION 3.25)

function(run_gui script)
  file(WRITE ${OUT}/${CASE}.script "${script}")
  execute_process(COMMAND ${X86LAB} gui ${ARGN} --script ${OUT}/${CASE}.script
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 50)
  set(rc ${rc} PARENT_SCOPE)
  set(out ${out} PARENT_SCOPE)
  set(err ${err} PARENT_SCOPE)
endfunction()

macro(expect_success)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "x86lab gui failed (${rc}): ${err}")
  endif()
endmacro()

function(expect_in file)
  file(READ ${file} text)
  foreach(needle ${ARGN})
    string(FIND "${text}" "${needle}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "'${needle}' is not in ${file}")
    endif()
  endforeach()
endfunction()

# Width and height from the PNG's IHDR chunk (bytes 16-23, big-endian).
function(png_size file out)
  file(READ ${file} header LIMIT 24 HEX)
  string(SUBSTRING "${header}" 32 8 w)
  string(SUBSTRING "${header}" 40 8 h)
  math(EXPR w "0x${w}")
  math(EXPR h "0x${h}")
  set(${out} "${w}x${h}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "first_gp")
  if(EXISTS ${SCENARIO_DIR}/tls/variants.json)
    set(machine --scenario-dir ${SCENARIO_DIR} --scenario tls/flipping)
    set(content "tls/flipping" "| GS | 0033 |" "gp_entry:" "B7E00000" "vector 13 error code 0000h")
  else()
    message(STATUS "the TLS scenario is not built: using ${ROM}")
    set(machine --bios ${ROM})
    set(content "vector 13 error code 0080h" "> 0080")
  endif()
  foreach(run 1 2)
    run_gui("break vector 13\nrun\nscreenshot ${OUT}/first_gp_${run}.png\ndump ${OUT}/first_gp_${run}.txt\nquit\n" ${machine})
    expect_success()
  endforeach()
  png_size(${OUT}/first_gp_1.png size)
  if(NOT size STREQUAL "1600x1000")
    message(FATAL_ERROR "screenshot is ${size}, not 1600x1000")
  endif()
  file(SHA256 ${OUT}/first_gp_1.png one)
  file(SHA256 ${OUT}/first_gp_2.png two)
  if(NOT one STREQUAL two)
    message(FATAL_ERROR "two runs of the same script gave different screenshots")
  endif()
  expect_in(${OUT}/first_gp_1.txt
    "==== Control ====" "==== CPU ====" "==== Counters ====" "==== Disassembly ====" "==== Segments ===="
    "==== Memory ====" "==== Descriptor tables ====" "==== Trace ====" "==== Serial console ===="
    "event breakpoint 1 (vector)" "protected mode" "| vector.13 | 1 |" "exc #GP vector=13" "32-bit TSS" ${content})
elseif(CASE STREQUAL "click_step")
  # The Step button of the Control window (at 0,20 in the default layout) is near 98,55.
  run_gui("frames 3\nclick 98 55\nframes 2\ndump ${OUT}/click_step.txt\nquit\n" --bios ${ROM})
  expect_success()
  expect_in(${OUT}/click_step.txt "step done" "instructions 1 ")
elseif(CASE STREQUAL "quick_taps")
  run_gui("frames 3\nkey F11 10\nframes 2\ndump ${OUT}/quick_taps_10.txt\nclick 98 55\nframes 2\ndump ${OUT}/quick_taps_11.txt\nquit\n" --bios ${ROM})
  expect_success()
  expect_in(${OUT}/quick_taps_10.txt "instructions 10 ")
  expect_in(${OUT}/quick_taps_11.txt "instructions 11 ")
elseif(CASE STREQUAL "debug_console")
  run_gui("run\nframes 2\ndump ${OUT}/debug_console.txt\nquit\n" --bios ${DEMO})
  expect_success()
  expect_in(${OUT}/debug_console.txt "x86lab demo: reset at F000:FFF0, now in real mode")
elseif(CASE STREQUAL "layout_1280")
  run_gui("break vector 13\nrun\ndump ${OUT}/layout_1280.txt\ndrag 395 160 495 260\ndrag 50 25 150 75\nframes 2\ndump ${OUT}/layout_1280_dragged.txt\nquit\n"
          --bios ${ROM} --size 1280x800)
  expect_success()
  expect_in(${OUT}/layout_1280.txt "==== Control ==== at 0,19 size 400x150" "Restart Ctrl+R" "locked only" "Write"
    "| reg | selector | state |" "==== Serial console ==== at 840,")
  expect_in(${OUT}/layout_1280_dragged.txt "==== Control ==== at 100,69 size 500x250")
elseif(CASE STREQUAL "sideways_1280")
  # At 1280x800, stopped at the TLS scenario's first #GP with three breakpoints listed:
  # no window has to be scrolled sideways (the dump's header says "scrolls N sideways"
  # for one that has), Trace included: its event lines (up to about 120 characters) go
  # on two lines, the second indented.
  if(NOT EXISTS ${SCENARIO_DIR}/tls/variants.json)
    message(STATUS "the TLS scenario is not built: skipped")
    return()
  endif()
  run_gui("break vector 13\nbreak-on io 0x60 0x64\nbreak-on write idt\nrun\ndump ${OUT}/sideways_1280.txt\nquit\n"
          --scenario-dir ${SCENARIO_DIR} --scenario tls/flipping --size 1280x800)
  expect_success()
  expect_in(${OUT}/sideways_1280.txt "==== CPU ====" "==== Segments ====" "==== Descriptor tables ===="
    "==== Breakpoints ====" "==== Trace ====")
  file(STRINGS ${OUT}/sideways_1280.txt scrolled REGEX "^==== .* scrolls [0-9]+ sideways$")
  if(scrolled)
    message(FATAL_ERROR "windows that scroll sideways at 1280x800: ${scrolled}")
  endif()
elseif(CASE STREQUAL "breakpoints")
  run_gui("break-on lock accessed-bit\nbreak-on vector 14 if cpl==3\nbreak 0xF00D0\nrun\ndump ${OUT}/breakpoints.txt\nquit\n"
          --bios ${DEMO})
  expect_success()
  expect_in(${OUT}/breakpoints.txt "event breakpoint 1 (lock) accessed-bit at F000:000000C8" "==== Breakpoints ===="
    "| [x] | 1: break on lock accessed-bit | 1 |" "| [x] | 2: break on vector 14 if cpl==0x3 | 0 |"
    "| [x] | 3: break at linear 000F00D0 | 0 |")
elseif(CASE STREQUAL "vga_keyboard")
  run_gui("run 200000\nframes 40\ndump ${OUT}/vga_opened.txt\nfocus VGA text screen\ntype echo Hi!\\n\nrun 300000\nframes 2\ndump ${OUT}/vga_keyboard.txt\nquit\n"
          --kernel ${KEYBOARD_KERNEL})
  expect_success()
  expect_in(${OUT}/vga_opened.txt "==== VGA text screen ====" "click here to type into the guest" "\nkbd>\n")
  expect_in(${OUT}/vga_keyboard.txt "keyboard to the guest (scan code set 2, translated to set 1)" "kbd> echo Hi!"
    "line: echo Hi!")
  if(NOT out MATCHES "line: echo Hi!\n")
    message(FATAL_ERROR "COM1 (standard output) did not get the line: ${out}")
  endif()
elseif(CASE STREQUAL "apic_priority")
  # Cell 41h of the IRR grid is at 445,257 in the APIC window's tile at 1280x800.
  run_gui("break vector 81\nrun\nbreak vector 97\nrun\nopen APIC\nframes 2\nclick 445 257\nframes 3\nscreenshot ${OUT}/apic_priority.png\ndump ${OUT}/apic_priority.txt\nquit\n"
          --kernel ${MULTIBOOT_DIR}/apic_priority_kernel.elf --size 1280x800)
  expect_success()
  png_size(${OUT}/apic_priority.png size)
  if(NOT size STREQUAL "1280x800")
    message(FATAL_ERROR "screenshot is ${size}, not 1280x800")
  endif()
  expect_in(${OUT}/apic_priority.txt "==== APIC ==== at 400,19 size 880x781\n" "event breakpoint 2 (vector) vector 97"
    "Local APIC  ID 00h  version 11h, max LVT entry 4" "IA32_APIC_BASE FEE00900h: base FEE00000h, enabled, BSP"
    "SVR 1FFh: software enabled, spurious vector FFh" "TPR 00h  APR 60h  PPR 60h"
    "ICR 00000000:00044061h: vector 61h Fixed, physical destination 00h, shorthand self, edge assert, idle"
    "IRR 41h\nIRR class 4: .. 41 .. .. .. .. .. .. .. .. .. .. .. .. .. ..\n"
    "tooltip: vector 41h (65), priority class 4\nIRR set\nISR clear\nTMR clear"
    "ISR 51h 61h\nISR class 5: .. 51 .. .. .. .. .. .. .. .. .. .. .. .. .. ..\nISR class 6: .. 61 .. .. .. .. .. .. .. .. .. .. .. .. .. ..\n"
    "TMR none\n" "| LINT0 | 00010700h | 00h | ExtINT | masked | edge | high | no | idle |"
    "| 23 | 00h | Fixed | physical | 00h | high | edge | no | masked | low | 0000000000010000h |")
elseif(CASE STREQUAL "apic_ioapic")
  run_gui("break vector 49\nrun\nopen APIC\nframes 2\nscreenshot ${OUT}/apic_ioapic.png\ndump ${OUT}/apic_ioapic.txt\nquit\n"
          --kernel ${MULTIBOOT_DIR}/ioapic_kernel.elf)
  expect_success()
  expect_in(${OUT}/apic_ioapic.txt "==== APIC ====" "IRR none\n" "ISR 31h\nISR class 3: .. 31 .. .." "TMR 31h\nTMR class 3: .. 31 .."
    "I/O APIC  ID 01h  version 11h, max redirection entry 17h  ARB 01h   IOREGSEL 14h"
    "| 2 | 31h | Fixed | physical | 00h | high | level | yes | masked | high | 000000000001C031h |"
    "| 3 | 00h | Fixed | physical | 00h | high | edge | no | masked | low | 0000000000010000h |")
elseif(CASE STREQUAL "apic_timer")
  run_gui("break vector 64\nrun\nrun\nopen APIC\nframes 2\ndump ${OUT}/apic_timer_1.txt\nstep 1000\nframes 2\ndump ${OUT}/apic_timer_2.txt\nquit\n"
          --kernel ${MULTIBOOT_DIR}/apic_timer_kernel.elf)
  expect_success()
  foreach(dump 1 2)
    expect_in(${OUT}/apic_timer_${dump}.txt "| timer | 00020040h | 40h | Fixed | unmasked | (periodic) | - | - | idle |"
      "Timer periodic, divide by 1 (DCR Bh)  initial count 00010000h  current count 0000")
    file(READ ${OUT}/apic_timer_${dump}.txt text)
    if(NOT text MATCHES "instructions [0-9]+  cycles ([0-9]+)")
      message(FATAL_ERROR "no cycles in the Control window of dump ${dump}")
    endif()
    set(cycles_${dump} ${CMAKE_MATCH_1})
    if(NOT text MATCHES "current count ([0-9A-F]+)h\nnext expiry in ([0-9]+) modeled cycles")
      message(FATAL_ERROR "no current count and next expiry in dump ${dump}")
    endif()
    math(EXPR count_${dump} "0x${CMAKE_MATCH_1}")
    set(expiry_${dump} ${CMAKE_MATCH_2})
  endforeach()
  expect_in(${OUT}/apic_timer_1.txt "ISR 40h\n")
  math(EXPR passed "${cycles_2} - ${cycles_1}")
  math(EXPR nearer "${expiry_1} - ${expiry_2}")
  if(passed LESS_EQUAL 0 OR NOT nearer EQUAL passed OR NOT count_2 LESS count_1)
    message(FATAL_ERROR "after ${passed} cycles the expiry came ${nearer} cycles nearer, count ${count_1} -> ${count_2}")
  endif()
elseif(CASE STREQUAL "bad_script")
  run_gui("step\njump 10\n" --bios ${ROM})
  if(NOT rc EQUAL 2 OR NOT err STREQUAL "x86lab: script '${OUT}/bad_script.script' line 2: unknown command 'jump'\n")
    message(FATAL_ERROR "expected exit status 2 and one line, got ${rc}: ${err}")
  endif()
endif()
