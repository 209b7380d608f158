# Copies test386.asm's src/ folder (../shared/tests/test386, never edited) to DESTINATION
# and sets, in the copy's configuration.asm, the ports x86lab's machine has: POST codes
# on port 80h, the ASCII results on the debug console at E9h; ROM128 selects the
# 128 KiB image. Every other switch keeps its upstream value (docs/test386.md).
# usage: cmake -DSOURCE=<test386>/src -DDESTINATION=<dir> -DROM128=0|1 -P configure_copy.cmake
foreach(variable SOURCE DESTINATION ROM128)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "configure_copy.cmake: ${variable} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${DESTINATION})
file(COPY ${SOURCE}/ DESTINATION ${DESTINATION} NO_SOURCE_PERMISSIONS)
set(configuration ${DESTINATION}/configuration.asm)
file(READ ${configuration} text)
foreach(setting "POST_PORT;0x80" "OUT_PORT;0xE9" "ROM128;${ROM128}")
  list(GET setting 0 name)
  list(GET setting 1 value)
  string(REGEX MATCH "\n${name}[ \t]+equ[ \t]+[^\n]*" line "${text}")
  if(NOT line)
    message(FATAL_ERROR "${SOURCE}/configuration.asm: no '${name} equ' line to set")
  endif()
  string(REPLACE "${line}" "\n${name} equ ${value}" text "${text}")
endforeach()
file(WRITE ${configuration} "${text}")
