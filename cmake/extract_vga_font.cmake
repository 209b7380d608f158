# Writes OUTPUT, a C++ initializer list of the 8x16 VGA font (256 x 16 bytes) that the
# VGA BIOS ROM at ROM carries for its text modes: found as the glyph of 'A' (41h) of
# the IBM VGA font (00 00 10 38 6C C6 C6 FE C6 C6 C6 C6 00 00 00 00), the font's start
# lying 41h x 16 bytes before it. A build without the ROM, or a ROM without the glyph,
# gets an empty list (text then draws as blank cells until a guest loads a font).
# Usage: cmake -DROM=/usr/share/seabios/vgabios-stdvga.bin -DOUTPUT=vga_font.inc -P extract_vga_font.cmake
set(bytes "")
if(EXISTS "${ROM}")
  file(READ "${ROM}" hex HEX)
  string(FIND "${hex}" "000010386cc6c6fec6c6c6c600000000" at)
  if(at GREATER_EQUAL 2080)
    math(EXPR start "${at} - 2080")  # 41h x 16 bytes x 2 hex digits
    string(SUBSTRING "${hex}" ${start} 8192 font)
    string(LENGTH "${font}" length)
    if(length EQUAL 8192)
      string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${font}")
    endif()
  endif()
endif()
if(bytes STREQUAL "")
  message(WARNING "no VGA font found in '${ROM}': the power-up text screen has no font")
endif()
file(WRITE "${OUTPUT}.tmp" "${bytes}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
