# ctest compare.reproduction_doc_is_current: docs/reproduction.md must equal the output
# of `x86lab compare all --format markdown` (deterministic; docs/compare.md).
# Arguments: -DX86LAB=<binary> -DDOC=<docs/reproduction.md> -DFRESH=<where to write the new text>
execute_process(COMMAND ${X86LAB} compare all --format markdown --no-files
  OUTPUT_VARIABLE fresh ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "x86lab compare all failed (status ${status}):\n${errors}")
endif()
file(WRITE ${FRESH} "${fresh}")
set(committed "")
if(EXISTS ${DOC})
  file(READ ${DOC} committed)
endif()
if(NOT committed STREQUAL fresh)
  message(FATAL_ERROR "docs/reproduction.md is out of date (the new text is in ${FRESH}; "
    "diff -u ${DOC} ${FRESH}). Regenerate it with:\n"
    "  build/release/x86lab compare all --format markdown --no-files > docs/reproduction.md")
endif()
