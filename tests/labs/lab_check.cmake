# Runs one lab (-DLAB=NN_name) as its page describes and checks what the page says the
# student will see. Each lab's steps and checks are in tests/labs/<LAB>.cmake; this file
# gives them their tools. A check that fails names the lab, the file and the missing text.
cmake_minimum_required(VERSION 3.25)
set(WORK ${OUT}/${LAB})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# run_gui(DIR SCRIPT args...): `x86lab gui args --script SCRIPT` in ${WORK}/DIR (the
# script's dumps and screenshots land there).
function(run_gui dir script)
  file(MAKE_DIRECTORY ${WORK}/${dir})
  execute_process(COMMAND ${X86LAB} gui --no-layout ${ARGN} --script ${SCRIPTS}/${script}
                  WORKING_DIRECTORY ${WORK}/${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "lab ${LAB}: x86lab gui ${ARGN} --script ${script} failed (${rc}): ${err}")
  endif()
endfunction()

# run_cli(NAME EXPECTED_STATUS args...): `x86lab args`; stdout and stderr together in
# ${WORK}/NAME.txt.
function(run_cli name expected)
  execute_process(COMMAND ${X86LAB} ${ARGN} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc
                  OUTPUT_FILE ${WORK}/${name}.txt ERROR_FILE ${WORK}/${name}.err TIMEOUT 240)
  file(READ ${WORK}/${name}.err err)
  file(APPEND ${WORK}/${name}.txt "${err}")
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "lab ${LAB}: x86lab ${ARGN} ended with ${rc}, the page says ${expected}: ${err}")
  endif()
endfunction()

# expect_in(FILE needle...): every needle is in ${WORK}/FILE; expect_not_in: none is.
function(expect_text present file)
  file(READ ${WORK}/${file} text)
  foreach(needle ${ARGN})
    string(FIND "${text}" "${needle}" at)
    if(present AND at EQUAL -1)
      message(FATAL_ERROR "lab ${LAB}: '${needle}' is not in ${file} (the page says it is)")
    elseif(NOT present AND NOT at EQUAL -1)
      message(FATAL_ERROR "lab ${LAB}: '${needle}' is in ${file} (the page says it is not)")
    endif()
  endforeach()
endfunction()
function(expect_in file)
  expect_text(TRUE ${file} ${ARGN})
endfunction()
function(expect_not_in file)
  expect_text(FALSE ${file} ${ARGN})
endfunction()

# expect_lines(FILE REGEX COUNT): exactly COUNT lines of ${WORK}/FILE match REGEX.
function(expect_lines file regex count)
  file(STRINGS ${WORK}/${file} lines REGEX "${regex}")
  list(LENGTH lines n)
  if(NOT n EQUAL count)
    message(FATAL_ERROR "lab ${LAB}: ${n} lines of ${file} match '${regex}', the page says ${count}")
  endif()
endfunction()

# expect_image(DIR NAME): the screenshot NAME.png was written, and the page's copy in
# docs/labs/images/ exists with the same size (scripts/update-lab-images.sh refreshes it).
function(expect_image dir name)
  set(made ${WORK}/${dir}/${name}.png)
  set(page ${IMAGES}/${name}.png)
  if(NOT EXISTS ${made})
    message(FATAL_ERROR "lab ${LAB}: the script wrote no ${name}.png")
  endif()
  if(NOT EXISTS ${page})
    message(FATAL_ERROR "lab ${LAB}: docs/labs/images/${name}.png is missing (run scripts/update-lab-images.sh)")
  endif()
  file(READ ${made} a LIMIT 24 HEX)
  file(READ ${page} b LIMIT 24 HEX)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "lab ${LAB}: docs/labs/images/${name}.png has another size than the script's (run scripts/update-lab-images.sh)")
  endif()
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/${LAB}.cmake)
message(STATUS "lab ${LAB}: every observation of the page holds")
